"""The pharmacy (MedChain) environment: one test per mechanic, the grader by hand, no leaks."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lifeline
from lifeline.agents import make_agent
from lifeline.envs.pharmacy import dynamics, inventory, reward, rules
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.generator import STOCKED, lead_time
from lifeline.envs.pharmacy.params import SCENARIOS, SKU_NAMES, WARDS
from lifeline.envs.pharmacy.queries import QUERIES
from lifeline.envs.pharmacy.types import (
    CONSOLE_TYPES,
    READ_ONLY,
    TOOL_TYPES,
    AdvanceRound,
    EscalateToClinicalReview,
    FileJustification,
    FinanceSapRequestApproval,
    Lot,
    Order,
    PharmacyState,
    ReadInbox,
    RequestEvidence,
    SetAllocation,
    SubmitAllocationPlan,
    SubmitPo,
    WmsScanInventory,
)
from lifeline.faces.tools import parse_tool_call, tool_specs
from lifeline.testing.checker import after_invalid_turn, world_bytes

SEED = 11


@pytest.fixture()
def env() -> PharmacyEnv:
    return PharmacyEnv("medium")


def _play(env: PharmacyEnv, agent_name: str, seed: int) -> PharmacyState:
    agent = make_agent(agent_name, "pharmacy")
    agent.reset(env, seed)
    state = env.reset(seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    return state


# ----- the tool surface ------------------------------------------------------------------------
def test_the_seed_21_tools_transfer_and_the_console_are_documented_tools(
        env: PharmacyEnv) -> None:
    names = [s.name for s in tool_specs(env)]
    seed_tools = ["get_round_briefing", "view_requests", "read_inbox", "submit_allocation_plan",
                  "advance_round", "query_ward_history", "query_erp", "query_supplier",
                  "erp_oracle_get_inventory", "erp_oracle_get_pipeline", "wms_scan_inventory",
                  "supplier_portal_request_quote", "supplier_portal_get_quote",
                  "finance_sap_get_budget", "finance_sap_request_approval",
                  "messaging_send_to_ward", "request_evidence", "escalate_to_clinical_review",
                  "submit_po", "file_justification", "quarantine_lot", "transfer_stock",
                  "authorize_stat"]
    assert [t.kind for t in TOOL_TYPES] == seed_tools and len(TOOL_TYPES) == 23
    assert set(names) == set(seed_tools) | {t.kind for t in CONSOLE_TYPES}
    handled = set(dynamics.HANDLERS) | set(QUERIES)
    assert handled == set(env.action_types), "every action is reached through the registries"
    assert set(QUERIES) == set(READ_ONLY)


def test_read_only_queries_cost_a_call_not_time(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    for _ in range(env.params.tool_calls_per_round - 1):
        ts = env.step(state, ReadInbox())
        assert ts.valid and state.round == 0
    assert state.calls_used == env.params.tool_calls_per_round - 1
    env.step(state, WmsScanInventory())  # the last call of the round advances it
    assert state.round == 1 and state.calls_used == 0


def test_episode_always_ends_under_query_spam(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    steps = 0
    while not state.done:
        env.step(state, ReadInbox())
        steps += 1
    assert steps == env.params.rounds * env.params.tool_calls_per_round
    assert env.progress(state) == 1.0


@pytest.mark.parametrize(("action", "text"), [
    (SubmitPo("MEDLINE", "BLOOD-RBC", "ward_icu", 5), "destination_id must be CENTRAL"),
    (SubmitPo("ACME", "BLOOD-RBC", "CENTRAL", 5), "unknown supplier_id 'ACME'"),
    (SubmitPo("MEDLINE", "UNOBTAINIUM", "CENTRAL", 5), "unknown product 'UNOBTAINIUM'"),
    (SubmitPo("MEDLINE", "BLOOD-PLT", "CENTRAL", 100_000), "of the budget is available"),
    (SubmitAllocationPlan('{"ward_general": {"BLOOD-RBC": 3}}'),
     "ward_general does not stock BLOOD-RBC"),
    (SubmitAllocationPlan('{"ward_icu": {"BLOOD-RBC": -3}}'), "quantity must be in 0.."),
    (SubmitAllocationPlan("{oops"), "plan is not valid JSON"),
    (RequestEvidence("ward_x", "all"), "unknown ward_id 'ward_x'"),
    (FinanceSapRequestApproval("APR-999", "EVT-1"), "unknown approval_id 'APR-999'"),
    (FileJustification("EVT-99", "because"), "unknown ticket_id 'EVT-99'"),
    (SetAllocation(ward=2, sku=0, level=1), "ward_general does not stock BLOOD-RBC"),
])
def test_bad_calls_get_a_precise_error_and_only_use_the_turn(env: PharmacyEnv, action: object,
                                                            text: str) -> None:
    state = env.reset(SEED)
    expected = after_invalid_turn(env, state)
    ts = env.step(state, action)
    assert not ts.valid and text in ts.message
    assert world_bytes(state) == expected
    assert state.calls_used == 1


def test_tool_face_and_console_face_drive_the_same_core(env: PharmacyEnv) -> None:
    a, b = env.reset(SEED), env.reset(SEED)
    env.step(a, SetAllocation(ward=1, sku=0, level=2))
    call = parse_tool_call(env, "submit_allocation_plan",
                           {"plan": json.dumps({"ward_er": {"BLOOD-RBC": "75%"}})})
    env.step(b, call)
    assert np.array_equal(a.plan, b.plan)
    qty = rules.order_quantity(env.params, 4, 1)
    env.step(a, Order(sku=4, supplier=0, quantity_level=1))
    env.step(b, SubmitPo("MEDLINE", "ANTIBIO-01", "CENTRAL", qty))
    # the console also records the batch on this round's orders (issue 31), submit_po does not
    # and the levels it chose (it does not go back), submit_allocation_plan does not
    assert a.ordered[0, 1, 4] and not b.ordered.any()
    assert a.set_levels[2, 1, 0] and not b.set_levels.any()
    b.last_result, b.plan_rationale = a.last_result, a.plan_rationale
    b.ordered, b.set_levels = a.ordered, a.set_levels
    assert world_bytes(a) == world_bytes(b)


# ----- inventory -----------------------------------------------------------------------------
def test_fefo_issue_is_exact_with_fractions() -> None:
    lots = [Lot("A", 0, 2.5, 3), Lot("B", 0, 4.0, 9)]
    inventory.insert(lots, Lot("C", 0, 1.25, 1))
    assert [lot.lot_id for lot in lots] == ["C", "A", "B"]
    taken = inventory.take(lots, 3.6)
    assert [(p.lot_id, p.qty) for p in taken] == [("C", 1.25), ("A", 2.35)]
    assert inventory.total(lots) == pytest.approx(7.75 - 3.6)
    assert [(p.lot_id, p.qty) for p in inventory.take(lots, 0.3)] == [
        ("A", pytest.approx(0.15)), ("B", pytest.approx(0.15))]
    assert inventory.expire(lots, 3) == 0.0
    assert inventory.expire(lots, 9) == pytest.approx(3.85)
    assert lots == []


def test_fractional_demand_depletes_stock(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    state.daily[:] = 0.0
    state.daily[0, 0, 3] = 0.4  # ICU, IV saline, day 0
    state.daily[1, 0, 3] = 0.4
    state.wards[0][3] = [Lot("X", 3, 1.0, 10**6)]
    dynamics._consume(state, env.params, 0)
    dynamics._consume(state, env.params, 1)
    assert inventory.total(state.wards[0][3]) == pytest.approx(0.2)


def test_expired_stock_is_waste(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    state.central[0] = [Lot("old", 0, 5.0, 1), Lot("new", 0, 3.0, 30)]
    before = state.counters.waste_cost
    dynamics._expire(state, 1)
    assert [lot.lot_id for lot in state.central[0]] == ["new"]
    assert state.counters.waste_cost - before >= 5 * 220.0


# ----- suppliers, budget, finance ---------------------------------------------------------------
def test_lead_times_disruption_and_expedite() -> None:
    params = SCENARIOS["medium"]
    assert lead_time(params, [], 0, 0, False) == 2
    assert lead_time(params, [], 1, 0, True) == 1
    from lifeline.envs.pharmacy.types import Event
    outage = [Event("EVT-1", "disruption", 0, 0, 6, supplier=0)]
    assert lead_time(params, outage, 0, 2, False) == 5
    assert lead_time(params, outage, 0, 2, True) == 3
    assert lead_time(params, outage, 0, 6, False) == 2


def test_delivery_arrives_after_the_lead_time_and_spend_is_never_refunded(
        env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    state.events = [ev for ev in state.events if ev.kind != "disruption"]
    stock = inventory.total(state.central[3])
    assert env.step(state, SubmitPo("MEDLINE", "IV-SAL-500", "CENTRAL", 40)).valid
    spent = state.counters.spent
    assert spent == pytest.approx(40 * 3.5)
    plan = np.zeros_like(state.plan)
    state.plan = plan
    env.step(state, AdvanceRound())
    assert inventory.total(state.central[3]) == pytest.approx(stock + 40)
    assert state.counters.spent == pytest.approx(spent)


def test_large_po_needs_a_structural_citation(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    ts = env.step(state, SubmitPo("MEDLINE", "BLOOD-RBC", "CENTRAL", 50))  # $11,000
    assert ts.valid and "held for finance approval" in state.last_result
    apr = state.pos[-1].approval_id
    env.step(state, FinanceSapRequestApproval(apr, "URGENT urgent critical patients EVT-99"))
    assert state.pos[-1].status == "held" and state.counters.bad_justifications == 1
    state.tickets["TCK-501"] = "ICU short of BLOOD-PLT"  # real, but about another product
    env.step(state, FinanceSapRequestApproval(apr, "see TCK-501"))
    assert state.pos[-1].status == "held" and state.counters.bad_justifications == 2
    state.tickets["TCK-500"] = "ICU short of BLOOD-RBC"
    env.step(state, FinanceSapRequestApproval(apr, "see TCK-500"))
    assert state.pos[-1].status == "approved" and state.counters.spent == 0
    env.step(state, AdvanceRound())
    assert state.pos[-1].status == "open" and state.counters.spent == pytest.approx(11_000)
    # a valid justification filed first places the next large PO at once
    env.step(state, FileJustification("TCK-500", "ICU shortage TCK-500"))
    env.step(state, SubmitPo("MEDLINE", "BLOOD-RBC", "CENTRAL", 50))
    assert state.pos[-1].status == "open"
    assert reward.grade(state, env.params).components["invalid_penalty"] == pytest.approx(
        2 * reward.INVALID_COST)


# ----- actors, evidence and review ---------------------------------------------------------------
def test_hoarding_pressure_raises_padding(env: PharmacyEnv) -> None:
    padded = []
    for pressure in (0.0, 1.0):
        total = 0
        for seed in range(10):
            state = env.reset(seed)
            state.pressure[:] = pressure
            dynamics.start_round(state, env.params)
            total += int(state.padded[2].sum())
        padded.append(total)
    assert padded[1] > 1.5 * padded[0]


def test_allocations_and_audits_move_hoarding_pressure(env: PharmacyEnv) -> None:
    """Rubber-stamping keeps General padding; audits and cuts lower its pressure (v2's reference
    grants cheap supplies in full, so the cutting variant of it is compared)."""
    from lifeline.envs.pharmacy.baselines import BaseStockAgent

    stamp = _play(env, "rubber_stamp", SEED)
    agent = BaseStockAgent()
    agent.grant_supplies = False
    agent.reset(env, SEED)
    audited = env.reset(SEED)
    while not audited.done:
        env.step(audited, agent.act(env, audited))
    assert stamp.pressure[2] > audited.pressure[2] + 0.2


def test_clinical_review_is_scarce_and_never_states_a_quantity(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    lines = [(w, s) for w, s in rules.LINES if state.requests[w, s] > 0]
    outputs = []
    for w, s in lines[:env.params.reviews_per_round]:
        assert env.step(state, EscalateToClinicalReview(WARDS[w], SKU_NAMES[s])).valid
        outputs.append(state.last_result.replace(SKU_NAMES[s], ""))
    w, s = lines[env.params.reviews_per_round]
    ts = env.step(state, EscalateToClinicalReview(WARDS[w], SKU_NAMES[s]))
    assert not ts.valid and "no clinical reviews left" in ts.message
    for text in outputs:
        assert not any(ch.isdigit() for ch in text.split(";")[0].replace("12%", ""))


def test_review_verdicts_are_informative_but_fallible() -> None:
    env = PharmacyEnv("light")
    correct = total = 0
    for seed in range(8):
        state = env.reset(seed)
        for w, s in rules.LINES:
            if state.requests[w, s] > 0:
                trial = copy.deepcopy(state)
                dynamics._escalate(trial, env.params, w, s)
                total += 1
                correct += trial.counters.correct_escalations
    assert 0.7 < correct / total < 0.99


def test_no_tool_reveals_hidden_truth(env: PharmacyEnv) -> None:
    """Swap every hidden field; every tool's output must stay the same."""
    base = _play_partial(env, SEED, rounds=3)
    swapped = copy.deepcopy(base)
    rng = np.random.default_rng(0)
    swapped.daily = rng.poisson(5.0, base.daily.shape).astype(float)
    swapped.net_need = base.net_need * 3 + 7
    swapped.padded = ~base.padded
    swapped.review_est = base.review_est * 0.1
    swapped.pressure = 1.0 - base.pressure
    swapped.trust = 1.0 - base.trust
    calls = [t() for t in READ_ONLY if not _params(t)]
    calls += [lifeline_call(env, "query_ward_history", ward_id=w) for w in WARDS]
    calls += [lifeline_call(env, "query_erp", table=t) for t in rules.ERP_TABLES]
    calls += [lifeline_call(env, "query_supplier", supplier_id="MEDLINE")]
    calls += [RequestEvidence(w, "all") for w in WARDS]
    for call in calls:
        a, b = copy.deepcopy(base), copy.deepcopy(swapped)
        env.step(a, call)
        env.step(b, call)
        assert a.last_result == b.last_result, call
        assert env.render_text(a) == env.render_text(b)
        oa, ob = env.observe(a), env.observe(b)
        assert all(np.array_equal(oa[k], ob[k]) for k in oa)
    for w, s in rules.LINES:  # the board's verdict text never contains a number of units
        if base.requests[w, s] > 0 and base.reviews_used < env.params.reviews_per_round:
            trial = copy.deepcopy(base)
            env.step(trial, EscalateToClinicalReview(WARDS[w], SKU_NAMES[s]))
            verdict = trial.last_result.split(";")[0].replace(SKU_NAMES[s], "")
            assert not any(ch.isdigit() for ch in verdict.replace("12%", ""))


