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
from lifeline.envs.pharmacy import dynamics, rules
from lifeline.envs.pharmacy.dynamics import delivered_expiry
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.flat_reference import FlatBaseStockAgent
from lifeline.envs.pharmacy.generator import (
    COST,
    IS_CRIT,
    N_SKUS,
    STOCKED,
    cover_days,
    lead_time,
    restocks,
    true_lead_time,
)
from lifeline.envs.pharmacy.generator import expected_daily as _expected_daily
from lifeline.envs.pharmacy.generator import weekday_factor as _weekday_factor
from lifeline.envs.pharmacy.params import (
    CENTRAL,
    CRIT,
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
    AuthorizeStat,
    ErpOracleGetInventory,
    ErpOracleGetPipeline,
    EscalateToClinicalReview,
    FileJustification,
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
    SupplierPortalGetQuote,
    SupplierPortalRequestQuote,
    TransferStock,
    ViewRequests,
    WmsScanInventory,
)

BOUNDED_COMPONENTS = ("patient_safety",)
"""Components no policy may beat the perfect-information bound on (v2: the score itself and
patient safety; the money and waste terms trade against service by design, see reward.py)."""
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


FORECAST_WEEKDAY = True
"""v2: the reference's forecast applies the published weekday pattern (training seeds 0-7, five
scenarios: README "Reference tuning")."""


def forecast(params: PharmacyParams, state: PharmacyState, rnd: int) -> np.ndarray:
    """Expected network demand per SKU in round ``rnd``, with published MCIs and (v2) the
    weekday pattern (``PharmacyParams.weekday`` is public: day 0 is a Monday) when
    :data:`FORECAST_WEEKDAY` is set."""
    daily = _expected_daily(params)
    dpr = params.days_per_round
    week = _weekday_factor(params)
    total = np.zeros(N_SKUS)
    for day in range(rnd * dpr, (rnd + 1) * dpr):
        d = daily * (float(week[day]) if FORECAST_WEEKDAY and day < len(week) else 1.0)
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


def with_justifications(params: PharmacyParams, state: PharmacyState,
                        calls: list[Action]) -> list[Action]:
    """Put a ``file_justification`` before the orders of each supplier whose round spend will
    pass the approval threshold, citing this round's evidence (or a published event / ticket)
    for every product ordered from it; orders of products nothing concerns stay as they are
    (finance holds them)."""
    pos = [c for c in calls if isinstance(c, SubmitPo)]
    out: list[Action] = []
    r = min(state.round, params.rounds - 1)
    for p, name in enumerate(SUPPLIER_NAMES):
        mine = [c for c in pos if c.supplier_id == name]
        cost = sum(c.quantity * SKUS[SKU_NAMES.index(c.product_id)].unit_cost
                   * SUPPLIERS[p].cost_mult for c in mine)
        if not mine or state.supplier_spend[r, p] + cost <= params.approval_threshold:
            continue
        skus = sorted({SKU_NAMES.index(c.product_id) for c in mine})
        cites = [rules.citable_id(state, s) for s in skus]
        cites = [c for c in cites if c]
        if cites:
            out.append(FileJustification(cites[0], "orders for " + " ".join(cites)))
    return out + [c for c in calls if not isinstance(c, FileJustification)]


def quoted_leads(state: PharmacyState) -> dict[int, int]:
    """Lead time (days) per supplier for orders placed this round, from quotes requested last
    round (readable now): what the supplier portal said after ``supplier_portal_get_quote``."""
    out: dict[int, int] = {}
    for rnd, p, _s, _q, _price, lead in state.quotes.values():
        if rnd == state.round - 1:
            out[p] = lead
    return out


PLT_Z = 0.0
"""v2: platelet safety-stock quantile (tuned on training seeds 0-7 of all five scenarios, README
"Reference tuning"): platelets live 2-4 days after delivery, so v1's 98 % level (z = 2.05)
outdated them without serving more; z = 0 / 0.5 / 1.0 score within 0.003 of each other, z = 0
best on `light`. The lean 10 % of the forecast (``LEAN_SAFETY``) still applies."""


