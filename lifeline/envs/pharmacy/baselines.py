"""Pharmacy baselines (``AGENTS`` at the end): the ladder and the exploit policies.

Every baseline plays a round as a script of tool calls (semantic actions) and re-plans whenever
the round changes (running out of tool calls advances it). Policies other than ``bound`` read only
what their tool calls returned (requests, evidence, verdicts, ERP/WMS views, the pipeline,
published events); ``bound`` reads the hidden truth, as its docstring says.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from scipy.optimize import linprog

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.generator import COST, IS_CRIT, N_SKUS, STOCKED, lead_time
from lifeline.envs.pharmacy.generator import expected_daily as _expected_daily
from lifeline.envs.pharmacy.params import (
    CENTRAL,
    CRIT,
    CRIT_WEIGHT,
    HIGH,
    SKU_NAMES,
    SKUS,
    SUPPLIER_NAMES,
    SUPPLIERS,
    WARDS,
    PharmacyParams,
)
from lifeline.envs.pharmacy.types import (
    AdvanceRound,
    ErpOracleGetInventory,
    EscalateToClinicalReview,
    FinanceSapGetBudget,
    GetRoundBriefing,
    MessagingSendToWard,
    PharmacyState,
    QuarantineLot,
    QuerySupplier,
    ReadInbox,
    RequestEvidence,
    SubmitAllocationPlan,
    SubmitPo,
    SupplierPortalRequestQuote,
    ViewRequests,
    WmsScanInventory,
)

BOUNDED_COMPONENTS = ("network_service", "critical_service", "allocation_accuracy")
"""Components no policy may beat the perfect-information bound on."""
PO_CHUNK = 9_900.0
"""Largest PO ($) placed without finance approval."""


def _env(env: Environment) -> PharmacyEnv:
    if not isinstance(env, PharmacyEnv):
        raise TypeError(f"this agent plays the pharmacy environment, not {env.name}")
    return env


def plan_call(units: np.ndarray, rationale: str = "") -> SubmitAllocationPlan:
    """One ``submit_allocation_plan`` setting every stocked line to ``units`` (rounded to 0.1)."""
    plan: dict[str, dict[str, float]] = {}
    for w, s in rules.LINES:
        plan.setdefault(WARDS[w], {})[SKU_NAMES[s]] = round(float(units[w, s]), 1)
    return SubmitAllocationPlan(plan=json.dumps(plan), rationale=rationale)


def published(state: PharmacyState, kind: str) -> list[Any]:
    return [ev for ev in state.events if ev.kind == kind and ev.announce_round <= state.round]


class ScriptAgent(Agent):
    """A round is a queue of calls built in phases; a new round (or episode) restarts phase 0."""

    name = "script"

    def __init__(self) -> None:
        self._round = -1
        self._phase = 0
        self._queue: list[Action] = []

    def reset(self, env: Environment, seed: int) -> None:
        self._round, self._phase, self._queue = -1, 0, []

    def act(self, env: Environment, state: Any) -> Action | int:
        pe = _env(env)
        if state.round != self._round:
            self._round, self._phase, self._queue = state.round, 0, []
        while not self._queue:
            actions = self.phase(pe, state, self._phase)
            self._phase += 1
            if actions is None:
                return AdvanceRound()
            self._queue = list(actions)
        return self._queue.pop(0)

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        """Calls of phase ``k`` of this round (``None``: advance the round)."""
        raise NotImplementedError


# ----- helpers shared by the operational baselines ------------------------------------------
def evidence_allocation(state: PharmacyState, slack: float = 1.2,
                        buffer: float = 0.0) -> np.ndarray:
    """Grant a request the evidence supports; cut a suspicious one to the evidence estimate.

    Evidence estimate of the net need = clinical estimate - on-hand. A request within ``slack`` of
    it is granted; above it, or when redacted, the line gets the estimate (redacted: 80 % of the
    request); review verdicts override (APPROVE grants, REDUCE/DENY cut). Blood (CRIT) lines are
    then raised by ``buffer`` (a fraction) and rounded up: point-of-use safety stock.
    """
    req = state.requests
    est = np.maximum(state.evidence_est - state.on_hand, 0.0)
    alloc = req.copy()
    seen = state.evidence_seen
    cut = (seen == 1) & (req > slack * est + 1.0)
    alloc[cut] = np.round(est[cut] * 1.05)
    alloc[seen == 2] = np.round(req[seen == 2] * 0.8)
    alloc[state.verdicts == 1] = req[state.verdicts == 1]
    reduce = state.verdicts >= 2
    alloc[reduce] = np.minimum(req[reduce], np.round(est[reduce] * 1.0 + 0.5))
    alloc[reduce & (seen != 1)] = np.round(req[reduce & (seen != 1)] * 0.7)
    if buffer > 0:
        alloc[:, IS_CRIT] = np.ceil(alloc[:, IS_CRIT] * (1.0 + buffer))
    return alloc * STOCKED


def suspicion(state: PharmacyState) -> np.ndarray:
    """How suspicious each line looks from evidence: request / evidence net estimate."""
    est = np.maximum(state.evidence_est - state.on_hand, 1.0)
    score = np.where(state.evidence_seen == 1, state.requests / est, 0.0)
    score = np.where(state.evidence_seen == 2, 5.0, score)
    return score * STOCKED * (state.requests > 0)


def live_stock(state: PharmacyState) -> np.ndarray:
    """Central stock per SKU: the WMS scan if one was taken this round, else the ERP view."""
    return np.where(state.wms_seen >= 0, state.wms_seen, state.erp_stock)


SERVICE_Z = 2.05
"""Standard-normal quantile of the reference policy's cycle service level (98 %, the OntarioBuys
fill-rate target): safety stock = ``SERVICE_Z`` x the standard deviation of network demand over
the protection period (v1; v0 used a flat 10 % of the forecast)."""
LEAN_SAFETY = 0.1
"""Safety stock under a budget squeeze, fraction of the forecast (v0's flat rule)."""
NEED_MARGIN = 1.3
"""The full service-level safety stock is held only while the available budget exceeds this
multiple of the standard cost of the forecast need still to buy (+ the safety stock itself):
the forecast leaves out padding, supplier premiums and unpublished events. Measured: 1.0 let
safety stock bought early starve later rounds in `heavy` (escalate_all 0.763 vs 0.774 lean)."""
CRIT_BUFFER = 0.05
"""Point-of-use safety stock on blood lines (v1, while the budget funds safety stock): the
evidence-based allocation of a CRIT line is raised by this fraction and rounded up to whole
units, so an honest request that falls a few percent under the realised need (wards forecast
with ~5 % noise) does not leave an ICU/ER patient without a unit. It costs allocation accuracy
(the grader compares the issue with the round's net need), so a squeezed budget skips it."""
RBC_SAFETY_DAYS = 2.0
"""Least red-cell safety stock, days of expected network demand: on hand at a round start is
then about one round (2 days) + 2 days = 4 days, inside the 3-5 days hospital blood banks aim to
hold (v1)."""


def expected_daily_mean(params: PharmacyParams) -> np.ndarray:
    """Expected daily demand (ward, SKU) without events, ER spike days included on average."""
    daily = _expected_daily(params).copy()
    daily[1] *= 1.0 + params.er_spike_prob * (params.er_spike_mult - 1.0)
    return daily


def daily_variance(params: PharmacyParams) -> np.ndarray:
    """Variance of one day's network demand per SKU: Poisson (variance = mean) plus the ER
    spike mixture (a day is a spike with probability p: variance p(1-p)((mult-1) x ER mean)^2)."""
    base = _expected_daily(params)
    p, extra = params.er_spike_prob, params.er_spike_mult - 1.0
    return expected_daily_mean(params).sum(axis=0) + p * (1.0 - p) * (extra * base[1]) ** 2


def position_of(state: PharmacyState, issue: np.ndarray) -> np.ndarray:
    """Inventory position per SKU: live central stock - this round's issue - half the ERP's
    soon-expiring units + open (or held) pipeline, at least 0."""
    pipeline = np.zeros(N_SKUS)
    for po in state.pos:
        if po.status in ("open", "approved", "held"):
            pipeline[po.sku] += po.qty
    position = live_stock(state) - issue.sum(axis=0) - state.erp_expiring * 0.5 + pipeline
    return np.maximum(position, 0.0)


def safety_stock(params: PharmacyParams, rounds: int, z: float = SERVICE_Z) -> np.ndarray:
    """Service-level safety stock (rounds ahead 1..``rounds``, SKU): ``z`` x sd of the network
    demand over that many rounds, at least :data:`RBC_SAFETY_DAYS` of red cells."""
    var = daily_variance(params) * params.days_per_round
    ss = z * np.sqrt(np.outer(np.arange(1, rounds + 1), var))
    ss[:, 0] = np.maximum(ss[:, 0], RBC_SAFETY_DAYS * expected_daily_mean(params)[:, 0].sum())
    return ss


def budget_cover(params: PharmacyParams, state: PharmacyState, issue: np.ndarray,
                 z: float = SERVICE_Z) -> float:
    """Share (0..1) of the service-level safety stock the budget funds: the available budget
    beyond :data:`NEED_MARGIN` x the standard cost of the forecast need still to buy, over the
    cost of one round's safety stock. Stock still on the shelf at the end buys no service, so
    under a squeeze the policy runs lean; with a funded budget it holds the full stock."""
    r = state.round
    if r >= params.rounds - 1:
        return 0.0
    fc = np.array([forecast(params, state, t) for t in range(r + 1, params.rounds)])
    need = np.maximum(fc.sum(axis=0) - position_of(state, issue), 0.0)
    ss_cost = max(float(safety_stock(params, 1, z)[0] @ COST), 1.0)
    spare = rules.available_budget(state) - NEED_MARGIN * float(need @ COST)
    return float(np.clip(spare / ss_cost, 0.0, 1.0))


def forecast(params: PharmacyParams, state: PharmacyState, rnd: int) -> np.ndarray:
    """Expected network demand per SKU in round ``rnd``, with published MCIs."""
    daily = _expected_daily(params)
    dpr = params.days_per_round
    total = np.zeros(N_SKUS)
    for day in range(rnd * dpr, (rnd + 1) * dpr):
        d = daily.copy()
        for ev in published(state, "mci"):
            if ev.start_day <= day < ev.end_day:
                d[0:2, IS_CRIT] *= params.mci_mult
        total += d.sum(axis=0)
    return total


def supplier_for(params: PharmacyParams, state: PharmacyState, s: int) -> int:
    """Cheapest supplier not under a published disruption (MEDLINE, else BACKUP-B)."""
    day = state.round * params.days_per_round
    known = published(state, "disruption")
    if lead_time(params, known, 0, day, False) <= params.days_per_round:
        return 0
    return 1


def po_calls(params: PharmacyParams, state: PharmacyState, s: int, supplier: int, qty: float,
             budget_left: float) -> tuple[list[Action], float]:
    """POs for ``qty`` units (split under the approval threshold); returns calls and $ used."""
    price = SKUS[s].unit_cost * SUPPLIERS[supplier].cost_mult
    qty = int(min(qty, budget_left // price))
    calls: list[Action] = []
    used = 0.0
    chunk = max(1, int(PO_CHUNK // price))
    while qty > 0:
        q = min(qty, chunk)
        calls.append(SubmitPo(SUPPLIER_NAMES[supplier], SKU_NAMES[s], CENTRAL, q))
        used += q * price
        qty -= q
    return calls, used


def replenish(params: PharmacyParams, state: PharmacyState, issue: np.ndarray,
              z: float = SERVICE_Z, reserve: float = 0.6) -> list[Action]:
    """Lead-time-aware (s, S) base-stock orders, CRIT first, within a class-aware budget.

    Inventory position = live central stock - this round's issue - half the ERP's soon-expiring
    units + open pipeline. The regular order goes to MEDLINE (cheapest) up to
    S = forecast demand until and including the round its delivery serves + safety stock
    ``z`` x sd of that demand (Poisson and ER spikes, :func:`daily_variance`; a cycle service
    level of 98 % at the default ``z``), at least :data:`RBC_SAFETY_DAYS` for red cells, held
    as far as :func:`budget_cover` says the budget funds it and never under
    :data:`LEAN_SAFETY` x the forecast (published MCIs and disruptions included). Demand due
    *before* that delivery that the position cannot cover is bought faster: next round's from
    FASTMED, later rounds' from BACKUP-B. Platelets (5-day life) are only ever bought for next
    round. Cheap HIGH/NORMAL supplies are bought first; blood gets the rest of the budget minus
    ``reserve`` x the standard cost of a normal round of supplies for every later ordering round.
    """
    dpr, r = params.days_per_round, state.round
    if r >= params.rounds - 1:
        return []
    position = position_of(state, issue)
    fc = np.array([forecast(params, state, t) for t in range(r + 1, params.rounds)])
    unit = _expected_daily(params).sum(axis=0) * dpr * COST
    crit = np.array([sku.criticality for sku in SKUS])
    per_class = np.array([unit[crit == k].sum() for k in range(3)])
    later = max(0, params.rounds - 2 - r - 1)
    avail = rules.available_budget(state)
    known = published(state, "disruption")
    rounds_of = {p: -(-lead_time(params, known, p, r * dpr, False) // dpr)
                 for p in range(len(SUPPLIERS))}
    # safety stock as far as the budget funds it (budget_cover), never under v0's lean 10 %
    cum_fc = np.cumsum(fc, axis=0)
    safety = np.maximum(budget_cover(params, state, issue, z) * safety_stock(params, len(fc), z),
                        LEAN_SAFETY * cum_fc)
    calls: list[Action] = []

    def buy(s: int, supplier: int, qty: float, limit: float) -> float:
        nonlocal calls
        if qty < 1:
            return 0.0
        more, used = po_calls(params, state, s, supplier, float(np.ceil(qty)), limit)
        calls += more
        return used

    # cheap HIGH/NORMAL supplies first (a stock-out of saline for want of $400 is indefensible),
    # then blood with what is left, keeping enough for later rounds' supplies
    for s in sorted(range(N_SKUS), key=lambda s: (SKUS[s].criticality == CRIT, s)):
        k = SKUS[s].criticality
        keep = later * reserve * per_class[HIGH:].sum() if k == CRIT else 0.0
        if avail - keep < 1:
            continue
        short_lived = 0 < SKUS[s].shelf_life_days <= 3 * dpr
        lag = 1 if short_lived else rounds_of[0]  # rounds until a MEDLINE order serves
        cum = cum_fc[:, s] + safety[:, s]
        pos = position[s]
        for t in range(min(lag - 1, len(cum))):  # rounds MEDLINE cannot reach in time
            gap = cum[t] - pos
            if gap < 1:
                continue
            fast = 2 if t == 0 else 1 if rounds_of[1] <= t + 1 else 2
            if fast >= 0:
                used = buy(s, fast, gap, avail - keep)
                avail -= used
                pos += used / (SKUS[s].unit_cost * SUPPLIERS[fast].cost_mult)
        target = cum[0] if short_lived else cum[min(lag, len(cum)) - 1]
        if short_lived and rounds_of[0] > 1:  # platelets during a disruption: FASTMED
            avail -= buy(s, 2, target - pos, avail - keep)
        elif lag - 1 < len(cum):
            avail -= buy(s, 0, target - pos, avail - keep)
    return calls


def alert_calls(env: PharmacyEnv, state: PharmacyState) -> list[Action]:
    """Quarantine every affected lot announced in the inbox."""
    return [QuarantineLot(CENTRAL if loc < 0 else WARDS[loc], SKU_NAMES[s], lot)
            for loc, s, lot in rules.alert_lots(state, env.params)]


def round_evidence_ids(state: PharmacyState) -> list[str]:
    return [e for e, (r, _, _) in state.evidence_ids.items() if r == state.round]


# ----- the ladder ---------------------------------------------------------------------------
class RubberStampAgent(ScriptAgent):
    """Allocates exactly what every ward requests and never orders (the seed's weakest rung)."""

    name = "rubber_stamp"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            return [ViewRequests(), plan_call(state.requests)]
        return None


class EscalateAllAgent(ScriptAgent):
    """Escalates every request it can (largest first) and follows the verdicts; otherwise grants
    requests; orders like ``base_stock``. The 'escalating is always right' exploit of the seed."""

    name = "escalate_all"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            order = sorted(rules.LINES, key=lambda ln: -state.requests[ln] * COST[ln[1]])
            return [ViewRequests(), *[EscalateToClinicalReview(WARDS[w], SKU_NAMES[s], "review")
                                      for w, s in order[:env.params.reviews_per_round]]]
        if k == 1:
            alloc = state.requests.copy()
            alloc[state.verdicts == 2] *= 0.75
            alloc[state.verdicts == 3] *= 0.5
            return [*alert_calls(env, state), plan_call(alloc),
                    *replenish(env.params, state, alloc)]
        return None


class DiscountGeneralAgent(ScriptAgent):
    """The seed's heuristic: grant requests but cut General by 30 %; reorder last round's issue."""

    name = "discount_general"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k > 0:
            return None
        alloc = state.requests.copy()
        alloc[2] = np.round(alloc[2] * 0.7)
        calls: list[Action] = [ViewRequests(), plan_call(alloc)]
        if state.round < env.params.rounds - 1:
            avail = rules.available_budget(state)
            for s in range(N_SKUS):
                more, used = po_calls(env.params, state, s, 0, float(alloc[:, s].sum()), avail)
                calls += more
                avail -= used
        return calls


class BaseStockAgent(ScriptAgent):
    """The operations standard: (s, S) base-stock replenishment with evidence-based allocation.

    Per round: one briefing; ERP inventory, WMS scan and the finance budget; evidence from every
    ward; clinical review of the most suspicious lines; quarantine of announced lots; allocation
    from the evidence (:func:`evidence_allocation`) with a rationale citing the evidence ids;
    base-stock orders to next round's forecast (published MCIs included), critical SKUs first,
    from MEDLINE unless a published disruption makes it late.
    """

    name = "base_stock"
    slack = 1.2

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            return [GetRoundBriefing(), ErpOracleGetInventory(), WmsScanInventory(),
                    FinanceSapGetBudget(), *[RequestEvidence(w, "all") for w in WARDS]]
        if k == 1:
            sus = suspicion(state)
            worst = np.argsort(-sus, axis=None)[:env.params.reviews_per_round]
            calls: list[Action] = []
            for flat in worst:
                w, s = divmod(int(flat), N_SKUS)
                if sus[w, s] > self.slack:
                    calls.append(EscalateToClinicalReview(WARDS[w], SKU_NAMES[s], "request "
                                                          "above the evidence"))
            return calls or [QuerySupplier(SUPPLIER_NAMES[0])]
        if k == 2:  # quarantine, then scan again: the order position must not count those lots
            alerts = alert_calls(env, state)
            return [*alerts, WmsScanInventory()] if alerts else []
        if k == 3:
            alloc = self.allocation(state, env.params)
            cite = " ".join(round_evidence_ids(state)[:6])
            return [plan_call(alloc, f"evidence {cite}"), *replenish(env.params, state, alloc)]
        return None

    def allocation(self, state: PharmacyState, params: PharmacyParams) -> np.ndarray:
        return evidence_allocation(state, self.slack, crit_buffer(params, state))


def crit_buffer(params: PharmacyParams, state: PharmacyState) -> float:
    """Point-of-use buffer on blood lines: :data:`CRIT_BUFFER` as far as the budget funds the
    safety stock (:func:`budget_cover` with the requests as the issue), else none."""
    return CRIT_BUFFER * budget_cover(params, state, state.requests)


class BoundAgent(ScriptAgent):
    """Upper bound with perfect information: allocates the hidden true net need, escalates only
    truly padded lines, quarantines at once, and orders the plan of a rolling linear program
    (``scipy.optimize.linprog``) over the true future demand, supplier lead times and the budget.
    It uses every enterprise system in round 1 and cites its evidence. Reads hidden state."""

    name = "bound"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            calls: list[Action] = [GetRoundBriefing(), *[RequestEvidence(w, "all")
                                                         for w in WARDS]]
            if state.round == 0:
                calls += [ErpOracleGetInventory(), WmsScanInventory(), FinanceSapGetBudget(),
                          SupplierPortalRequestQuote("MEDLINE", "BLOOD-RBC", 10),
                          MessagingSendToWard("ward_general", "thank you")]
            padded = [(w, s) for w, s in rules.LINES if state.padded[w, s]]
            padded.sort(key=lambda ln: -(state.requests[ln] - state.net_need[ln]) * COST[ln[1]])
            calls += [EscalateToClinicalReview(WARDS[w], SKU_NAMES[s], "padded")
                      for w, s in padded[:env.params.reviews_per_round]]
            return calls
        if k == 1:
            cite = " ".join(round_evidence_ids(state)[:6])
            alloc = np.round(state.net_need, 1)
            return [*alert_calls(env, state), plan_call(alloc, f"evidence {cite}"),
                    *self.orders(env.params, state)]
        return None

    def orders(self, params: PharmacyParams, state: PharmacyState) -> list[Action]:
        buy = lp_orders(params, state)
        calls: list[Action] = []
        avail = rules.available_budget(state)
        for s in range(N_SKUS):
            if buy[s] >= 1:
                sup = fastest_cheap(params, state, s)
                more, used = po_calls(params, state, s, sup, float(np.ceil(buy[s])), avail)
                calls += more
                avail -= used
        return calls


def fastest_cheap(params: PharmacyParams, state: PharmacyState, s: int) -> int:
    """Cheapest supplier whose true lead time (disruptions known) delivers by next round."""
    day = state.round * params.days_per_round
    ok = [p for p in range(len(SUPPLIERS))
          if lead_time(params, state.events, p, day, False) <= params.days_per_round]
    return min(ok, key=lambda p: SUPPLIERS[p].cost_mult) if ok else 2


def lp_orders(params: PharmacyParams, state: PharmacyState) -> np.ndarray:
    """This round's purchase quantities per SKU from a perfect-information LP.

    Variables per SKU s and future round t (this round r .. R-1): buy[s,t] (arrives for t+1 at
    the cheapest timely supplier's price) and serve[s,t] <= true demand of round t (net of ward
    stock in round r). Central balance: stock[s,t+1] = stock[s,t] - serve[s,t] + buy[s,t] >= 0,
    with known open POs arriving; platelets cannot be carried more than one round. Budget:
    sum price x buy <= available. Objective: max sum weight x serve - 1e-4 x cost.
    """
    r, R, dpr = state.round, params.rounds, params.days_per_round
    T = R - r
    if T <= 1:
        return np.zeros(N_SKUS)
    demand = np.zeros((T, N_SKUS))
    for i in range(T):
        day = (r + i) * dpr
        demand[i] = state.daily[day:day + dpr].sum(axis=(0, 1))
    demand[0] = state.net_need.sum(axis=0)
    arrivals = np.zeros((T + 1, N_SKUS))
    for po in state.pos:
        if po.status in ("open", "approved"):
            t = max(1, -(-(po.arrival_day - r * dpr) // dpr))
            if t <= T:
                arrivals[t, po.sku] += po.qty
    stock0 = np.array([inventory.total(lots) for lots in state.central])
    for ev in state.events:  # stock the bound will quarantine is not usable
        if ev.kind in ("recall", "cold_chain") and ev.announce_round <= r:
            stock0[ev.sku] -= sum(lot.qty for lot in state.central[ev.sku] if lot.lot_id in ev.lots)
    price = np.array([[SKUS[s].unit_cost * SUPPLIERS[fastest_cheap(params, state, s)].cost_mult
                       for s in range(N_SKUS)] for _ in range(T)])
    nb = (T - 1) * N_SKUS  # buy[t, s] for t < T-1
    ns = T * N_SKUS
    weight = np.array([CRIT_WEIGHT[s.criticality] for s in SKUS])
    c = np.concatenate([1e-4 * price[:T - 1].ravel(), -np.tile(weight, T)])
    A, b = [], []
    for s in range(N_SKUS):
        for t in range(T):
            # cumulative served up to t <= stock0 + arrivals up to t + bought before t
            row = np.zeros(nb + ns)
            for u in range(t + 1):
                row[nb + u * N_SKUS + s] = 1.0
            for u in range(t):
                row[u * N_SKUS + s] = -1.0
            if s == 1 and t >= 1:  # platelets: only last round's purchase is usable
                row = np.zeros(nb + ns)
                row[nb + t * N_SKUS + s] = 1.0
                row[(t - 1) * N_SKUS + s] = -1.0
                A.append(row)
                b.append(arrivals[t, s])
                continue
            A.append(row)
            b.append(stock0[s] + arrivals[:t + 1, s].sum())
    budget_row = np.concatenate([price[:T - 1].ravel(), np.zeros(ns)])
    A.append(budget_row)
    b.append(max(0.0, rules.available_budget(state)))
    bounds = [(0, None)] * nb + [(0, float(demand[t, s])) for t in range(T) for s in range(N_SKUS)]
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    if res.status != 0:
        return np.zeros(N_SKUS)
    return np.asarray(res.x[:N_SKUS])


# ----- exploit policies -----------------------------------------------------------------------
class ToolSpamAgent(ScriptAgent):
    """Calls every read-only tool over and over (all five systems, many briefings) and never
    allocates: the process components must not pay it (they are gated by service)."""

    name = "tool_spam"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        return [GetRoundBriefing(), ReadInbox(), ErpOracleGetInventory(), WmsScanInventory(),
                QuerySupplier("MEDLINE"), FinanceSapGetBudget(),
                MessagingSendToWard("ward_er", "status?")]


class HoardOrdersAgent(ScriptAgent):
    """Spends the whole budget at once on expedited critical stock and grants every request."""

    name = "hoard_orders"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k > 0:
            return None
        calls: list[Action] = [plan_call(state.requests)]
        if state.round == 0:
            avail = rules.available_budget(state)
            for s in range(N_SKUS):
                share = avail * (0.3 if SKUS[s].criticality == CRIT else 0.02)
                more, _ = po_calls(env.params, state, s, 2, share / (SKUS[s].unit_cost * 1.8),
                                   share)
                calls += more
        return calls


class CutEverythingAgent(BaseStockAgent):
    """Austerity: base-stock ordering but every line gets half its request (trades harm for
    budget): must not score above the reference while leaving more critical need unmet."""

    name = "cut_everything"

    def allocation(self, state: PharmacyState, params: PharmacyParams) -> np.ndarray:
        return np.round(state.requests * 0.5)


AGENTS: dict[str, type[Agent]] = {
    "rubber_stamp": RubberStampAgent,
    "escalate_all": EscalateAllAgent,
    "discount_general": DiscountGeneralAgent,
    "base_stock": BaseStockAgent,
    "bound": BoundAgent,
    "tool_spam": ToolSpamAgent,
    "hoard_orders": HoardOrdersAgent,
    "cut_everything": CutEverythingAgent,
}
"""The pharmacy ladder (weakest first) and its exploit policies."""

EXPLOITS: tuple[str, ...] = ("escalate_all", "tool_spam", "hoard_orders", "cut_everything")
"""The pharmacy exploit policies (``EnvSpec.exploits``)."""

TEXT_POLICY = "lifeline.envs.pharmacy.text_agent:PharmacyTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""


PASS_THRESHOLD = 0.8
"""An episode 'passes' at this score (pass^k with ``--trials k``): between escalate_all and
base_stock on medium."""
