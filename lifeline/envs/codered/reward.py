"""The outcome-gated grader and the dense reward of ``codered``.

Over the patients who needed hospital care and appeared (``n``), with ``s_i`` the survival
probability fixed when patient ``i``'s definitive treatment started (0 if never treated or dead;
v3: for a stroke patient the probability of a good functional outcome, mRS 0-1, and for a cardiac
patient survival by system delay — ``params.outcome_at``):

* ``alive = Σ s_i / n`` — the share treated alive (expected); every other component is gated by it;
* ``time = Σ s_i · min(1, target_i / onset_to_treatment_i) / n``;
* ``vitals = Σ s_i · vitals_at_treatment_i / n``;
* ``prep_ready = Σ s_i · readiness_i / n_res`` over patients needing an OR or a specialist
  (readiness: share of {OR ready, specialist present} at arrival); ``alive`` if none needed one;
* ``efficiency = alive · useful / (useful + waste)`` (``alive`` when nothing was spent) with useful
  = used preps, pages, preemptions, blood units and correct non-dispatch triage; waste = unused
  preps/pages/preemptions, wasted blood, ambulances sent to non-urgent calls (ALS 1, BLS ½) and
  ¼ per emergency O− unit given to a non-O− patient;
* task5 only: ``secondary_harm = alive · (1 − Σ_sec (1 − s_j) / n_sec)`` (``alive`` if no secondary
  patient appeared) and ``cascade = alive · (1 − crowded_fraction) · (1 − ½·escalated_calls /
  calls)``; in other tasks both drop out and the weights are renormalised.

``score = clip(Σ w_c·c / Σ w_c − aid_penalty − min(0.10, 0.002 · invalid_actions), 0, 1)`` with
the seed's weights (time .32, efficiency .16, secondary_harm .16, prep_ready .16, vitals .10,
cascade .10); ``aid_penalty = min(cap, params.aid_penalty · requests)`` is 0 since v3 (aid's
price is in the dynamics: its arrival delay). Efficiency's waste also counts (v3) ½ per blood unit
moved by ``transfer_blood`` and not drawn at the receiving hospital.
A patient never treated scores 0 everywhere, so a passive agent scores 0 on every task.

Hidden truth stays hidden (v3): until the horizon, a 911 call whose true condition no crew or
hospital has seen is counted only as a call (not as a patient, not as a right or wrong triage),
so neither the grade nor the dense reward moves with a hidden condition (v2's reward fell when a
serious call rang and rose when a minor one was closed). At the horizon everything counts.

Dense reward: the change of ``score + shaping`` since the previous step, where shaping pays 0.01
per patient milestone (crew on scene, arrival at hospital), capped at 0.05 and withdrawn on the last
step: the episode's reward sum equals the final score exactly.
"""

from __future__ import annotations

from lifeline.core.env import Grade
from lifeline.envs.codered.params import (
    CARDIAC,
    PROCEDURE_OF,
    SERIOUS,
    SPECIALIST_OF,
    STROKE,
    TARGET_MIN,
    CodeRedParams,
)
from lifeline.envs.codered.types import (
    AT_HOSPITAL,
    DEAD,
    FUTURE,
    HANDOVER,
    ON_SCENE,
    OR_READY,
    SP_PRESENT,
    STABILISED,
    TRANSPORT,
    TREATED,
    CodeRedState,
)

WEIGHTS = {"time": 0.32, "efficiency": 0.16, "secondary_harm": 0.16, "prep_ready": 0.16,
           "vitals": 0.10, "cascade": 0.10}
SHAPING_PER_MILESTONE, SHAPING_CAP = 0.01, 0.05


_NEEDS_RES = tuple(PROCEDURE_OF[c] >= 0 or SPECIALIST_OF[c] >= 0 for c in SERIOUS)
"""Per serious condition: needs an OR or a specialist (counts for ``prep_ready``)."""
_SERIOUS_SET = frozenset(SERIOUS)


_W_TIME, _W_EFF, _W_PREP, _W_VIT, _W_HARM, _W_CASC = (
    WEIGHTS[k] for k in ("time", "efficiency", "prep_ready", "vitals", "secondary_harm",
                         "cascade"))
_WSUM_PLAIN = sum(WEIGHTS[k] for k in ("time", "efficiency", "prep_ready", "vitals"))
_WSUM_CASCADE = sum(WEIGHTS[k] for k in ("time", "efficiency", "prep_ready", "vitals",
                                         "secondary_harm", "cascade"))