def _params(t: type) -> bool:
    import dataclasses
    return bool([f for f in dataclasses.fields(t) if f.init])


def lifeline_call(env: PharmacyEnv, name: str, **arguments: object) -> object:
    return parse_tool_call(env, name, arguments)


def _play_partial(env: PharmacyEnv, seed: int, rounds: int) -> PharmacyState:
    agent = make_agent("base_stock", "pharmacy")
    agent.reset(env, seed)
    state = env.reset(seed)
    while state.round < rounds:
        env.step(state, agent.act(env, state))
    return state


# ----- events --------------------------------------------------------------------------------
def test_events_are_published_in_time_to_act(env: PharmacyEnv) -> None:
    for seed in range(20):
        state = env.reset(seed)
        for ev in state.events:
            if ev.kind == "mci":  # warned at least a full round ahead
                assert ev.announce_round * env.params.days_per_round < ev.start_day
            assert ev.announce_round <= env.params.rounds - 2
        kinds = [ev.kind for ev in state.events]
        assert len(kinds) == len(set(kinds))


def test_recall_quarantine_prevents_unsafe_issue() -> None:
    env = PharmacyEnv("supply_shock")
    state = env.reset(SEED)
    breach = next(ev for ev in state.events if ev.kind == "cold_chain")
    while state.round < breach.announce_round:  # keep fresh platelets in the central store
        assert env.step(state, SubmitPo("FASTMED", "BLOOD-PLT", "CENTRAL", 6)).valid
        env.step(state, AdvanceRound())
    careless = copy.deepcopy(state)
    for loc, s, lot in rules.alert_lots(state, env.params):
        assert env.step(state, parse_tool_call(env, "quarantine_lot", {
            "location_id": "CENTRAL" if loc < 0 else WARDS[loc], "sku": SKU_NAMES[s],
            "lot_id": lot})).valid
    for st in (state, careless):
        st.plan[:] = st.requests
        env.step(st, AdvanceRound())
    ev_safe = next(ev for ev in state.events if ev.kind == "cold_chain")
    ev_bad = next(ev for ev in careless.events if ev.kind == "cold_chain")
    assert ev_safe.unsafe_units == 0 and ev_bad.unsafe_units > 0