def replenish(params: PharmacyParams, state: PharmacyState, issue: np.ndarray,
              z: float = SERVICE_Z, reserve: float = 0.6,
              leads: dict[int, int] | None = None, plt_z: float | None = None,
              cover_rounds: int = 1) -> list[Action]:
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
    funded = budget_cover(params, state, issue, z)
    # a quote states this round's real lead time; only platelets act on it (a late MEDLINE
    # shipment of them expires): long-life lines cover ``cover_rounds`` rounds, so buying them
    # faster on a late quote only pays a premium; and under a squeeze (``funded`` <= 0.5) the
    # FASTMED premium on platelets costs more blood than it saves (training seeds, 5 scenarios)
    quoted_late = funded > 0.5 and any(-(-lead // dpr) > 1
                                       for p, lead in (leads or {}).items() if p == 0)
    # safety stock as far as the budget funds it (budget_cover), never under v0's lean 10 %
    cum_fc = np.cumsum(fc, axis=0)
    safety = np.maximum(budget_cover(params, state, issue, z) * safety_stock(params, len(fc), z),
                        LEAN_SAFETY * cum_fc)
    if plt_z is not None:  # platelets: their own (lower) service level
        cover = funded
        safety[:, 1] = np.maximum(cover * plt_z * safety_stock(params, len(fc), 1.0)[:, 1],
                                  LEAN_SAFETY * cum_fc[:, 1])
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
        # v2: the regular order also covers the rounds a late MEDLINE delivery would miss
        cover = lag if short_lived else max(lag, min(cover_rounds, len(cum_fc)))
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
        target = cum[0] if short_lived else cum[min(cover, len(cum)) - 1]
        # no quote yet (round 0) and a budget that funds safety stock: MEDLINE may be late
        unsure = leads is not None and 0 not in leads and r == 0 and funded > 0.5
        if short_lived and (rounds_of[0] > 1 or unsure or quoted_late):  # FASTMED: 97 %, 1 d
            avail -= buy(s, 2, target - pos, avail - keep)
        elif lag - 1 < len(cum):
            avail -= buy(s, 0, target - pos, avail - keep)
    return calls


BLOOD = (0, 1, 2)
"""RBC, platelets, plasma: the products STAT covers."""
STAT_ALL = 10_000.0
"""Units authorised when a policy authorises STAT without limit (the tool's largest)."""


def stat_calls(params: PharmacyParams, state: PharmacyState, issue: np.ndarray,
               orders: list[Action], rule: str = "spare", margin: float = 1.0,
               later_need: np.ndarray | None = None) -> list[Action]:
    """``authorize_stat`` calls for this round (round 3; nothing when STAT needs no
    authorisation). ``rule``: ``always`` (every blood product, no limit), ``never``,
    ``funded`` (no limit while :func:`budget_cover` funds safety stock, else none) or
    ``spare`` (the money the regular plan does not need: the available budget after this
    round's orders, less ``margin`` x the standard cost of the forecast need of the later
    rounds beyond the inventory position, in STAT units of each product; ``later_need``
    replaces the forecast: the bound passes the true demand)."""
    if not (params.stat_delivery and params.stat_authorisation) or rule == "never":
        return []
    units = {s: STAT_ALL for s in BLOOD}
    if rule == "funded" and budget_cover(params, state, issue) <= 0.0:
        return []
    if rule == "spare":
        spend = sum(c.quantity * SKUS[SKU_NAMES.index(c.product_id)].unit_cost
                    * SUPPLIERS[SUPPLIER_NAMES.index(c.supplier_id)].cost_mult
                    for c in orders if isinstance(c, SubmitPo))
        ordered = np.zeros(N_SKUS)  # this round's orders are bought already
        for c in orders:
            if isinstance(c, SubmitPo):
                ordered[SKU_NAMES.index(c.product_id)] += c.quantity
        later = [forecast(params, state, t) for t in range(state.round + 1, params.rounds)]
        total = later_need if later_need is not None else (
            np.sum(later, axis=0) if later else np.zeros(N_SKUS))
        need = np.maximum(total - position_of(state, issue) - ordered, 0.0)
        spare = rules.available_budget(state) - spend - margin * float(need @ COST)
        units = {s: float(np.floor(max(0.0, spare - params.stat_fee)
                                   / (params.stat_mult * COST[s]))) for s in BLOOD}
    return [AuthorizeStat(SKU_NAMES[s], q) for s, q in units.items() if q >= 1]


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
    cover_rounds = 4
    """v2: its orders cover as many rounds as base-stock's and carry justifications (citing the
    events and shortage tickets it has seen: it requests no evidence), so finance holds only
    orders that nothing it has seen concerns."""

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
                    *with_justifications(env.params, state, replenish(
                        env.params, state, alloc, cover_rounds=self.cover_rounds))]
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
    plt_z: float | None = PLT_Z
    use_quotes = False
    """Read last round's quotes and ask for next round's (off since the issue-23 review: acting
    on them means FASTMED platelets in round 0 and after a late MEDLINE quote, and on
    validation seeds 100-129 not doing so scores -0.0002 / +0.0036 / +0.0087 / +0.0059 /
    +0.0000 (light, medium, heavy, mass_casualty, supply_shock) with 0.6 more / 2.7, 8.5, 4.4
    fewer harm units; training seeds 0-7 agreed except light, -0.004: README "Reference
    tuning")."""
    use_transfers = True
    cover_rounds = 4
    """v2 (tuned): rounds of forecast the regular MEDLINE order of a long-life SKU covers, so a
    late delivery or a disruption finds stock on the shelf (training seeds 0-5, five
    scenarios; README "Reference tuning": 1 -> 2 -> 3 -> 4 -> 5 rounds)."""

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            quotes: list[Action] = []
            if self.use_quotes:  # read last round's quotes, ask for next round's
                quotes = [SupplierPortalGetQuote(q) for q, v in state.quotes.items()
                          if v[0] == state.round - 1]
                if state.round < env.params.rounds - 2:
                    quotes.append(SupplierPortalRequestQuote("MEDLINE", "BLOOD-RBC", 1))
            return [GetRoundBriefing(), ErpOracleGetInventory(), ErpOracleGetPipeline(),
                    WmsScanInventory(), FinanceSapGetBudget(), *quotes,
                    *[RequestEvidence(w, "all") for w in WARDS]]
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
            moves = surplus_returns(state, alloc) if self.use_transfers and \
                env.params.transfers else []
            if self.pool_skus:  # the plan cut applies either way; the returns need transfers
                pooled = pool_returns(state, alloc, self.pool_skus, self.pool_issue)
                moves += pooled if env.params.transfers else []
            own = alloc
            if not restocks(env.params, state.round):  # round 4: nothing is issued
                alloc = own = np.zeros_like(alloc)
                if self.use_transfers and env.params.transfers:
                    moves += weekend_transfers(state, state.evidence_est, self.weekend_keep,
                                               self.pool_skus)
            else:
                own = own_round_issue(env.params, state, alloc)
            orders = replenish(env.params, state, own, plt_z=self.plt_z,
                               leads=quoted_leads(state) if self.use_quotes else None,
                               cover_rounds=self.cover_rounds)
            notes = feedback_messages(state) if self.feedback else []
            stat = stat_calls(env.params, state, own, orders, self.stat_rule, self.stat_margin)
            return [*moves, *notes, plan_call(alloc, f"evidence {cite}"),
                    *with_justifications(env.params, state, orders), *stat]
        return None

    stat_rule = "spare"
    """Round 3: when to authorise STAT (:func:`stat_calls`): with the money the regular plan
    does not need (training seeds 0-15: README "Reference tuning")."""
    stat_margin = 2.0
    """STAT money must leave this multiple of the standard cost of the forecast need of the
    later rounds (beyond the position and this round's orders) for regular orders; the
    forecast leaves out surges, spikes and unpublished events (training seeds 0-15, margin
    1.3 / 1.5 / 2.0 / 3.0: light 0.9751 / 0.9750 / 0.9745 / 0.9683, medium 0.8802 / 0.8813 /
    0.8819 / 0.8824, heavy 0.8528 / 0.8572 / 0.8581 / 0.8582; README "Reference tuning")."""
    weekend_keep = 1.0
    """Round 4: on a round without a ward top-up a ward gives away what it holds beyond this
    multiple of its evidence estimate (:func:`weekend_transfers`; training seeds 0-7, five
    scenarios: 0.9 / 1.0 / 1.2 within 0.0005 of each other, 1.2 lowest on four)."""
    pool_skus: tuple[int, ...] = (1,)
    """Round 3: blood the reference keeps pooled in the blood bank (platelets): the ICU/ER
    fridges' platelets go back to central each round (:func:`pool_returns`)."""
    pool_issue = 0.5
    """Share of a pooled product's allocation still sent to the ward fridges (training seeds
    0-15: 1 / 0.5 / 0 scored 0.9736 / 0.9748 / 0.9708 on light, 0.8740 / 0.8814 / 0.8837 on
    medium)."""
    """Round 3: when to authorise STAT (:func:`stat_calls`; validation seeds, README)."""
    feedback = True
    """v2 (tuned): message each ward about its most over-requested line, citing that line's
    evidence (lowers its hoarding pressure, dynamics.FEEDBACK_PRESSURE)."""

    point_of_use = True
    """Raise blood-line allocations by :data:`CRIT_BUFFER` while the budget funds it (v1)."""
    grant_supplies = True
    """v2 (tuned): grant HIGH/NORMAL requests in full; padding there costs a few dollars,
    a cut honest line a stock-out (training seeds 0-5: +0.004 to +0.008, harm unchanged)."""
    blood_margin = 1.2
    """v2 (tuned): a cut blood line gets this multiple of the evidence's net estimate."""
    blood_slack = 1.5
    """v2 (tuned): a blood line is cut only when its request exceeds this multiple of the
    evidence's net estimate (+1 unit): the estimate's 15 % noise cut honest lines at 1.2."""

    def allocation(self, state: PharmacyState, params: PharmacyParams) -> np.ndarray:
        buf = crit_buffer(params, state) if self.point_of_use else 0.0
        alloc = evidence_allocation(state, self.slack, buf)
        est = np.maximum(state.evidence_est - state.on_hand, 0.0)  # blood: v2's slack, margin
        blood = IS_CRIT[None, :] & (state.verdicts == 0) & (state.evidence_seen == 1)
        req = state.requests
        cut = blood & (req > self.blood_slack * est + 1.0)
        keep = blood & ~cut
        alloc[keep] = np.ceil(req[keep] * (1.0 + buf))
        alloc[cut] = np.minimum(req[cut], np.ceil(est[cut] * self.blood_margin))
        if self.grant_supplies:
            alloc[:, ~IS_CRIT] = np.maximum(alloc[:, ~IS_CRIT], state.requests[:, ~IS_CRIT])
        return alloc * STOCKED