"""The weights in the order the components are summed (constant sums, computed once)."""
_MILESTONE_1 = frozenset({ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, STABILISED, TREATED})
_MILESTONE_2 = frozenset({AT_HOSPITAL, STABILISED, TREATED})


def _tally(s: CodeRedState, params: CodeRedParams, metrics_too: bool = True,
           with_invalid: bool = True) -> tuple[float, dict[str, float], dict[str, float], int]:
    """One pass over the patients: ``(score, components, metrics, milestones)`` (the arithmetic,
    term order included, is exactly the formula in the module docstring, so the floats are
    reproducible; ``metrics`` is empty unless ``metrics_too``)."""
    n = n_res = n_sec = n_treated = dead = milestones = 0
    surv = time = vit = ready = harmed = exp_sum = 0.0
    ott_sum = strokes_sum = cards_sum = 0.0
    n_ott = n_strokes = n_cards = 0
    calls = minors = good = 0
    serious, milestone_1, milestone_2 = _SERIOUS_SET, _MILESTONE_1, _MILESTONE_2
    reveal = s.t >= params.horizon_min
    proc_of, spec_of, target_of = PROCEDURE_OF, SPECIALIST_OF, TARGET_MIN
    for p in s.patients:
        if p.void or p.status == FUTURE:
            continue
        cond = p.cond
        if p.is_call:
            calls += 1
            if not (p.known or reveal):
                continue  # v3: a call's truth counts once seen (or at the end): no leak
            if cond not in serious:
                minors += 1
                good += p.decision in (2, 4)  # self-transport / no dispatch: right call
        if cond not in serious:
            continue
        n += 1
        proc, spec = proc_of[cond], spec_of[cond]
        if proc >= 0 or spec >= 0:
            n_res += 1
        st = p.status
        if st in milestone_1:
            milestones += 1 + (st in milestone_2)
        if st == TREATED:
            n_treated += 1
            sv = p.survival
            surv += sv
            time += sv * min(1.0, target_of[cond] / max(p.treated_at - p.onset, 1.0))
            vit += sv * p.vitals_at
            if proc >= 0 and spec >= 0:
                ready += sv * (p.or_ready_arr + p.spec_ready_arr) / 2
            elif proc >= 0:
                ready += sv * (p.or_ready_arr + 0) / 1
            elif spec >= 0:
                ready += sv * (p.spec_ready_arr + 0) / 1
            if metrics_too:  # metrics only: the dense reward skips them
                exp_sum += 1.0 - sv
                ott_sum += p.treated_at - p.onset
                n_ott += 1
                if cond == STROKE:
                    strokes_sum += p.treated_at - p.arrived
                    n_strokes += 1
                elif cond == CARDIAC:
                    cards_sum += p.treated_at - p.arrived
                    n_cards += 1
        elif st == DEAD:
            dead += 1
        if p.secondary:
            n_sec += 1
            harmed += 1.0 - (p.survival if st == TREATED else 0.0)
    tl = s.tally
    # no serious patient: only non-urgent calls appeared, so what counts is triaging them
    # without ambulances
    alive = surv / n if n else (good / minors if minors else 0.0)
    time = time / n if n else alive
    vit = vit / n if n else alive
    prep_ready = ready / n_res if n_res else alive
    useful = tl.preps_used + tl.pages_used + tl.preempt_used + tl.blood_used + good
    waste = (tl.preps_wasted + tl.pages_wasted + tl.preempt_wasted + tl.blood_wasted
             + tl.triage_waste + 0.25 * tl.oneg_nonneg
             + params.transfer_waste * (tl.transfer_sent - tl.transfer_used))
    if s.t >= params.horizon_min:  # preps and pages still held unused at the end were wasted
        for hosp in s.hospitals:
            waste += sum(1 for o in hosp.ors if o.agent_prep and o.claimed < 0)
            waste += sum(1 for sp in hosp.specialists if sp.agent_paged and sp.state in
                         (SP_PRESENT, 1))
    efficiency = alive * useful / (useful + waste) if useful + waste > 0 else alive
    elapsed = max(s.t, 1e-9)
    t = s.t
    crowded = tl.crowded_minutes + sum([t - h.crowded_since for h in s.hospitals
                                        if h.crowded_since >= 0])
    # the weighted sum over the components in this order (time, efficiency, prep_ready, vitals
    # [, secondary_harm, cascade]); ``sum`` of a tuple adds exactly as the dict's values would
    if params.cascade:
        harm_c = alive * (1.0 - harmed / n_sec) if n_sec else alive
        esc = tl.escalations / calls if calls else 0.0
        casc = alive * max(0.0, 1.0 - crowded / (3.0 * elapsed)) * (1.0 - 0.5 * esc)
        weighted = sum((_W_TIME * time, _W_EFF * efficiency, _W_PREP * prep_ready,
                        _W_VIT * vit, _W_HARM * harm_c, _W_CASC * casc))
        wsum = _WSUM_CASCADE
    else:
        weighted = sum((_W_TIME * time, _W_EFF * efficiency, _W_PREP * prep_ready,
                        _W_VIT * vit))
        wsum = _WSUM_PLAIN
    penalty = min(params.aid_penalty_cap, params.aid_penalty * tl.aid_requests)
    invalid = min(params.invalid_score_cap, params.invalid_score * s.invalid_actions) \
        if with_invalid else 0.0
    score = weighted / wsum - penalty - invalid
    score = float(min(1.0, max(0.0, score)))
    comps: dict[str, float] = {}
    if not metrics_too:
        return score, comps, {}, milestones
    comps = {"time": time, "efficiency": efficiency, "prep_ready": prep_ready, "vitals": vit}
    if params.cascade:
        comps["secondary_harm"] = harm_c
        comps["cascade"] = casc
    metrics = {
        "patients": float(n), "treated": float(n_treated), "alive_share": alive,
        "deaths": float(dead), "expected_deaths": float(dead + exp_sum),
        "untreated": float(n - n_treated - dead),
        "harm": float(dead + exp_sum + (n - n_treated - dead)),
        "mean_onset_to_treatment_min": ott_sum / n_ott if n_ott else 0.0,
        "door_to_needle_min": strokes_sum / n_strokes if n_strokes else 0.0,
        "door_to_balloon_min": cards_sum / n_cards if n_cards else 0.0,
        "calls": float(calls), "escalations": float(tl.escalations),
        "mutual_aid_requests": float(tl.aid_requests), "mutual_aid_penalty": penalty,
        "preps_wasted": float(tl.preps_wasted), "pages_wasted": float(tl.pages_wasted),
        "blood_used": float(tl.blood_used), "blood_wasted": float(tl.blood_wasted),
        "icu_boarding": float(tl.icu_boarding), "crowded_minutes": crowded,
        "transfers": float(tl.transfers), "news_cycles": float(tl.news_cycles),
        "invalid_actions": float(s.invalid_actions), "invalid_deduction": invalid,
        "reassignments": float(tl.reassignments), "blood_transferred": float(tl.transfer_sent),
        "transfer_used": float(tl.transfer_used),
    }
    return score, comps, metrics, milestones