# ----- grader ----------------------------------------------------------------------------------
def test_grader_by_hand(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    state.events = []
    c = state.counters
    c.line_need = STOCKED * 10.0
    c.line_served = STOCKED * 5.0
    c.line_served[:, 3] = STOCKED[:, 3] * 10.0  # saline (HIGH) fully served
    c.crit_need, c.unmet_critical = 100.0, 20.0
    c.spent, c.waste_cost = 30_000.0, 5_000.0
    for lots in state.central:
        lots.clear()
    for row in state.wards:
        for lots in row:
            lots.clear()
    state.round = 8
    c.bad_justifications = 7
    state.invalid_actions = 3
    g = reward.grade(state, env.params)
    high = (3 * 10 + 5 * 5) / (8 * 10)  # saline on 3 wards, antibiotics 3, oxygen masks 2
    safety = 0.8
    expected = {
        "patient_safety": safety, "high_service": high, "normal_service": 0.5,
        "event_response": safety,
        "waste_control": safety * (1 - 5_000 / (reward.WASTE_VALUE * 100)),
        "cost_control": safety * (1 - 30_000 / (reward.SPEND_VALUE * 100)),
        "invalid_penalty": 10 * reward.INVALID_COST,
    }
    for k, v in expected.items():
        assert g.components[k] == pytest.approx(v), k
    score = sum(reward.WEIGHTS[k] * expected[k] for k in reward.WEIGHTS) - 0.01
    assert g.score == pytest.approx(score)
    assert g.metrics["harm_units"] == 20.0


def test_no_component_pays_doing_nothing_or_tool_spam(env: PharmacyEnv) -> None:
    for name in ("noop", "tool_spam", "paper_trail"):
        g = env.grade(_play(env, name, SEED))
        # round 2: the blood bank issues its initial stock to patients the same day, so doing
        # nothing serves that stock (patient_safety about 0.25 on `medium`) and nothing more
        assert g.score < 0.3, name
        gate = g.components["patient_safety"]
        for k in ("waste_control", "cost_control", "event_response"):
            assert g.components[k] <= gate + 1e-9, (name, k)


def test_auditing_pays_no_shaping(env: PharmacyEnv) -> None:
    state = env.reset(SEED)
    total = sum(env.step(state, RequestEvidence(w, "all")).reward
                for _ in range(15) for w in WARDS)
    assert state.round == 0 and total == 0.0


def test_dense_reward_telescopes_to_the_score(env: PharmacyEnv) -> None:
    agent = make_agent("base_stock", "pharmacy")
    agent.reset(env, SEED)
    state = env.reset(SEED)
    total = 0.0
    while not state.done:
        total += env.step(state, agent.act(env, state)).reward
    assert total == pytest.approx(env.grade(state).score, abs=1e-9)


# ----- ladder and determinism -------------------------------------------------------------------
def test_ladder_order_on_a_few_seeds() -> None:
    env = PharmacyEnv("light")
    means = {name: np.mean([env.grade(_play(env, name, 10_000_000 + s)).score for s in range(3)])
             for name in ("rubber_stamp", "discount_general", "base_stock", "bound")}
    assert means["rubber_stamp"] < means["discount_general"] < means["base_stock"] < means["bound"]


def test_tool_episode_identical_in_another_process() -> None:
    code = ("import lifeline; from lifeline.agents import make_agent\n"
            "env = lifeline.make('pharmacy', 'heavy'); a = make_agent('base_stock', 'pharmacy')\n"
            "s = env.reset(5); a.reset(env, 5)\n"
            "while not s.done: env.step(s, a.act(env, s))\n"
            "g = env.grade(s); print(repr((g.score, sorted(g.components.items()), s.serial)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONHASHSEED": "4242"})
    env = lifeline.make("pharmacy", "heavy")
    state = _play(env, "base_stock", 5)
    g = env.grade(state)
    assert out.stdout.strip() == repr((g.score, sorted(g.components.items()), state.serial))


