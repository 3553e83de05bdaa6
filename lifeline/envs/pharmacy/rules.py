"""The ONE place for validity: the console encoding, ``validate`` (precise messages) and the mask.

Encoding (293 actions): ``advance_round`` | ``set_allocation(level, ward, sku)`` 5 levels x 26
lines | ``order(supplier, quantity_level, sku)`` 3 x 3 x 10 | ``review_ward(ward)`` x3 |
``escalate(line)`` x26 | ``quarantine(slot)`` x4 | (v2) ``quote(supplier)`` x3 |
``return_stock(line)`` x26 | ``justify(sku)`` x10 | (issue 31) ``stat(blood sku, level)`` 3 x 4 |
``scan`` (306 in all; the first 293 indices are unchanged). The string-argument tools other than
``advance_round`` have no encoding (``encode`` raises); they are validated here all the same.

Issue 31: a console call that would change nothing is illegal (masked, a no-op that uses a
call): a ``set_allocation`` / ``stat`` giving the line / product what it has, a second ``quote``
of a supplier this round, an ``order`` of a (supplier, level, SKU) batch already on this
round's orders (``PharmacyState.ordered``), a ``review_ward`` of a ward whose every line has
this round's evidence, a ``justify`` of a SKU an unused justification filed this round already
covers. And the console does not go back: a ``set_allocation`` / ``stat`` level the line /
product had this round and left is illegal (``set_levels``, ``stat_levels``), so a console
agent cannot cycle between two levels; every end-of-round plan and authorisation is still one
call away from the round's start.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

from lifeline.core.env import Action
from lifeline.envs.pharmacy import inventory
from lifeline.envs.pharmacy.generator import STOCKED, expected_daily
from lifeline.envs.pharmacy.params import (
    CENTRAL,
    CRIT,
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
    Escalate,
    EscalateToClinicalReview,
    FileJustification,
    FinanceSapRequestApproval,
    Justify,
    MessagingSendToWard,
    Order,
    PharmacyState,
    Quarantine,
    QuarantineLot,
    QueryErp,
    QuerySupplier,
    QueryWardHistory,
    Quote,
    RequestEvidence,
    ReturnStock,
    ReviewWard,
    Scan,
    SetAllocation,
    Stat,
    SubmitAllocationPlan,
    SubmitPo,
    SupplierPortalGetQuote,
    SupplierPortalRequestQuote,
    TransferStock,
)

LEVELS = (0.0, 0.5, 0.75, 1.0, 1.25)
"""set_allocation levels, fractions of the line's request."""
ORDER_DAYS = (1.0, 2.0, 3.0)
"""order quantity levels, days of expected network demand."""
STAT_DAYS = (0.5, 1.0, 2.0, 4.0)
"""stat levels (issue 31), days of the blood product's expected network demand: STAT ships at
most 2 days of it a day, so 4 days covers a whole 2-day round."""
STAT_SKUS = (0, 1, 2)
"""The blood products STAT covers (BLOOD-RBC, BLOOD-PLT, BLOOD-FFP)."""
SAME_UNITS = 1e-9
"""A set_allocation / stat within this many units of what the line / product already has is a
no-change call, hence illegal (issue 31)."""
ALERT_SLOTS = 4
MAX_UNITS = 100_000
MAX_TEXT = 4000
MAX_PLAN = 20_000
ERP_TABLES = ("inventory", "pipeline", "purchase_orders", "budget")
ID_PATTERN = re.compile(r"\b(EVT|TCK|JUS|EV|APR)-\d+\b")
LINES: tuple[tuple[int, int], ...] = tuple((int(w), int(s)) for w, s in np.argwhere(STOCKED))
"""The 26 stocked (ward, SKU) lines in ward-major order."""
LINE_INDEX = {line: i for i, line in enumerate(LINES)}
_LW = np.array([w for w, _ in LINES])
_LS = np.array([s for _, s in LINES])
_LEVELS = np.array(LEVELS)


def stat_quantity(params: PharmacyParams, sku: int, level: int) -> float:
    """Units ``stat(sku, level)`` authorises: ``STAT_DAYS[level]`` days of expected network
    demand, rounded up."""
    return float(math.ceil(float(expected_daily(params)[:, sku].sum()) * STAT_DAYS[level]))


def order_quantity(params: PharmacyParams, sku: int, level: int) -> int:
    """Units of ``order(sku, *, level)``: ``ORDER_DAYS[level]`` days of expected network demand."""
    return max(1, round(float(expected_daily(params)[:, sku].sum()) * ORDER_DAYS[level]))


