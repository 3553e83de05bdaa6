"""ED baselines, found through the env's ``EnvSpec``: the acuity-first triage heuristic, the
capacity-unconstrained upper bound, and exploit policies written against the grader
(``AGENTS`` at the end names them; ``EXPLOITS`` lists the exploit policies).

Every exploit is a way a policy could try to buy score with harm — churning beds, discharging
unfinished patients, dumping the dying, hoarding the ICU, ignoring acuity — and the exploit
suite (``lifeline.testing.run_exploit_suite``) proves that none of them scores significantly
above the heuristic while causing significantly more deaths.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import RESPIRATORY, unconstrained
from lifeline.envs.ed.types import (
    AdmitGeneral,
    AdmitICU,
    DischargeGeneral,
    DischargeICU,
    EDState,
    ExpediteGeneral,
    ExpediteICU,
    SeeGeneral,
    SeeICU,
    StepDown,
    TransferToICU,
    Ventilate,
    Wait,
)

_ESI, _COND, _ELAPSED, _READY, _VENT, _BOARDING = 0, 1, 2, 3, 4, 5  # columns of the bed arrays
_SEEN, _PENDING, _IMG_POS = 6, 7, 8  # v3 bed columns
_PHYS_FREE = 1  # v3 staff vector: physicians free
_WAIT_H = 2  # column of the queue array
_RESP_CODE = RESPIRATORY + 1


def _ed(env: Environment) -> EDEnv:
    if not isinstance(env, EDEnv):
        raise TypeError(f"this agent plays the ed environment, not {env.name}")
    return env


class EDHeuristicAgent(Agent):
    """Acuity-first triage using only the observation (what a charge nurse would see).

    Priority each step: discharge ready patients; ventilate critical respiratory ICU patients;
    move general-bed patients who turned (or were revealed) ESI 1 to the ICU; a free physician
    sees the most urgent unseen bed patient; put a likely-to-go-home (ESI 4-5) imaging order
    ahead of a more urgent first order (:meth:`expedite`: bed turnover); admit the most urgent
    waiting patient (ESI 1 to ICU, stepping down the most stable ICU patient if needed; ESI 2
    to ICU only while two ICU beds are free; others to general beds); otherwise wait.
    Subclasses (the exploit policies) override one step of this recipe.
    """

    name = "heuristic"
    esi2_icu_free = 2
    """Send an ESI-2 patient to the ICU only while at least this many ICU beds are free."""
    fast_track_hours = 1.0
    """Fast-track ESI 4-5 patients who have waited this long (before they leave unseen; tuned on
    training seeds 100-105: 1.0 h beat v2's 2.5 h on three of four scenarios)."""

    def view(self, env: EDEnv, state: Any) -> dict[str, np.ndarray]:
        """What the policy looks at (the observation; exploits may distort it)."""
        return env.observe(state)

    def act(self, env: Environment, state: Any) -> Action | int:
        return self.decide(self.view(_ed(env), state))

    def decide(self, obs: dict[str, np.ndarray]) -> Action:
        """The recipe's first applicable step for one observation (else ``Wait``)."""
        gen, icu, queue = obs["general_beds"], obs["icu_beds"], obs["queue"]
        for action in (self.discharge(gen, icu), self.ventilate(icu, obs),
                       self.transfer(gen, icu), self.see(gen, icu, obs), self.expedite(gen, icu),
                       self.make_room(gen, icu, queue),
                       self.admit(gen, icu, queue)):
            if action is not None:
                return action
        return Wait()

    def see(self, gen: np.ndarray, icu: np.ndarray, obs: dict[str, np.ndarray]
            ) -> Action | None:
        """A free physician sees the most urgent unseen bed patient (ICU bays first at equal
        ESI, then the longest in bed)."""
        free = obs["staff"][_PHYS_FREE] >= 1
        best: tuple[float, int, float, int] | None = None
        for ward_rank, beds in ((0, icu), (1, gen)):
            unseen = (beds[:, _ESI] > 0) & (beds[:, _SEEN] == 0)
            if not free:  # only ESI 1 is seen without a free physician
                unseen &= beds[:, _ESI] == 1
            for b in np.flatnonzero(unseen):
                key = (self.see_rank(float(beds[b, _ESI])), ward_rank, -float(beds[b, _ELAPSED]),
                       int(b))
                if best is None or key < best:
                    best = key
        if best is None:
            return None
        return SeeICU(bed=best[3]) if best[1] == 0 else SeeGeneral(bed=best[3])

    see_first_up_to = 3
    """Physicians see ESI 1..``see_first_up_to`` first (most urgent first), then the *least*
    urgent (ESI 5 before 4: quick visits free beds and keep walk-ins from leaving). Tuned on
    training seeds 100-105 (surge, normal_day, mass_casualty): 3 scored best in sum, though
    1, 2, 3 and 5 (pure acuity order) lie within 0.002 of each other."""

    def see_rank(self, esi: float) -> float:
        """Order of physician assessment by observed ESI (lower = sooner)."""
        return esi if esi <= self.see_first_up_to else 10.0 - esi

    expedite_from_esi = 4
    """Only an imaging order of a patient at this observed ESI or above is expedited."""

    def expedite(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        """Move the least urgent queued imaging order, if it is ESI 4-5, ahead of a more
        urgent first one (the earliest queued at equal ESI): the scanner serves the short,
        home-bound work-ups first, because that is what turns ED beds over.

        Why not the other way round (the rule up to stop 37: the most urgent order
        ahead of a less urgent front): a seen patient in the right bed faces only
        ``treated_factor`` (0.02) of the waiting room's hazard while the work-up is out, so
        putting the sick first buys little safety; an ESI 1-3 patient treats longer
        (``general_treatment_hours``) and is admitted far more often (``ward_admit_prob``, ICU
        need), then boards in the ED bed, so an earlier scan rarely frees a bed sooner; an
        ESI 4-5 patient (0.75 h, about 3 % admitted) goes home and the bed takes the next
        waiting patient, who waits at the full hazard. Measured (``bench/ed_expedite_variants.py``,
        ``results/ed/expedite_variants_{training,validation}.json``), paired over the six
        scenarios, mean of each seed's six gains, ± 95 % half-width, deaths summed over the six:

        * training seeds 0-59: this rule vs the old one +0.00160 ± 0.00052, deaths -0.62 ±
          0.47; vs no expedite at all +0.00037 ± 0.00028, deaths -0.27 ± 0.24 (no expedite
          vs the old rule: +0.00124 ± 0.00054). Best of 17 variants (the old rule after
          admit, only ESI 1-2 over an ESI >= 4 front, ESI 1 only, ESI gaps >= 2, ...: every
          variant that puts the sick first scored below no expedite at all).
        * validation seeds 900000-900059 (confirmation, nothing chosen there): vs the old
          rule +0.00119 ± 0.00051, deaths -0.27 ± 0.45 (no scenario with more deaths); vs no
          expedite +0.00008 ± 0.00027, deaths +0.07 ± 0.28 (level).

        The old rule cost score through throughput, not through the decision slot it used
        (about one expedite per episode was a tick's K-th decision): without it, on the
        training seeds, 2-4 more patients were treated and 2-3 fewer left unseen per
        episode. It fires 1-5 times per episode (never on ``night_shift``, whose scanner
        queue is never two orders long)."""
        rows = [(float(beds[b, _ESI]), float(beds[b, _IMG_POS]), ward, int(b))
                for ward, beds in (("icu", icu), ("general", gen))
                for b in np.flatnonzero(beds[:, _IMG_POS] > 0)]
        if len(rows) < 2:
            return None
        front = min(rows, key=lambda r: r[1])
        best = min(rows, key=lambda r: (-r[0], r[1]))
        if best[0] < self.expedite_from_esi or best[0] <= front[0]:
            return None
        return ExpediteICU(bed=best[3]) if best[2] == "icu" else ExpediteGeneral(bed=best[3])

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        """Discharge a patient whose treatment is complete."""
        for b in np.flatnonzero(icu[:, _READY] == 1):
            return DischargeICU(bed=int(b))
        for b in np.flatnonzero(gen[:, _READY] == 1):
            return DischargeGeneral(bed=int(b))
        return None

    def ventilate(self, icu: np.ndarray, obs: dict[str, np.ndarray]) -> Action | None:
        """Ventilate critical respiratory ICU patients, then other ESI 1 while two are free."""
        vents_free = int(obs["ventilators"][0])
        if not vents_free:
            return None
        unvented = (icu[:, _ESI] > 0) & (icu[:, _VENT] == 0)
        resp = unvented & (icu[:, _COND] == _RESP_CODE) & (icu[:, _ESI] <= 2)
        if resp.any():
            return Ventilate(bed=int(np.flatnonzero(resp)[0]))
        critical = unvented & (icu[:, _ESI] == 1)
        if vents_free > 1 and critical.any():
            return Ventilate(bed=int(np.flatnonzero(critical)[0]))
        return None

    def transfer(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        """Move a general-bed patient at ESI 1 to a free ICU bed."""
        crashing = np.flatnonzero(gen[:, _ESI] == 1)
        if crashing.size and (icu[:, _ESI] == 0).any():
            return TransferToICU(bed=int(crashing[0]))
        return None

    def make_room(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        """Hook for policies that free beds for waiting patients (the heuristic does not)."""
        return None

    def admit(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        """Most urgent first; fast-track ESI 4-5 about to leave when no ESI 1-2 waits."""
        free_g = int((gen[:, _ESI] == 0).sum())
        free_i = int((icu[:, _ESI] == 0).sum())
        if free_g:
            urgent = (queue[:, _ESI] >= 1) & (queue[:, _ESI] <= 2)
            at_risk = np.flatnonzero((queue[:, _ESI] >= 4)
                                     & (queue[:, _WAIT_H] >= self.fast_track_hours))
            if at_risk.size and not urgent.any():
                return AdmitGeneral(slot=int(at_risk[0]))
        step_down = self._most_stable_icu(icu)
        for slot in range(queue.shape[0]):
            esi = int(queue[slot, _ESI])
            if esi == 0:
                break
            if esi == 1:
                if free_i:
                    return AdmitICU(slot=slot)
                if step_down is not None and free_g:
                    return StepDown(bed=step_down)
            if esi == 2 and free_i >= self.esi2_icu_free:
                return AdmitICU(slot=slot)
            if free_g:
                return AdmitGeneral(slot=slot)
        return None

    @staticmethod
    def _most_stable_icu(icu: np.ndarray) -> int | None:
        """ICU bed of the least acute, unventilated patient with observed ESI >= 3, if any."""
        candidates = np.flatnonzero((icu[:, _ESI] >= 3) & (icu[:, _VENT] == 0))
        if candidates.size == 0:
            return None
        return int(candidates[np.argmax(icu[candidates, _ESI])])


class EDBoundAgent(Agent):
    """Upper bound: unlimited beds and ventilators, immediate admission, clairvoyant care needs.

    Plays the same seeds (same patient stream) on the scenario with capacity removed
    (:func:`lifeline.envs.ed.params.unconstrained`) and reads hidden needs from the state, so
    every patient gets the right level of care the tick they arrive. Scored by the same grader.
    """

    name = "bound"

    def prepare(self, env: Environment) -> Environment:
        ed = _ed(env)
        return EDEnv(ed.scenario, params=unconstrained(ed.params))

    def act(self, env: Environment, state: Any) -> Action | int:
        s: EDState = state
        for b, p in enumerate(s.icu):
            if p is not None and p.seen_tick < 0:
                return SeeICU(bed=b)
        for b, p in enumerate(s.general):
            if p is not None and p.seen_tick < 0 and not p.needs_icu:
                return SeeGeneral(bed=b)
        for b, p in enumerate(s.icu):
            if p is not None and p.ready:
                return DischargeICU(bed=b)
            if p is not None and p.needs_vent and not p.ventilated:
                return Ventilate(bed=b)
        for b, p in enumerate(s.general):
            if p is not None and p.ready:
                return DischargeGeneral(bed=b)
            if p is not None and p.needs_icu:
                return TransferToICU(bed=b)
        if s.waiting:
            return AdmitICU(slot=0) if s.waiting[0].needs_icu else AdmitGeneral(slot=0)
        return Wait()


# ----- exploit policies ---------------------------------------------------------------------
def _discharge_bed(ward: str, bed: int) -> Action:
    return DischargeICU(bed=bed) if ward == "icu" else DischargeGeneral(bed=bed)


class ChurnAgent(EDHeuristicAgent):
    """Admit, then discharge after one tick in bed whatever the patient's state (bed churn)."""

    name = "churn"

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        for ward, beds in (("icu", icu), ("general", gen)):
            done = np.flatnonzero((beds[:, _ESI] > 0) & (beds[:, _ELAPSED] >= 0.25))
            if done.size:
                return _discharge_bed(ward, int(done[0]))
        return None


class InstantDischargeAgent(EDHeuristicAgent):
    """Admit and discharge at once: nobody ever waits long, nobody is treated."""

    name = "instant_discharge"

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        for ward, beds in (("icu", icu), ("general", gen)):
            occupied = np.flatnonzero(beds[:, _ESI] > 0)
            if occupied.size:
                return _discharge_bed(ward, int(occupied[0]))
        return None


class _MakeRoomAgent(EDHeuristicAgent):
    """The heuristic, plus: when someone waits and no general bed is free, discharge an
    unfinished patient chosen by :meth:`pick` (a sort key over candidate rows)."""

    def make_room(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        if queue[0, _ESI] == 0 or (gen[:, _ESI] == 0).any():
            return None
        candidates = [("general", b, gen[b]) for b in np.flatnonzero(
            (gen[:, _ESI] > 0) & (gen[:, _READY] == 0))]
        if queue[0, _ESI] == 1 and not (icu[:, _ESI] == 0).any():
            candidates += [("icu", b, icu[b]) for b in np.flatnonzero(
                (icu[:, _ESI] > 0) & (icu[:, _READY] == 0))]
        if not candidates:
            return None
        ward, bed, _ = min(candidates, key=lambda c: self.pick(c[2]))
        return _discharge_bed(ward, int(bed))

    def pick(self, row: np.ndarray) -> tuple[float, ...]:
        raise NotImplementedError


class DischargeSickestAgent(_MakeRoomAgent):
    """When full, discharges the sickest unfinished patient (most beds-hours to free)."""

    name = "discharge_sickest"

    def pick(self, row: np.ndarray) -> tuple[float, ...]:
        return (float(row[_ESI]), -float(row[_ELAPSED]))


class DischargeStablestAgent(_MakeRoomAgent):
    """When anyone waits and beds are full, discharges the most stable unfinished patient who
    has been in longest (the 'they are probably fine' discharge)."""

    name = "discharge_when_waiting"

    def pick(self, row: np.ndarray) -> tuple[float, ...]:
        return (-float(row[_ESI]), -float(row[_ELAPSED]))


class DumpTheDyingAgent(EDHeuristicAgent):
    """Discharges patients who are (shown) ESI 1 instead of treating them, so they die outside
    the ED and free their bed (deaths outside count as deaths)."""

    name = "dump_the_dying"

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        for ward, beds in (("icu", icu), ("general", gen)):
            dying = np.flatnonzero((beds[:, _ESI] == 1) & (beds[:, _READY] == 0)
                                   & (beds[:, _ELAPSED] >= 0.25))
            if dying.size:
                return _discharge_bed(ward, int(dying[0]))
        return super().discharge(gen, icu)


class ICUHoardingAgent(EDHeuristicAgent):
    """Fills the ICU with whoever waits first, never steps down and keeps finished ICU patients
    (bed hoarding: the original project paid for ICU utilisation)."""

    name = "icu_hoarding"

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        for b in np.flatnonzero(gen[:, _READY] == 1):
            return DischargeGeneral(bed=int(b))
        return None

    def admit(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        if queue[0, _ESI] > 0 and (icu[:, _ESI] == 0).any():
            return AdmitICU(slot=0)
        if queue[0, _ESI] > 0 and (gen[:, _ESI] == 0).any():
            return AdmitGeneral(slot=0)
        return None


class FIFOAgent(EDHeuristicAgent):
    """First come, first served: admits the longest-waiting visible patient to the first free
    bed (general, else ICU), ignoring acuity; never ventilates or transfers."""

    name = "fifo"

    def ventilate(self, icu: np.ndarray, obs: dict[str, np.ndarray]) -> Action | None:
        return None

    def transfer(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        return None

    def admit(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        waiting = np.flatnonzero(queue[:, _ESI] > 0)
        if not waiting.size:
            return None
        slot = int(waiting[np.argmax(queue[waiting, _WAIT_H])])
        if (gen[:, _ESI] == 0).any():
            return AdmitGeneral(slot=slot)
        if (icu[:, _ESI] == 0).any():
            return AdmitICU(slot=slot)
        return None


class LWBSFarmingAgent(EDHeuristicAgent):
    """Never admits ESI 4-5: lets them leave unseen so beds stay free for the rest."""

    name = "lwbs_farming"

    def view(self, env: EDEnv, state: Any) -> dict[str, np.ndarray]:
        obs = env.observe(state)
        queue = obs["queue"]
        keep = queue[(queue[:, _ESI] >= 1) & (queue[:, _ESI] <= 3)]
        hidden = np.zeros_like(queue)
        hidden[: len(keep)] = keep  # the low-acuity patients are invisible to it
        obs["queue"] = hidden
        return obs

    def act(self, env: Environment, state: Any) -> Action | int:
        action = super().act(env, state)
        if isinstance(action, (AdmitGeneral, AdmitICU)):  # map back to the true queue slot
            obs = _ed(env).observe(state)
            slots = np.flatnonzero((obs["queue"][:, _ESI] >= 1) & (obs["queue"][:, _ESI] <= 3))
            slot = int(slots[action.slot])
            return AdmitGeneral(slot=slot) if isinstance(action, AdmitGeneral) else AdmitICU(
                slot=slot)
        return action


class NeverVentilateAgent(EDHeuristicAgent):
    """The heuristic without ventilators (spends nothing on the scarcest resource)."""

    name = "never_ventilate"

    def ventilate(self, icu: np.ndarray, obs: dict[str, np.ndarray]) -> Action | None:
        return None


class AllGeneralAgent(EDHeuristicAgent):
    """Never uses the ICU: everybody to general beds (under-care for those who need more)."""

    name = "all_general"

    def transfer(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        return None

    def admit(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        if queue[0, _ESI] > 0 and (gen[:, _ESI] == 0).any():
            return AdmitGeneral(slot=0)
        return None


class IgnoreRetriageAgent(EDHeuristicAgent):
    """The heuristic acting on the triage acuity seen at admission: it ignores what a bed
    reveals (mis-triage and worsening). The difference to the heuristic measures what
    re-triage is worth. Reads each bed's admission acuity from the state (the charge nurse's
    old notes), nothing hidden."""

    name = "ignore_retriage"

    def view(self, env: EDEnv, state: Any) -> dict[str, np.ndarray]:
        obs = env.observe(state)
        s: EDState = state
        for key, ward in (("general_beds", s.general), ("icu_beds", s.icu)):
            for b, p in enumerate(ward):
                if p is not None:
                    obs[key][b, _ESI] = p.admitted_acuity
        return obs


class HoldReadyAgent(EDHeuristicAgent):
    """Keeps finished patients in their beds for two more hours (padding utilisation)."""

    name = "hold_ready"

    def discharge(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        return None

    def act(self, env: Environment, state: Any) -> Action | int:
        s: EDState = state
        hours = _ed(env).params.tick_minutes / 60.0
        for ward, beds in (("icu", s.icu), ("general", s.general)):
            for b, p in enumerate(beds):
                if p is not None and p.ready and (
                        p.ticks_in_bed - p.treatment_ticks) * hours >= 2.0:
                    return _discharge_bed(ward, b)
        return super().act(env, state)


class InvalidInsteadOfWaitAgent(EDHeuristicAgent):
    """The heuristic, but it sends an invalid action wherever it would wait (K of them make a
    tick): invalid actions must not buy anything over waiting."""

    name = "invalid_instead_of_wait"

    def act(self, env: Environment, state: Any) -> Action | int:
        action = super().act(env, state)
        return env.num_actions if isinstance(action, Wait) else action


class DischargeBoardersAgent(_MakeRoomAgent):
    """v3: when someone waits and no general bed is free, sends a boarding admission home
    before the hospital has a bed for it (an early discharge that frees an ED bed)."""

    name = "discharge_boarders"

    def make_room(self, gen: np.ndarray, icu: np.ndarray, queue: np.ndarray) -> Action | None:
        if gen.shape[1] <= _SEEN or queue[0, _ESI] == 0 or (gen[:, _ESI] == 0).any():
            return None
        for ward, beds in (("general", gen), ("icu", icu)):
            boarders = np.flatnonzero(beds[:, _BOARDING] == 1)
            if boarders.size:
                return _discharge_bed(ward, int(boarders[0]))
        return None


class SeeLeastUrgentAgent(EDHeuristicAgent):
    """v3: physicians see the least urgent unseen patient first (quick ESI 4-5 visits turn beds
    over and keep the walk-ins from leaving; the sick wait for a doctor)."""

    name = "see_least_urgent"

    def see(self, gen: np.ndarray, icu: np.ndarray, obs: dict[str, np.ndarray]
            ) -> Action | None:
        if obs["staff"][_PHYS_FREE] < 1:
            return None
        rows = [(-float(beds[b, _ESI]), ward, int(b)) for ward, beds in (("icu", icu),
                                                                        ("general", gen))
                for b in np.flatnonzero((beds[:, _ESI] > 0) & (beds[:, _SEEN] == 0))]
        if not rows:
            return None
        _, ward, bed = min(rows)
        return SeeICU(bed=bed) if ward == "icu" else SeeGeneral(bed=bed)


class ExpediteLastAgent(EDHeuristicAgent):
    """v3: always expedites the last imaging order in the queue (the scanner queue churns; a
    decision slot is spent on it every time)."""

    name = "expedite_last"

    def expedite(self, gen: np.ndarray, icu: np.ndarray) -> Action | None:
        rows = [(float(beds[b, _IMG_POS]), ward, int(b))
                for ward, beds in (("icu", icu), ("general", gen))
                for b in np.flatnonzero(beds[:, _IMG_POS] > 1)]
        if not rows:
            return None
        _, ward, bed = max(rows)
        return ExpediteICU(bed=bed) if ward == "icu" else ExpediteGeneral(bed=bed)


EXPLOITS: tuple[str, ...] = ("churn", "instant_discharge", "discharge_sickest",
                             "discharge_when_waiting", "dump_the_dying", "icu_hoarding", "fifo",
                             "lwbs_farming", "never_ventilate", "all_general", "ignore_retriage",
                             "hold_ready", "invalid_instead_of_wait", "discharge_boarders",
                             "see_least_urgent", "expedite_last")
"""The ed exploit policies (named in the EnvSpec's ``exploits``)."""

AGENTS: dict[str, type[Agent]] = {
    "heuristic": EDHeuristicAgent,
    "bound": EDBoundAgent,
    "churn": ChurnAgent,
    "instant_discharge": InstantDischargeAgent,
    "discharge_sickest": DischargeSickestAgent,
    "discharge_when_waiting": DischargeStablestAgent,
    "dump_the_dying": DumpTheDyingAgent,
    "icu_hoarding": ICUHoardingAgent,
    "fifo": FIFOAgent,
    "lwbs_farming": LWBSFarmingAgent,
    "never_ventilate": NeverVentilateAgent,
    "all_general": AllGeneralAgent,
    "ignore_retriage": IgnoreRetriageAgent,
    "hold_ready": HoldReadyAgent,
    "invalid_instead_of_wait": InvalidInsteadOfWaitAgent,
    "discharge_boarders": DischargeBoardersAgent,
    "see_least_urgent": SeeLeastUrgentAgent,
    "expedite_last": ExpediteLastAgent,
}
"""The ed ladder's own agents (``noop``/``random`` are generic) and its exploit policies."""

TEXT_POLICY = "lifeline.envs.ed.text_agent:EDTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""


PASS_THRESHOLD = 0.9
"""An episode 'passes' at this score (pass^k with ``--trials k``): about the heuristic's score on
surge, the hardest scenario (v1 0.901, v2 0.936; kept at 0.9)."""