def grade(s: CodeRedState, params: CodeRedParams) -> Grade:
    """Episode grade (meaningful any time; final once the horizon is reached)."""
    score, comps, metrics, _ = _tally(s, params)
    return Grade(score=score, components=comps, metrics=metrics)


def value(s: CodeRedState, params: CodeRedParams) -> float:
    """``grade(s).score + shaping(s)`` in one pass (what the dense reward differences)."""
    # the invalid-action deduction is paid at the horizon (so that an invalid action changes
    # nothing in the state but the clock and the counters, as the conformance checker demands)
    score, _, _, m = _tally(s, params, metrics_too=False,
                            with_invalid=s.t >= params.horizon_min)
    if s.t >= params.horizon_min:
        return score + 0.0
    return score + min(SHAPING_CAP, SHAPING_PER_MILESTONE * m)


def shaping(s: CodeRedState, params: CodeRedParams) -> float:
    """Milestone credit in force now (0 at the end of the episode)."""
    if s.t >= params.horizon_min:
        return 0.0
    m = 0
    for p in s.patients:
        if p.cond in SERIOUS and not p.void:
            if p.status in (ON_SCENE, TRANSPORT, HANDOVER, AT_HOSPITAL, STABILISED, TREATED):
                m += 1
            if p.status in (AT_HOSPITAL, STABILISED, TREATED):
                m += 1
    return min(SHAPING_CAP, SHAPING_PER_MILESTONE * m)


__all__ = ["OR_READY", "WEIGHTS", "grade", "shaping", "value"]