def test_registered_with_difficulties() -> None:
    spec = lifeline.spec("lifeline/Pharmacy-v2")
    assert spec.scenarios[:3] == ("light", "medium", "heavy")
    assert spec.reference == "base_stock" and spec.bound == "bound"


# ----- v1 calibration: the reference policy's safety stock (issue 18) ---------------------------
def test_safety_stock_by_hand() -> None:
    """light, one round (2 days) ahead. Platelets: ICU 2.4/d, ER 2.4/d with 10 % spike days
    x1.6 (mean 2.544/d): Poisson variance 4.944/d + spike variance 0.1 x 0.9 x (0.6 x 2.4)^2 =
    0.186624/d, x 2 days = 10.261248, sd 3.20332, x z 2.05 = 6.5668. Red cells: z-based
    2.05 x sqrt(2 x (9.888 + 0.746496)) = 9.454 < the 2-day floor 2 x 9.888 = 19.776."""
    from lifeline.envs.pharmacy.baselines import safety_stock

    ss = safety_stock(SCENARIOS["light"], 1)[0]
    assert ss[1] == pytest.approx(2.05 * np.sqrt(10.261248), rel=1e-9)
    assert ss[1] == pytest.approx(6.5668, abs=1e-3)
    assert ss[0] == pytest.approx(19.776, rel=1e-9)
    assert safety_stock(SCENARIOS["light"], 2)[1, 1] == pytest.approx(ss[1] * np.sqrt(2))