class Layout:
    """Offsets of each console action kind in the flat encoding."""

    def __init__(self, params: PharmacyParams) -> None:
        n_lines, n_levels = len(LINES), len(LEVELS)
        sizes = [("advance_round", 1), ("set_allocation", n_lines * n_levels),
                 ("order", len(SKUS) * len(SUPPLIERS) * len(ORDER_DAYS)),
                 ("review_ward", len(WARDS)), ("escalate", n_lines), ("quarantine", ALERT_SLOTS),
                 ("quote", len(SUPPLIERS)), ("return_stock", n_lines), ("justify", len(SKUS)),
                 ("stat", len(STAT_SKUS) * len(STAT_DAYS)), ("scan", 1)]
        self.offsets: dict[str, int] = {}
        start = 0
        for kind, size in sizes:
            self.offsets[kind] = start
            start += size
        self.total = start
        self.order_qty = np.array([[order_quantity(params, s, q) for q in range(len(ORDER_DAYS))]
                                   for s in range(len(SKUS))])
        """Units of ``order(sku, *, level)``."""
        self.order_cost = np.array([[[self.order_qty[s, q] * SKUS[s].unit_cost * sup.cost_mult
                                      for q in range(len(ORDER_DAYS))] for sup in SUPPLIERS]
                                    for s in range(len(SKUS))])
        """$ of ``order(sku, supplier, level)`` (sku, supplier, level)."""
        self._actions: list[Action] = [AdvanceRound()]
        # level-major / supplier-major, so the text view lists one line per (level, ward) and
        # per (supplier, quantity level) with the SKUs as the varying last argument
        self._actions += [SetAllocation(level=k, ward=w, sku=s) for k in range(n_levels)
                          for w, s in LINES]
        self._actions += [Order(supplier=p, quantity_level=q, sku=s)
                          for p in range(len(SUPPLIERS)) for q in range(len(ORDER_DAYS))
                          for s in range(len(SKUS))]
        self._actions += [ReviewWard(ward=w) for w in range(len(WARDS))]
        self._actions += [Escalate(ward=w, sku=s) for w, s in LINES]
        self._actions += [Quarantine(slot=k) for k in range(ALERT_SLOTS)]
        self._actions += [Quote(supplier=p) for p in range(len(SUPPLIERS))]
        self._actions += [ReturnStock(ward=w, sku=s) for w, s in LINES]
        self._actions += [Justify(sku=s) for s in range(len(SKUS))]
        self._actions += [Stat(sku=s, level=k) for s in STAT_SKUS for k in range(len(STAT_DAYS))]
        self._actions += [Scan()]
        self.stat_qty = np.array([[stat_quantity(params, s, k) for k in range(len(STAT_DAYS))]
                                  for s in STAT_SKUS])
        """Units of ``stat(sku, level)``."""
        self._index = {a: i for i, a in enumerate(self._actions)}
        self.order_cost_flat = self.order_cost.transpose(1, 2, 0).ravel()
        """Order costs in encoding order (supplier, level, sku)."""
        self.static_mask = np.zeros(self.total, dtype=bool)
        """The state-free part: advance_round, set_allocation, review_ward, quote, stat, scan
        (``action_mask`` then drops the no-change set_allocation, quote and stat calls)."""
        self.static_mask[0] = True
        self.static_mask[self.offsets["set_allocation"]:self.offsets["order"]] = True
        self.static_mask[self.offsets["review_ward"]:self.offsets["escalate"]] = True
        self.static_mask[self.offsets["quote"]:self.offsets["return_stock"]] = True
        if params.stat_delivery and params.stat_authorisation:
            self.static_mask[self.offsets["stat"]:self.offsets["scan"]] = True
        self.static_mask[self.offsets["scan"]] = True

    def encode(self, action: Action) -> int:
        index = self._index.get(action)
        if index is None:
            raise ValueError(f"{action!r} has no integer encoding (tool-only call or arguments "
                             f"out of range)")
        return index

    def decode(self, index: int) -> Action:
        if not 0 <= index < self.total:
            raise ValueError(f"action index {index} out of range [0, {self.total})")
        return self._actions[index]