def feedback_messages(state: PharmacyState, ratio: float = 1.2) -> list[Action]:
    """One message per ward citing the evidence of its most over-requested shown line, when
    that request exceeds ``ratio`` x the evidence's net estimate + 1 (what the agent saw)."""
    est = np.maximum(state.evidence_est - state.on_hand, 0.0)
    over = np.where((state.evidence_seen == 1) & (state.requests > ratio * est + 1.0),
                    state.requests - est, 0.0) * STOCKED
    ids = {(r, w, s): e for e, (r, w, s) in state.evidence_ids.items()}
    calls: list[Action] = []
    for w in range(len(WARDS)):
        if over[w].max() <= 0:
            continue
        s = int(np.argmax(over[w] * COST))
        eid = ids.get((state.round, w, s))
        if eid:
            calls.append(MessagingSendToWard(WARDS[w], f"{eid}: your {SKU_NAMES[s]} request "
                                             f"is above the clinical estimate"))
    return calls


def surplus_returns(state: PharmacyState, alloc: np.ndarray) -> list[Action]:
    """Return ward surplus to central where central cannot fill the plan (from what the
    evidence showed): a ward's surplus = its on-hand stock beyond its evidence estimate of the
    round's gross need; the plan then re-issues it in ward-priority order."""
    short = alloc.sum(axis=0) - live_stock(state)
    calls: list[Action] = []
    for s in np.flatnonzero(short > 1.0):
        for w in range(len(WARDS)):
            if not STOCKED[w, s] or state.evidence_seen[w, s] != 1:
                continue
            spare = float(state.on_hand[w, s] - np.ceil(state.evidence_est[w, s] * 1.1))
            if spare >= 1.0:
                calls.append(TransferStock(WARDS[w], CENTRAL, SKU_NAMES[s], float(np.floor(spare))))
                alloc[w, s] = 0.0
    return calls