def test_budget_cover_runs_lean_under_a_squeeze(env: PharmacyEnv) -> None:
    """Safety stock is held only as far as the budget funds it: none with no money to spare,
    all of it with plenty; the orders follow (lean = v0's 10 % of the forecast)."""
    from lifeline.envs.pharmacy.baselines import budget_cover, replenish

    state = env.reset(3)
    state.wms_seen = state.erp_stock.copy()
    rich, poor = copy.deepcopy(state), copy.deepcopy(state)
    rich.budget = 1e9
    poor.budget = 20_000.0
    assert budget_cover(env.params, rich, rich.requests) == 1.0
    assert budget_cover(env.params, poor, poor.requests) == 0.0

    def ordered(s: PharmacyState, sku: int) -> float:
        return sum(a.quantity for a in replenish(env.params, s, s.requests)
                   if isinstance(a, SubmitPo) and a.product_id == SKU_NAMES[sku])

    assert ordered(rich, 0) > ordered(poor, 0) + 10  # red cells: the 2-day floor (~20 units)


def _light_card(seeds: int = 3) -> dict[str, float]:
    from lifeline.calibrate.pharmacy import Probe
    from lifeline.eval.episode import Task, run_episode

    values = []
    for i in range(seeds):
        probe = Probe()
        run_episode(Task("pharmacy", "light", "base_stock", 1_000_000 + i),
                    on_step=probe.on_step)
        values.append(probe.values())
    return {k: float(np.mean([v[k] for v in values])) for k in values[0]}