# ----- argument checks ---------------------------------------------------------------------------
def _int(value: Any, lo: int, hi: int, what: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return f"{what} must be an integer, got {value!r}"
    if not lo <= value <= hi:
        return f"{what} {value} out of range {lo}..{hi}"
    return None


def ward_index(ward_id: str) -> int | str:
    """Index of ``ward_id`` or an error message."""
    if ward_id in WARDS:
        return WARDS.index(ward_id)
    return f"unknown ward_id {ward_id!r}; valid: {', '.join(WARDS)}"


def sku_index(sku: str) -> int | str:
    """Index of product ``sku`` or an error message."""
    if sku in SKU_NAMES:
        return SKU_NAMES.index(sku)
    return f"unknown product {sku!r}; valid: {', '.join(SKU_NAMES)}"


def supplier_index(supplier_id: str) -> int | str:
    if supplier_id in SUPPLIER_NAMES:
        return SUPPLIER_NAMES.index(supplier_id)
    return f"unknown supplier_id {supplier_id!r}; valid: {', '.join(SUPPLIER_NAMES)}"


def _line(ward_id: str, sku: str) -> tuple[int, int] | str:
    w = ward_index(ward_id)
    if isinstance(w, str):
        return w
    s = sku_index(sku)
    if isinstance(s, str):
        return s
    if not STOCKED[w, s]:
        return f"{ward_id} does not stock {sku}"
    return w, s


def _text(value: str, what: str, limit: int = MAX_TEXT) -> str | None:
    if len(value) > limit:
        return f"{what} is {len(value)} characters; at most {limit}"
    return None


def available_budget(state: PharmacyState) -> float:
    """$ not yet spent nor reserved by held or approved POs."""
    return state.budget - state.counters.spent - state.reserved


def parse_plan(state: PharmacyState, plan: str) -> dict[tuple[int, int], float] | str:
    """``{(ward, sku): units}`` of a plan's JSON, or a message saying exactly what is wrong."""
    problem = _text(plan, "plan", MAX_PLAN)
    if problem:
        return problem
    try:
        data = json.loads(plan)
    except (ValueError, RecursionError) as exc:
        return f"plan is not valid JSON ({exc}); send {{\"ward_icu\": {{\"BLOOD-RBC\": 10}}}}"
    if not isinstance(data, dict) or not data:
        return "plan must be a non-empty JSON object {ward_id: {sku: quantity}}"
    out: dict[tuple[int, int], float] = {}
    for ward_id, lines in data.items():
        if not isinstance(lines, dict):
            return f"plan[{ward_id!r}] must be an object {{sku: quantity}}"
        for sku, qty in lines.items():
            line = _line(str(ward_id), str(sku))
            if isinstance(line, str):
                return line
            if isinstance(qty, str) and qty.endswith("%"):
                try:
                    pct = float(qty[:-1])
                except ValueError:
                    return f"plan[{ward_id!r}][{sku!r}]: {qty!r} is not a percentage"
                if not (math.isfinite(pct) and 0 <= pct <= 500):
                    return f"plan[{ward_id!r}][{sku!r}]: percentage must be in 0..500"
                units = float(state.requests[line]) * pct / 100.0
            elif isinstance(qty, (int, float)) and not isinstance(qty, bool):
                units = float(qty)
                if not (math.isfinite(units) and 0 <= units <= MAX_UNITS):
                    return f"plan[{ward_id!r}][{sku!r}]: quantity must be in 0..{MAX_UNITS}"
            else:
                return (f"plan[{ward_id!r}][{sku!r}]: quantity must be a number of units or "
                        f"a string like '75%', got {qty!r}")
            out[line] = units
    return out


def alert_lots(state: PharmacyState, params: PharmacyParams) -> list[tuple[int, int, str]]:
    """Affected lots still in stock: ``(location (-1 central, else ward), sku, lot id)``."""
    out: list[tuple[int, int, str]] = []
    for ev in state.events:
        if not ev.lots or ev.announce_round > state.round:
            continue
        s = ev.sku
        places = [(-1, state.central[s])] + [(w, state.wards[w][s]) for w in range(len(WARDS))]
        for loc, lots in places:
            if lots:
                present = {lot.lot_id for lot in lots}
                out += [(loc, s, lot_id) for lot_id in ev.lots if lot_id in present]
    out.sort(key=lambda x: (x[2], x[0]))
    return out


def known_id(state: PharmacyState, token: str) -> bool:
    """Whether ``token`` (EVT-n, TCK-n, JUS-n, EV-n, APR-n) names something the agent has seen."""
    if token.startswith("EVT-"):
        return any(ev.eid == token and ev.announce_round <= state.round for ev in state.events)
    if token.startswith("TCK-"):
        return token in state.tickets
    if token.startswith("JUS-"):
        return token in state.justifications and state.justifications[token][1]
    if token.startswith("EV-"):
        return token in state.evidence_ids
    return any(po.approval_id == token for po in state.pos)


def cites_real_id(state: PharmacyState, text: str, kinds: tuple[str, ...]) -> bool:
    """The text cites at least one real id of the given kinds (checked structurally)."""
    return any(m.group(1) in kinds and known_id(state, m.group(0))
               for m in ID_PATTERN.finditer(text))


def id_skus(state: PharmacyState, token: str) -> set[int]:
    """SKUs a real id concerns: an MCI -> blood; a disruption -> every SKU; a recall or breach
    -> its SKU; a shortage ticket -> the SKU it names; evidence -> its line's SKU; a valid
    justification -> what its own citations concerned. Empty for an unknown id."""
    if not known_id(state, token):
        return set()
    if token.startswith("EVT-"):
        ev = next(e for e in state.events if e.eid == token)
        if ev.kind == "mci":
            return {s for s, sku in enumerate(SKUS) if sku.criticality == 0}
        if ev.kind == "disruption":
            return set(range(len(SKUS)))
        return {ev.sku}
    if token.startswith("TCK-"):
        text = state.tickets[token]
        return {s for s, name in enumerate(SKU_NAMES) if f" {name} " in f" {text} "}
    if token.startswith("EV-"):
        return {state.evidence_ids[token][2]}
    if token.startswith("JUS-"):
        return set(state.justification_skus.get(token, frozenset()))
    return set()


def cited_skus(state: PharmacyState, text: str, kinds: tuple[str, ...]) -> set[int]:
    """SKUs the real ids of the given kinds cited in ``text`` concern (v2: finance checks that a
    citation concerns the product ordered; v1 accepted any real id)."""
    out: set[int] = set()
    for m in ID_PATTERN.finditer(text):
        if m.group(1) in kinds:
            out |= id_skus(state, m.group(0))
    return out


def citable_id(state: PharmacyState, s: int) -> str:
    """The id the console's ``justify(s)`` cites: this round's evidence on SKU ``s``, else a
    shortage ticket naming it, else a published event concerning it ('' if none)."""
    for eid, (r, _w, k) in state.evidence_ids.items():
        if r == state.round and k == s:
            return eid
    for tid in state.tickets:
        if s in id_skus(state, tid):
            return tid
    for ev in state.events:
        if ev.announce_round <= state.round and s in id_skus(state, ev.eid):
            return ev.eid
    return ""


def return_quantity(state: PharmacyState, w: int, s: int) -> float:
    """Units the console's ``return_stock(w, s)`` moves: half the ward's stock, rounded down,
    at least 1 (all of it below 2 units)."""
    held = inventory.total(state.wards[w][s])
    return float(max(min(1.0, held), np.floor(held / 2.0)))


# ----- validate ---------------------------------------------------------------------------------
def validate(state: PharmacyState, params: PharmacyParams, layout: Layout,
             action: Action) -> str | None:
    """``None`` if ``action`` is legal now, else a message an agent (or LLM) can act on."""
    check = _VALIDATORS.get(type(action))
    if check is None:
        return None  # argument-free tools (briefing, inbox, ...) are always legal
    return check(state, params, layout, action)


def _v_plan(state: PharmacyState, params: PharmacyParams, layout: Layout,
            a: SubmitAllocationPlan) -> str | None:
    parsed = parse_plan(state, a.plan)
    if isinstance(parsed, str):
        return parsed
    return _text(a.rationale, "rationale")


def _v_ward(state: PharmacyState, params: PharmacyParams, layout: Layout,
            a: QueryWardHistory) -> str | None:
    w = ward_index(a.ward_id)
    return w if isinstance(w, str) else None


def _v_erp(state: PharmacyState, params: PharmacyParams, layout: Layout,
           a: QueryErp) -> str | None:
    if a.table not in ERP_TABLES:
        return f"unknown ERP table {a.table!r}; valid: {', '.join(ERP_TABLES)}"
    return None


def _v_supplier(state: PharmacyState, params: PharmacyParams, layout: Layout,
                a: QuerySupplier) -> str | None:
    p = supplier_index(a.supplier_id)
    return p if isinstance(p, str) else None


def _v_quote(state: PharmacyState, params: PharmacyParams, layout: Layout,
             a: SupplierPortalRequestQuote) -> str | None:
    for problem in (supplier_index(a.supplier_id), sku_index(a.product_id)):
        if isinstance(problem, str):
            return problem
    return _int(a.quantity, 1, MAX_UNITS, "quantity")


def _v_get_quote(state: PharmacyState, params: PharmacyParams, layout: Layout,
                 a: SupplierPortalGetQuote) -> str | None:
    if a.quote_id not in state.quotes:
        return f"unknown quote_id {a.quote_id!r}; request one with supplier_portal_request_quote"
    return None


def _v_approval(state: PharmacyState, params: PharmacyParams, layout: Layout,
                a: FinanceSapRequestApproval) -> str | None:
    held = [po for po in state.pos if po.approval_id == a.approval_id]
    if not held:
        return f"unknown approval_id {a.approval_id!r}"
    if held[0].status != "held":
        return f"{a.approval_id} is not awaiting approval (status {held[0].status})"
    return _text(a.justification, "justification")


def _v_message(state: PharmacyState, params: PharmacyParams, layout: Layout,
               a: MessagingSendToWard) -> str | None:
    w = ward_index(a.ward_id)
    if isinstance(w, str):
        return w
    return _text(a.body, "body")


def _v_evidence(state: PharmacyState, params: PharmacyParams, layout: Layout,
                a: RequestEvidence) -> str | None:
    if a.sku == "all":
        w = ward_index(a.ward_id)
        return w if isinstance(w, str) else None
    line = _line(a.ward_id, a.sku)
    return line if isinstance(line, str) else None


def _escalation_problem(state: PharmacyState, params: PharmacyParams, w: int,
                        s: int) -> str | None:
    if state.reviews_used >= params.reviews_per_round:
        return f"no clinical reviews left this round ({params.reviews_per_round} per round)"
    if state.requests[w, s] <= 0:
        return f"{WARDS[w]} requested no {SKU_NAMES[s]} this round"
    if state.escalated[w, s]:
        return f"{WARDS[w]} {SKU_NAMES[s]} was already escalated this round"
    return None


def _v_escalate_tool(state: PharmacyState, params: PharmacyParams, layout: Layout,
                     a: EscalateToClinicalReview) -> str | None:
    line = _line(a.ward_id, a.sku)
    if isinstance(line, str):
        return line
    return _escalation_problem(state, params, *line) or _text(a.concern, "concern")


def _v_po(state: PharmacyState, params: PharmacyParams, layout: Layout,
          a: SubmitPo) -> str | None:
    p, s = supplier_index(a.supplier_id), sku_index(a.product_id)
    for bad in (p, s):
        if isinstance(bad, str):
            return bad
    if a.destination_id != CENTRAL:
        return f"destination_id must be {CENTRAL} (wards are supplied by allocation plans)"
    problem = _int(a.quantity, 1, MAX_UNITS, "quantity")
    if problem:
        return problem
    assert isinstance(p, int) and isinstance(s, int)
    cost = a.quantity * SKUS[s].unit_cost * SUPPLIERS[p].cost_mult * (1.5 if a.expedite else 1.0)
    left = available_budget(state)
    if cost > left + 1e-6:
        return f"PO costs ${cost:,.2f} but only ${left:,.2f} of the budget is available"
    return None


def _v_justify(state: PharmacyState, params: PharmacyParams, layout: Layout,
               a: FileJustification) -> str | None:
    if not re.fullmatch(r"(EVT|TCK|APR|EV)-\d+", a.ticket_id) or not known_id(state, a.ticket_id):
        return (f"unknown ticket_id {a.ticket_id!r}: file on a published event (EVT-n), a "
                f"shortage ticket (TCK-n), evidence (EV-n) or a held PO's approval id (APR-n)")
    return _text(a.reason, "reason")


def _v_quarantine_lot(state: PharmacyState, params: PharmacyParams, layout: Layout,
                      a: QuarantineLot) -> str | None:
    s = sku_index(a.sku)
    if isinstance(s, str):
        return s
    if a.location_id == CENTRAL:
        lots = state.central[s]
    else:
        w = ward_index(a.location_id)
        if isinstance(w, str):
            return f"unknown location_id {a.location_id!r}; valid: {CENTRAL}, {', '.join(WARDS)}"
        lots = state.wards[w][s]
    if not any(lot.lot_id == a.lot_id for lot in lots):
        return f"no lot {a.lot_id!r} of {a.sku} at {a.location_id}"
    return None


def _v_stat(state: PharmacyState, params: PharmacyParams, layout: Layout,
            a: AuthorizeStat) -> str | None:
    if not (params.stat_delivery and params.stat_authorisation):
        return "authorize_stat is not available in this configuration"
    s = sku_index(a.product_id)
    if isinstance(s, str):
        return s
    if SKUS[s].criticality != CRIT:
        return f"{a.product_id} is not a blood product: STAT covers BLOOD-RBC, BLOOD-PLT, BLOOD-FFP"
    if isinstance(a.max_units, bool) or not isinstance(a.max_units, int | float) \
            or not math.isfinite(a.max_units) or not 0 <= a.max_units <= 10_000:
        return f"max_units must be a number in 0..10000, got {a.max_units!r}"
    return None


def _v_transfer(state: PharmacyState, params: PharmacyParams, layout: Layout,
                a: TransferStock) -> str | None:
    if not params.transfers:
        return "transfer_stock is not available in this configuration"
    s = sku_index(a.sku)
    if isinstance(s, str):
        return s
    w = ward_index(a.from_id)
    if isinstance(w, str):
        return f"unknown from_id {a.from_id!r}; valid: {', '.join(WARDS)}"
    if a.to_id == a.from_id:
        return "from_id and to_id must differ"
    if a.to_id != CENTRAL:
        v = ward_index(a.to_id)
        if isinstance(v, str):
            return f"unknown to_id {a.to_id!r}; valid: {CENTRAL}, {', '.join(WARDS)}"
        if not STOCKED[v, s]:
            return f"{WARDS[v]} does not stock {SKU_NAMES[s]}"
    if not STOCKED[w, s]:
        return f"{WARDS[w]} does not stock {SKU_NAMES[s]}"
    q = a.quantity
    if isinstance(q, bool) or not isinstance(q, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(q)) or q <= 0:
        return f"quantity must be a positive number, got {q!r}"
    held = inventory.total(state.wards[w][s])
    if float(q) > held + 1e-9:
        return f"{WARDS[w]} holds only {held:g} units of {SKU_NAMES[s]}"
    return None


def _v_set(state: PharmacyState, params: PharmacyParams, layout: Layout,
           a: SetAllocation) -> str | None:
    if not (type(a.ward) is int and type(a.sku) is int and type(a.level) is int  # fast path
            and (a.ward, a.sku) in LINE_INDEX and 0 <= a.level < len(LEVELS)):
        problem = (_int(a.ward, 0, len(WARDS) - 1, "ward")
                   or _int(a.sku, 0, len(SKUS) - 1, "sku")
                   or _int(a.level, 0, len(LEVELS) - 1, "level"))
        if problem:
            return problem
        if not STOCKED[a.ward, a.sku]:
            return f"{WARDS[a.ward]} does not stock {SKU_NAMES[a.sku]}"
    units = float(state.requests[a.ward, a.sku]) * LEVELS[a.level]
    if abs(float(state.plan[a.ward, a.sku]) - units) <= SAME_UNITS:
        return (f"the plan already gives {WARDS[a.ward]} {units:g} units of "
                f"{SKU_NAMES[a.sku]}: setting it again changes nothing")
    if state.set_levels[a.level, a.ward, a.sku]:
        return (f"{WARDS[a.ward]} {SKU_NAMES[a.sku]} was set to {LEVELS[a.level]:.0%} this "
                f"round and changed since: the console does not go back (choose another "
                f"level, or submit_allocation_plan for any quantity)")
    return None


def _v_order(state: PharmacyState, params: PharmacyParams, layout: Layout,
             a: Order) -> str | None:
    problem = (_int(a.sku, 0, len(SKUS) - 1, "sku")
               or _int(a.supplier, 0, len(SUPPLIERS) - 1, "supplier")
               or _int(a.quantity_level, 0, len(ORDER_DAYS) - 1, "quantity_level"))
    if problem:
        return problem
    if state.ordered[a.supplier, a.quantity_level, a.sku]:
        return (f"{ORDER_DAYS[a.quantity_level]:g} days of {SKU_NAMES[a.sku]} from "
                f"{SUPPLIER_NAMES[a.supplier]} are already on this round's orders: ordering "
                f"the same batch again changes nothing (another level or supplier adds to "
                f"it; submit_po orders an exact quantity)")
    cost = float(layout.order_cost[a.sku, a.supplier, a.quantity_level])
    left = available_budget(state)
    if cost > left + 1e-6:
        return f"order costs ${cost:,.2f} but only ${left:,.2f} of the budget is available"
    return None


def reviewed(state: PharmacyState) -> np.ndarray:
    """Per ward: every stocked line already has this round's evidence (issue 31: a review
    would return the same estimates under new ids: it changes nothing the agent can use)."""
    seen = (state.evidence_seen > 0) | ~STOCKED
    return np.asarray(seen.all(axis=1))


def _v_review(state: PharmacyState, params: PharmacyParams, layout: Layout,
              a: ReviewWard) -> str | None:
    problem = _int(a.ward, 0, len(WARDS) - 1, "ward")
    if problem:
        return problem
    if reviewed(state)[a.ward]:
        return (f"{WARDS[a.ward]} was already reviewed this round: the same evidence again "
                f"changes nothing")
    return None


def _v_escalate(state: PharmacyState, params: PharmacyParams, layout: Layout,
                a: Escalate) -> str | None:
    problem = _int(a.ward, 0, len(WARDS) - 1, "ward") or _int(a.sku, 0, len(SKUS) - 1, "sku")
    if problem:
        return problem
    if not STOCKED[a.ward, a.sku]:
        return f"{WARDS[a.ward]} does not stock {SKU_NAMES[a.sku]}"
    return _escalation_problem(state, params, a.ward, a.sku)


def _v_quarantine(state: PharmacyState, params: PharmacyParams, layout: Layout,
                  a: Quarantine) -> str | None:
    problem = _int(a.slot, 0, ALERT_SLOTS - 1, "slot")
    if problem:
        return problem
    n = len(alert_lots(state, params))
    if a.slot >= n:
        return f"alert slot {a.slot} is empty ({n} affected lots in stock)"
    return None


def quoted_this_round(state: PharmacyState) -> set[int]:
    """Suppliers with a quote requested this round: another quote from one of them states the
    same lead time (one delay draw per round and supplier), so the console's ``quote`` of it
    changes nothing the agent can observe or use (issue 31: masked)."""
    return {p for rnd, p, *_ in state.quotes.values() if rnd == state.round}


def _v_console_quote(state: PharmacyState, params: PharmacyParams, layout: Layout,
                     a: Quote) -> str | None:
    problem = _int(a.supplier, 0, len(SUPPLIERS) - 1, "supplier")
    if problem:
        return problem
    if a.supplier in quoted_this_round(state):
        return (f"{SUPPLIER_NAMES[a.supplier]} was already asked for a quote this round: "
                f"another one would state the same lead time")
    return None


def _v_return(state: PharmacyState, params: PharmacyParams, layout: Layout,
              a: ReturnStock) -> str | None:
    if not params.transfers:
        return "transfer_stock is not available in this configuration"
    problem = _int(a.ward, 0, len(WARDS) - 1, "ward") or _int(a.sku, 0, len(SKUS) - 1, "sku")
    if problem:
        return problem
    if not STOCKED[a.ward, a.sku]:
        return f"{WARDS[a.ward]} does not stock {SKU_NAMES[a.sku]}"
    if inventory.total(state.wards[a.ward][a.sku]) < 1.0:
        return f"{WARDS[a.ward]} holds less than 1 unit of {SKU_NAMES[a.sku]}"
    return None


def _v_console_justify(state: PharmacyState, params: PharmacyParams, layout: Layout,
                       a: Justify) -> str | None:
    problem = _int(a.sku, 0, len(SKUS) - 1, "sku")
    if problem:
        return problem
    if not citable_id(state, a.sku):
        return (f"nothing concerns {SKU_NAMES[a.sku]} yet: review a ward (evidence), or wait "
                f"for a shortage ticket or an event")
    if a.sku in prefiled(state):
        return (f"a justification filed this round already pre-clears {SKU_NAMES[a.sku]} and "
                f"is unused: another changes nothing until it is used (file it then)")
    return None


def prefiled(state: PharmacyState) -> set[int]:
    """SKUs an unused justification filed this round covers (issue 31: the console's
    ``justify`` of one of them is masked until that justification is used)."""
    return {s for skus in state.prefiled_skus for s in skus}


def _v_console_stat(state: PharmacyState, params: PharmacyParams, layout: Layout,
                    a: Stat) -> str | None:
    if not (params.stat_delivery and params.stat_authorisation):
        return "stat is not available in this configuration"
    problem = (_int(a.sku, 0, len(STAT_SKUS) - 1, "blood sku")
               or _int(a.level, 0, len(STAT_DAYS) - 1, "level"))
    if problem:
        return problem
    units = stat_quantity(params, a.sku, a.level)
    if abs(float(state.stat_auth[STAT_SKUS[a.sku]]) - units) <= SAME_UNITS:
        return (f"{units:g} STAT units of {SKU_NAMES[STAT_SKUS[a.sku]]} are already "
                f"authorised this round: authorising them again changes nothing")
    if state.stat_levels[a.level, a.sku]:
        return (f"{units:g} STAT units of {SKU_NAMES[STAT_SKUS[a.sku]]} were authorised this "
                f"round and changed since: the console does not go back (choose another level,"
                f" or authorize_stat for any number)")
    return None


_VALIDATORS: dict[type[Action], Any] = {
    SubmitAllocationPlan: _v_plan, QueryWardHistory: _v_ward, QueryErp: _v_erp,
    QuerySupplier: _v_supplier, SupplierPortalRequestQuote: _v_quote,
    SupplierPortalGetQuote: _v_get_quote, FinanceSapRequestApproval: _v_approval,
    MessagingSendToWard: _v_message, RequestEvidence: _v_evidence,
    EscalateToClinicalReview: _v_escalate_tool, SubmitPo: _v_po, FileJustification: _v_justify,
    QuarantineLot: _v_quarantine_lot, SetAllocation: _v_set, Order: _v_order,
    ReviewWard: _v_review, Escalate: _v_escalate, Quarantine: _v_quarantine,
    TransferStock: _v_transfer, Quote: _v_console_quote, ReturnStock: _v_return,
    Justify: _v_console_justify, AuthorizeStat: _v_stat, Stat: _v_console_stat,
}


# ----- mask -------------------------------------------------------------------------------------
def action_mask(state: PharmacyState, params: PharmacyParams, layout: Layout) -> np.ndarray:
    """Exactly the legal encoded actions (same predicates as :func:`validate`)."""
    mask = layout.static_mask.copy()
    off = layout.offsets
    # a set_allocation (stat) that gives the line (product) what it already has changes nothing
    # but the call count: illegal, so a masked learner cannot idle on it (issue 31)
    units = state.requests[_LW, _LS][None, :] * _LEVELS[:, None]
    mask[off["set_allocation"]:off["order"]] = (
        (np.abs(state.plan[_LW, _LS][None, :] - units) > SAME_UNITS)
        & ~state.set_levels[:, _LW, _LS]).ravel()
    mask[off["review_ward"]:off["escalate"]] = ~reviewed(state)
    for p in quoted_this_round(state):
        mask[off["quote"] + p] = False
    if params.stat_delivery and params.stat_authorisation:
        mask[off["stat"]:off["scan"]] = (
            (np.abs(state.stat_auth[list(STAT_SKUS)][:, None] - layout.stat_qty) > SAME_UNITS)
            & ~state.stat_levels.T).ravel()
    left = available_budget(state) + 1e-6
    # an order batch already on this round's orders changes nothing (issue 31)
    mask[off["order"]:off["review_ward"]] = (layout.order_cost_flat <= left) \
        & ~state.ordered.ravel()
    if state.reviews_used < params.reviews_per_round:
        mask[off["escalate"]:off["quarantine"]] = ((state.requests[_LW, _LS] > 0)
                                                   & ~state.escalated[_LW, _LS])
    if any(ev.lots and ev.announce_round <= state.round for ev in state.events):
        n = min(ALERT_SLOTS, len(alert_lots(state, params)))
        mask[off["quarantine"]:off["quarantine"] + n] = True
    if params.transfers:
        held = np.array([inventory.total(state.wards[w][s]) for w, s in LINES])
        mask[off["return_stock"]:off["justify"]] = held >= 1.0
    covered = prefiled(state)
    mask[off["justify"]:off["justify"] + len(SKUS)] = [s not in covered
                                                       and bool(citable_id(state, s))
                                                       for s in range(len(SKUS))]
    return mask


def lines_total(lots: list[Any]) -> float:
    """Units in a list of lots (re-exported for the views)."""
    return inventory.total(lots)