def own_round_issue(params: PharmacyParams, state: PharmacyState, alloc: np.ndarray
                    ) -> np.ndarray:
    """Round 4: the part of a top-up the round itself uses: a Friday top-up covers the weekend
    too, whose share (days beyond the round / days covered) is next round's demand in the
    order forecast, so the inventory position must not count it twice."""
    span = cover_days(params, state.round)
    return alloc * (params.days_per_round / span)


def weekend_transfers(state: PharmacyState, need: np.ndarray, keep: float = 1.0,
                      skip: tuple[int, ...] = ()) -> list[Action]:
    """Round 4: ward-to-ward transfers of a round without a ward top-up (the weekend).

    A ward short of a line (``need`` above its on-hand, rounded up) receives units from the
    wards holding more than ``keep`` x their own need of it (the largest surplus first); ICU
    first, then ER, then General. ``need`` is the round's need per line as the caller sees it
    (the reference: the evidence's clinical estimate; the bound: the true demand); lines not
    shown in evidence (redacted: their need is unknown) neither give nor receive, and the
    ``skip`` SKUs (pooled in the blood bank) are left out."""
    seen = state.evidence_seen == 1
    spare = np.where(seen & STOCKED, np.floor(state.on_hand - keep * need + 1e-9), 0.0)
    short = np.where(seen & STOCKED, np.ceil(need - state.on_hand - 1e-9), 0.0)
    calls: list[Action] = []
    for s in range(N_SKUS):
        if s in skip:
            continue
        for w in range(len(WARDS)):
            while short[w, s] >= 1.0:
                donor = int(np.argmax(np.where(STOCKED[:, s], spare[:, s], 0.0)))
                qty = float(min(short[w, s], spare[donor, s]))
                if donor == w or qty < 1.0:
                    break
                calls.append(TransferStock(WARDS[donor], WARDS[w], SKU_NAMES[s], qty))
                spare[donor, s] -= qty
                short[w, s] -= qty
    return calls