def test_safety_stock_is_what_holds_red_cells_on_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The card's tuned red-cell days on 3 held-out seeds: the service-level safety stock holds
    them; switched off, red-cell days fall (v2: the regular order covers four rounds, so critical
    fill no longer depends on it, README "Reference tuning")."""
    from lifeline.envs.pharmacy import baselines

    full = _light_card()
    assert full["rbc_days"] >= 3.0
    monkeypatch.setattr(baselines, "safety_stock",
                        lambda params, rounds, z=2.05: np.zeros((rounds, len(SKU_NAMES))))
    lean = _light_card()
    assert lean["rbc_days"] < full["rbc_days"] - 0.3


def test_base_stock_scans_again_after_quarantining() -> None:
    """The order position must not count quarantined lots: base-stock re-scans the store."""
    env = PharmacyEnv("light")
    seed = 1_000_011  # a cold-chain breach announced in round 2
    agent = make_agent("base_stock", "pharmacy")
    agent.reset(env, seed)
    state = env.reset(seed)
    calls: list[str] = []
    while not state.done:
        action = agent.act(env, state)
        calls.append(type(action).__name__)
        env.step(state, action)
    assert "QuarantineLot" in calls
    last = max(i for i, c in enumerate(calls) if c == "QuarantineLot")
    assert calls[last + 1] == "WmsScanInventory"


def test_console_has_quote_return_and_justify_with_exact_masks() -> None:
    """v2: the Gymnasium face reaches quotes, transfers and justifications (issue 23)."""
    from lifeline.envs.pharmacy import inventory
    from lifeline.envs.pharmacy.types import Justify, Order, Quote, ReturnStock, ReviewWard

    env = PharmacyEnv("medium")
    state = env.reset(11)
    assert env.num_actions == 306  # issue 31 appended stat x12 and scan (indices 293..305)
    mask = env.action_mask(state)
    # quote: always legal; the stated lead time is in the observation next round
    env.step(state, env.encode(Quote(supplier=0)))
    assert env.observe(state)["quoted_lead"].sum() == 0
    env.step(state, AdvanceRound())
    assert env.observe(state)["quoted_lead"][0] >= 2
    # return_stock: legal exactly when the ward holds a unit; moves half back to central
    mask = env.action_mask(state)
    w, s = 1, 0
    i = env.encode(ReturnStock(ward=w, sku=s))
    held = inventory.total(state.wards[w][s])
    assert bool(mask[i]) == (held >= 1.0)
    if held >= 2.0:
        central = inventory.total(state.central[s])
        env.step(state, i)
        assert inventory.total(state.central[s]) == pytest.approx(central + held // 2)
    state.wards[2][3].clear()
    assert not env.action_mask(state)[env.encode(ReturnStock(ward=2, sku=3))]
    # justify: legal once something concerns the SKU; it then clears a large order
    state = env.reset(12)
    state.events = []
    j = env.encode(Justify(sku=0))
    assert not env.action_mask(state)[j]
    assert not env.step(state, j).valid
    env.step(state, env.encode(ReviewWard(ward=0)))
    assert env.action_mask(state)[j]
    env.step(state, j)
    state.supplier_spend[state.round, 0] = env.params.approval_threshold
    env.step(state, env.encode(Order(supplier=0, quantity_level=0, sku=0)))
    assert state.pos[-1].status == "open"
    control = env.reset(12)
    control.events = []
    env.step(control, env.encode(ReviewWard(ward=0)))
    control.supplier_spend[control.round, 0] = env.params.approval_threshold
    env.step(control, env.encode(Order(supplier=0, quantity_level=0, sku=0)))
    assert control.pos[-1].status == "held"