def pool_returns(state: PharmacyState, alloc: np.ndarray, skus: tuple[int, ...],
                 issue: float = 1.0) -> list[Action]:
    """Rotate ward blood back to the blood bank: every unit of ``skus`` an ICU/ER fridge
    reported on hand (the evidence) goes back to central (``transfer_stock``), where the
    same-day emergency issue serves whichever ward needs it first, first-expiry-first-out; the
    ward's plan line becomes ``issue`` x its allocation."""
    calls: list[Action] = []
    for s in skus:
        for w in (0, 1):
            held = float(np.floor(state.on_hand[w, s]))
            if state.evidence_seen[w, s] == 1 and held >= 1.0 and STOCKED[w, s]:
                calls.append(TransferStock(WARDS[w], CENTRAL, SKU_NAMES[s], held))
            alloc[w, s] = np.floor(alloc[w, s] * issue)
    return calls


def crit_buffer(params: PharmacyParams, state: PharmacyState) -> float:
    """Point-of-use buffer on blood lines: :data:`CRIT_BUFFER` as far as the budget funds the
    safety stock (:func:`budget_cover` with the requests as the issue), else none."""
    return CRIT_BUFFER * budget_cover(params, state, state.requests)


class BoundAgent(ScriptAgent):
    """Upper bound with perfect information (reads hidden state): allocates the true net need,
    escalates only padded lines, quarantines at once, and orders the plan of a rolling linear
    program (``scipy.optimize.linprog``, HiGHS) over the true future demand, every supplier's
    true lead times (its random delays included), the shelf life each shipment will arrive
    with, and the budget, whose objective is the grader's own marginal values (reward.py):
    ``0.50 / N_c`` per blood unit served, ``0.17 / N_high`` and ``0.08 / N_normal`` per other
    unit, ``0.07 / (1000 N_c)`` per $ spent. It files the justifications its orders need.

    Round 3: the LP is a relaxation (it pools the wards and charges no waste), so buying all
    the blood it values can lose to buying less; the bound pre-plays each episode (the env is
    deterministic given the seed: perfect information) with every :data:`LEANS` share of its
    blood plan and plays the best."""

    name = "bound"
    lean = 1.0
    """Share of the LP's blood orders and of the true blood need issued (``oracle_stingy``:
    0.85)."""
    preplay = True
    """Pre-play the episode with every :data:`LEANS` value and keep the best (the bound)."""

    def reset(self, env: Environment, seed: int) -> None:
        super().reset(env, seed)
        if not self.preplay:
            return
        pe = _env(env)
        best = (-1.0, 1.0)
        for lean in LEANS:
            probe = BoundAgent()
            probe.preplay, probe.lean = False, lean
            twin = PharmacyEnv(pe.scenario, params=pe.params)
            state = twin.reset(seed)
            probe.reset(twin, seed)
            while not state.done:
                twin.step(state, probe.act(twin, state))
            best = max(best, (twin.grade(state).score, lean))
        self.lean = best[1]

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k == 0:
            calls: list[Action] = [*[RequestEvidence(w, "all") for w in WARDS]]
            padded = [(w, s) for w, s in rules.LINES if state.padded[w, s]]
            padded.sort(key=lambda ln: -(state.requests[ln] - state.net_need[ln]) * COST[ln[1]])
            calls += [EscalateToClinicalReview(WARDS[w], SKU_NAMES[s], "padded")
                      for w, s in padded[:env.params.reviews_per_round]]
            return calls
        if k == 1:
            alloc = self.allocation(state, env.params)
            orders = self.orders(env.params, state)
            truth = state.daily[(state.round + 1) * env.params.days_per_round:].sum(axis=(0, 1))
            return [*alert_calls(env, state), plan_call(alloc, ""),
                    *with_justifications(env.params, state, orders),
                    *stat_calls(env.params, state, alloc, orders, self.stat_rule,
                                self.stat_margin, later_need=truth)]
        return None

    stat_rule = "spare"
    """Round 3: the bound authorises STAT with the money its LP's plan leaves beyond the true
    later need (:func:`stat_calls` with the true demand; training seeds 0-11: always / never /
    this rule 0.9811 / 0.9554 / 0.9811 on light, 0.8841 / 0.9115 / 0.9116 on medium, 0.8750 /
    0.9019 / 0.9017 on heavy)."""
    stat_margin = 1.2
    blood_issue = 0.0
    """Round 2: share of the true ICU/ER blood need sent to the ward fridges; the rest stays in
    the blood bank, which issues it the same day (``emergency_issue``), pooled for both wards."""

    def allocation(self, state: PharmacyState, params: PharmacyParams | None = None
                   ) -> np.ndarray:
        need = dynamics.true_net_need(state, params) if params is not None else state.net_need
        alloc = np.ceil(need * 10.0 - 1e-6) / 10.0
        if params is not None and params.emergency_issue:
            alloc[0:2, 0:3] = np.ceil(alloc[0:2, 0:3] * self.blood_issue)
        if self.lean < 1.0:
            alloc[:, IS_CRIT] = np.floor(alloc[:, IS_CRIT] * self.lean)
        return alloc

    def orders(self, params: PharmacyParams, state: PharmacyState) -> list[Action]:
        buy = lp_orders(params, state)
        calls: list[Action] = []
        avail = rules.available_budget(state)
        for p in range(len(SUPPLIERS)):
            for s in range(N_SKUS):
                if buy[p, s] >= 0.5:
                    more, used = po_calls(params, state, s, p, float(np.ceil(buy[p, s] - 1e-6)),
                                          avail)
                    calls += more
                    avail -= used
        if self.lean >= 1.0:
            return calls
        out: list[Action] = []
        for c in calls:
            if isinstance(c, SubmitPo) and IS_CRIT[SKU_NAMES.index(c.product_id)]:
                q = int(c.quantity * self.lean)
                if q < 1:
                    continue
                c = SubmitPo(c.supplier_id, c.product_id, c.destination_id, q)
            out.append(c)
        return out


LEANS = (1.0, 0.85)
"""Shares of its blood plan the bound pre-plays (round 3): the full LP plan and
``oracle_stingy``'s 85 %."""


def usable_round(params: PharmacyParams, state: PharmacyState, p: int, s: int,
                 t: int) -> tuple[int, float]:
    """(round whose issue a PO placed at round ``t`` from supplier ``p`` first reaches, the
    number of rounds its units stay usable from then) with perfect information."""
    dpr = params.days_per_round
    day = t * dpr
    arrive = day + true_lead_time(params, state.events, state.supplier_delay, p, day, False)
    a = -(-arrive // dpr)
    life = SKUS[s].shelf_life_days
    if not life:
        return a, float(params.rounds)
    frac = float(state.delivered_life[min(t, params.rounds - 1), p, s])
    expiry = arrive + max(1, round(life * frac))
    return a, (expiry - a * dpr) / dpr


LOCK_SHARE = 0.5
"""Share of the crossmatch lock (held red cells) the bound's LP keeps on top of the red-cell
need (training seeds 0-5: 0 / 0.5 scored 0.9588 / 0.9633 on light, 0.8862 / 0.8969 on medium,
0.8819 / 0.8914 on heavy)."""


def lp_orders(params: PharmacyParams, state: PharmacyState) -> np.ndarray:
    """This round's purchases (supplier, SKU) from a perfect-information LP (see BoundAgent).

    Per SKU: serve[t] <= the true network demand of round t (this round: the true net need),
    cumulative served <= central stock + deliveries usable by then; lots that expire (platelets,
    short-dated red cells, part-used lots) only count for the rounds they stay usable in.
    """
    r, R, dpr = state.round, params.rounds, params.days_per_round
    T = R - r
    n_sup = len(SUPPLIERS)
    demand = np.zeros((T, N_SKUS))
    for i in range(T):
        day = (r + i) * dpr
        demand[i] = state.daily[day:day + dpr].sum(axis=(0, 1))
    own = state.daily[r * dpr:(r + 1) * dpr].sum(axis=0)
    demand[0] = (np.maximum(own - state.on_hand, 0.0) * STOCKED).sum(axis=0)
    supplies = np.arange(N_SKUS) >= 3  # round 4: no weekend top-up, so the wards' supplies
    for i in range(T - 1, -1, -1):     # for a weekend round come with the round before it
        if not restocks(params, r + i):
            if i > 0:
                demand[i - 1, supplies] += demand[i, supplies]
            demand[i, supplies] = 0.0
    c = state.counters
    totals = state.daily.sum(axis=(0, 1))
    n_c = max(float(state.daily[:, 0:2][:, :, IS_CRIT].sum()), 1.0)
    cls = np.array([sku.criticality for sku in SKUS])
    n_h = max(float(totals[cls == HIGH].sum()), 1.0)
    n_n = max(float(totals[cls == 2].sum()), 1.0)
    value = np.where(cls == CRIT, 0.6 / n_c, np.where(cls == HIGH, 0.17 / n_h, 0.08 / n_n))
    lam = 0.07 / (1000.0 * n_c)
    del c
    # supply lots: (first usable round index, last usable round index, qty) per SKU, fixed
    fixed: list[list[tuple[int, int, float]]] = [[] for _ in range(N_SKUS)]
    for s in range(N_SKUS):
        bad = {lot for ev in state.events if ev.announce_round <= r for lot in ev.lots}
        for lot in state.central[s]:
            if lot.lot_id in bad:
                continue
            last = (lot.expiry - 1) // dpr - r  # round index of its last usable day
            if last >= 0:
                fixed[s].append((0, min(T - 1, last), lot.qty))
    for release, lot in state.holds:  # crossmatched red cells come back at their release
        back = -(-release // dpr) - r
        end = (lot.expiry - 1) // dpr - r
        if back < T and end >= back:
            fixed[lot.sku].append((max(back, 0), min(T - 1, end), lot.qty))
    # crossmatch holds lock (ratio - 1) x a round's red-cell need at any time: the stock must
    # cover it on top of what is transfused (round 2)
    lock = (LOCK_SHARE * max(0.0, params.crossmatch_ratio - 1.0) * demand[:, 0]
            * params.crossmatch_hold_days / dpr)  # a hold of h days locks h / dpr rounds
    for po in state.pos:
        if po.status in ("open", "approved"):
            a = max(1, -(-po.arrival_day // dpr) - r) if po.status == "open" else None
            if a is None:
                continue
            exp = delivered_expiry(state, params, po) if SKUS[po.sku].shelf_life_days else 10**6
            last = (exp - 1) // dpr - r
            if a < T and last >= a:
                fixed[po.sku].append((a, min(T - 1, last), po.qty))
    # purchase options: (placement round index, supplier) -> (first, last usable index, price)
    options: list[tuple[int, int, int, int, int, float]] = []  # (s, t, p, first, last, price)
    for s in range(N_SKUS):
        for t in range(T - 1):
            for p in range(n_sup):
                a, life_rounds = usable_round(params, state, p, s, r + t)
                first = a - r
                last = first + int(np.floor(life_rounds + 1e-9)) - 1 if SKUS[s].shelf_life_days \
                    else T - 1
                last = min(T - 1, last)
                if first < T and last >= first:
                    options.append((s, t, p, first, last,
                                    SKUS[s].unit_cost * SUPPLIERS[p].cost_mult))
    caps: list[float | None] = [None] * len(options)
    if params.stat_delivery:  # round 3: STAT in round u serves round u only, at its price
        rate = _expected_daily(params).sum(axis=0) * params.stat_cap_days * dpr
        for s in BLOOD:
            for u in range(T):
                options.append((s, u, -1, u, u, SKUS[s].unit_cost * params.stat_mult))
                caps.append(float(rate[s]))
    nb, ns = len(options), T * N_SKUS
    cost = np.concatenate([lam * np.array([o[5] for o in options]),
                           -np.tile(value, T)])
    A: list[np.ndarray] = []
    b: list[float] = []
    # supply windows: for every SKU and window [i, j], served in [i, j] <= supply usable only
    # inside it... (a relaxation: cumulative served up to j <= supply usable at some point up
    # to j, and served from i on <= supply still usable at i or later)
    for s in range(N_SKUS):
        for j in range(T):
            for i in range(j + 1):
                row = np.zeros(nb + ns)
                for u in range(i, j + 1):
                    row[nb + u * N_SKUS + s] = 1.0
                rhs = sum(q for f, last, q in fixed[s] if f <= j and last >= i)
                if s == 0:
                    rhs -= float(lock[i:j + 1].max())
                for k, (ss, _t, _p, f, last, _pr) in enumerate(options):
                    if ss == s and f <= j and last >= i:
                        row[k] = -1.0
                A.append(row)
                b.append(rhs)
    A.append(np.concatenate([[o[5] for o in options], np.zeros(ns)]))
    b.append(max(0.0, rules.available_budget(state)))
    bounds = [(0, cap) for cap in caps] + [(0, float(demand[t, s])) for t in range(T)
                                           for s in range(N_SKUS)]
    res = linprog(cost, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    out = np.zeros((n_sup, N_SKUS))
    if res.status != 0:
        return out
    for k, (s, t, p, _f, _l, _pr) in enumerate(options):
        if t == 0 and p >= 0:  # STAT (p = -1) is not ordered: the authorisation covers it
            out[p, s] += float(res.x[k])
    return out


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


class PaperTrailAgent(ScriptAgent):
    """v1's free points, as one policy: never allocates, but files a justification and asks for
    an approval, briefs once, uses all five systems, messages wards and requests quotes every
    round (v1 paid tool_discovery, approval_workflow and briefing for exactly this)."""

    name = "paper_trail"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        if k > 0:
            return None
        calls: list[Action] = [GetRoundBriefing(), ErpOracleGetInventory(), WmsScanInventory(),
                               FinanceSapGetBudget(), RequestEvidence("ward_icu", "all")]
        ev = round_evidence_ids(state)
        calls += [SupplierPortalRequestQuote("MEDLINE", "BLOOD-RBC", 1),
                  MessagingSendToWard("ward_general", f"about {ev[0] if ev else 'EV-1'}")]
        return calls


class InvalidPaddingAgent(BaseStockAgent):
    """The reference, with every round padded by 10 malformed calls: must score lower."""

    name = "invalid_padding"
    pad = 10

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        calls = super().phase(env, state, k)
        if k == 0 and calls is not None:
            calls = [SubmitPo("NOBODY", "BLOOD-RBC", CENTRAL, 1)] * self.pad + calls
        return calls


class SplitOrdersAgent(BaseStockAgent):
    """The reference without justifications, its POs split under $10k (v1's bypass): finance
    now judges each supplier's round, so the orders past $10k are held."""

    name = "split_orders"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        calls = super().phase(env, state, k)
        if calls is None:
            return None
        return [c for c in calls if not isinstance(c, FileJustification)]


class NoBufferAgent(BaseStockAgent):
    """The reference without its point-of-use blood buffer (v1: raised score and harm)."""

    name = "no_buffer"
    point_of_use = False


class QuarantineExpiringAgent(BaseStockAgent):
    """The reference, destroying every central lot that expires before next round (v1: lots
    destroyed were not counted as waste)."""

    name = "quarantine_expiring"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        calls = super().phase(env, state, k)
        if k == 0 and calls is not None:
            soon = (state.round + 1) * env.params.days_per_round
            calls += [QuarantineLot(CENTRAL, SKU_NAMES[s], lot.lot_id)
                      for s in range(N_SKUS) for lot in state.central[s] if lot.expiry <= soon]
        return calls


class OracleGamerAgent(BoundAgent):
    """The bound plus every move the grader might pay for: all systems, briefings, quotes,
    messages with feedback, a rationale citing evidence, destroying soon-expiring lots so
    they do not count as expired, and a last-round purchase for the terminal credit. Reads
    hidden state. Must not beat ``bound``."""

    name = "oracle_gamer"

    def phase(self, env: PharmacyEnv, state: PharmacyState, k: int) -> list[Action] | None:
        calls = super().phase(env, state, k)
        if calls is None:
            return None
        if k == 0:
            extra: list[Action] = [GetRoundBriefing(), ErpOracleGetInventory(), WmsScanInventory(),
                                   FinanceSapGetBudget(), QuerySupplier("MEDLINE"),
                                   SupplierPortalRequestQuote("MEDLINE", "BLOOD-RBC", 1)]
            soon = (state.round + 1) * env.params.days_per_round
            extra += [QuarantineLot(CENTRAL, SKU_NAMES[s], lot.lot_id)
                      for s in range(N_SKUS) for lot in state.central[s] if lot.expiry <= soon]
            return extra + calls
        if k == 1:
            cite = " ".join(round_evidence_ids(state)[:6])
            out: list[Action] = []
            for c in calls:
                if isinstance(c, SubmitAllocationPlan):
                    c = SubmitAllocationPlan(c.plan, f"evidence {cite}")
                out.append(c)
            ev = round_evidence_ids(state)
            out += [MessagingSendToWard(w, f"feedback {e}") for w in WARDS for e in ev[:1]]
            if state.round == env.params.rounds - 1:  # buy for the terminal credit
                out += [SubmitPo("MEDLINE", "BLOOD-FFP", CENTRAL, 40)]
            return out
        return calls


class OracleStingyAgent(BoundAgent):
    """The bound, but it issues only 85 % of the blood need and orders 15 % less blood: money
    and waste saved by leaving critical need unmet. Reads hidden state. Must score below
    ``bound`` (the exchange rates in reward.py; round 3: the bound pre-plays this lean plan and
    keeps it where it scores more, so it never scores below it on a seed)."""

    name = "oracle_stingy"
    lean = 0.85
    preplay = False


AGENTS: dict[str, type[Agent]] = {
    "rubber_stamp": RubberStampAgent,
    "escalate_all": EscalateAllAgent,
    "discount_general": DiscountGeneralAgent,
    "base_stock": BaseStockAgent,
    "bound": BoundAgent,
    "tool_spam": ToolSpamAgent,
    "hoard_orders": HoardOrdersAgent,
    "cut_everything": CutEverythingAgent,
    "paper_trail": PaperTrailAgent,
    "invalid_padding": InvalidPaddingAgent,
    "split_orders": SplitOrdersAgent,
    "no_buffer": NoBufferAgent,
    "quarantine_expiring": QuarantineExpiringAgent,
    "oracle_gamer": OracleGamerAgent,
    "oracle_stingy": OracleStingyAgent,
    "base_stock_flat": FlatBaseStockAgent,
}
"""The pharmacy ladder (weakest first) and its exploit policies."""

EXPLOITS: tuple[str, ...] = (
    "escalate_all", "tool_spam", "hoard_orders", "cut_everything", "paper_trail",
    "invalid_padding", "split_orders", "no_buffer", "quarantine_expiring", "oracle_gamer",
    "oracle_stingy")
"""The pharmacy exploit policies (``EnvSpec.exploits``)."""

TEXT_POLICY = "lifeline.envs.pharmacy.text_agent:PharmacyTextPolicy"
"""The env's text-only heuristic (``EnvSpec.text_policy``; see ``text_agent.py``)."""


PASS_THRESHOLD = 0.8
"""An episode 'passes' at this score (pass^k with ``--trials k``): between escalate_all and
base_stock on medium."""
