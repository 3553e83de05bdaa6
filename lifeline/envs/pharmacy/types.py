"""State and action types of the pharmacy (MedChain) environment.

Hidden truth (true need, padding flags, hoarding pressure, the review board's estimate) lives in
:class:`PharmacyState` beside what the agent may see; observation, rendering and every tool read
only the visible fields (a test swaps the hidden ones and checks every tool's output is unchanged).

Actions: the 21 enterprise tools of the seed (string arguments, for LLM agents) and six console
actions with small integer arguments (the Gymnasium face's encoded actions, also callable as
tools). ``advance_round`` is both.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from lifeline.core.env import Action, CoreState


@dataclass(slots=True)
class Lot:
    """A quantity of one SKU with one expiry at one location (central or a ward)."""

    lot_id: str
    sku: int
    qty: float
    """Units (fractional-safe: issue and consumption are exact)."""
    expiry: int
    """Day at whose start the lot is expired (``NO_EXPIRY`` if it never expires)."""


@dataclass(slots=True)
class PurchaseOrder:
    """A PO. ``status``: held (awaiting approval), approved (placed next round), open, received."""

    po_id: str
    sku: int
    supplier: int
    qty: float
    cost: float
    """$ (charged when the PO is placed; never refunded)."""
    standard_cost: float
    """$ at standard price (for the premium paid)."""
    expedite: bool
    status: str
    approval_id: str = ""
    order_day: int = -1
    arrival_day: int = -1
    """True arrival day (hidden: includes the supplier's random delay)."""
    eta_day: int = -1
    """Arrival day at the nominal lead time (what the pipeline shows)."""

    def __setstate__(self, state: Any) -> None:
        # a restored PO's status is the interned literal the handlers assign, so a restored
        # state pickles to the same bytes as the original after the next status change
        if isinstance(state, tuple):  # default slots pickling: (None, {slot: value})
            state = state[-1]
        if isinstance(state, list):  # dataclass slots pickling: field values in order
            state = dict(zip(self.__slots__, state, strict=True))
        for key, value in state.items():
            object.__setattr__(self, key, sys.intern(value) if isinstance(value, str) else value)


@dataclass(slots=True)
class Event:
    """A scenario event: published in the inbox from ``announce_round`` on."""

    eid: str
    kind: str
    announce_round: int
    start_day: int
    end_day: int
    """Exclusive end day of the effect."""
    supplier: int = -1
    sku: int = -1
    lots: list[str] = field(default_factory=list)
    """Affected lot ids (recall / cold chain), fixed at announcement."""
    affected_units: float = 0.0
    """Units of the affected lots that existed at announcement."""
    unsafe_units: float = 0.0
    """Units of affected lots issued to wards after the announcement."""
    need: float = 0.0
    """Weighted need inside the event's window (MCI: CRIT at ICU/ER; disruption: all)."""
    served: float = 0.0


@dataclass
class Counters:
    """Outcome tallies for the grader (units unless named otherwise)."""

    need_w: float = 0.0
    """Criticality-weighted units demanded."""
    served_w: float = 0.0
    line_need: np.ndarray = field(default_factory=lambda: np.zeros((3, 10)))
    """Units demanded per (ward, SKU) line."""
    line_served: np.ndarray = field(default_factory=lambda: np.zeros((3, 10)))
    crit_need: float = 0.0
    """CRIT-SKU units demanded at ICU/ER."""
    crit_served: float = 0.0
    unmet_critical: float = 0.0
    issued_cost: float = 0.0
    """$ (standard price) of units issued to wards."""
    waste_cost: float = 0.0
    """$ (standard price) of units that expired (central or ward)."""
    waste_units: float = 0.0
    waste_sku: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2: units expired (or quarantined without cause) per SKU."""
    received_sku: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2: units delivered per SKU."""
    consumed_sku: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2: units consumed by patients per SKU."""
    quarantined_units: float = 0.0
    """Units of announced affected lots destroyed (not waste: not the agent's doing)."""
    transfers: int = 0
    transferred_units: float = 0.0
    short_days: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2: days on which some ICU/ER demand for the SKU went unmet."""
    days: int = 0
    """v2: days simulated."""
    spent: float = 0.0
    premium: float = 0.0
    """$ paid above standard price (supplier markup, expedite)."""
    escalations: int = 0
    correct_escalations: int = 0
    approval_requests: int = 0
    clean_approvals: int = 0
    bad_justifications: int = 0
    large_pos: int = 0
    emergency_sku: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2 round 2: blood units central issued the same day to a ward that ran out, per SKU."""
    stat_sku: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2 round 2: blood units delivered STAT by the regional supplier, per SKU."""
    stockout_days: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2 round 3: days on which the hospital's own stock (fridges and blood bank) could not
    serve some ICU/ER demand for the SKU: STAT was needed, or the need went unmet."""
    stat_refused: float = 0.0
    """v2 round 3: blood units a STAT order would have served but no authorisation covered."""
    stat_shipments: int = 0
    stat_cost: float = 0.0
    """$ charged for STAT shipments (also in ``spent``; the markup and fees in ``premium``)."""
    crossmatched: float = 0.0
    """Red-cell units crossmatched (reserved for a patient)."""
    held_returned: float = 0.0
    """Crossmatched red cells released untransfused back to central."""
    held_expired: float = 0.0
    """Crossmatched red cells that expired while held (also in the waste)."""


@dataclass
class PharmacyState(CoreState):
    """Everything needed to step the supply network (RNG streams included)."""

    round: int = 0
    calls_used: int = 0
    """Tool calls used in this round."""
    reviews_used: int = 0
    central: list[list[Lot]] = field(default_factory=list)
    """Central lots per SKU, kept in first-expiry-first-out order."""
    wards: list[list[list[Lot]]] = field(default_factory=list)
    """Ward lots per ward per SKU (FEFO order)."""
    daily: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: realised demand (day, ward, SKU), units."""
    noise: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: pre-drawn actor noise (round, ward, SKU, 6) for common random numbers."""
    net_need: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: this round's need net of usable ward stock (ward, SKU)."""
    padded: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: the request of (ward, SKU) was padded this round."""
    review_est: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: the review board's estimate of the round's gross need."""
    pressure: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: hoarding pressure per ward in [0, 1]."""
    trust: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: ward trust in the pharmacy, [0, 1] (low trust -> more redaction)."""
    # ----- visible -------------------------------------------------------------------------
    requests: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """This round's requests (ward, SKU), units."""
    justification: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Index of the justification text each request line came with."""
    evidence_est: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Evidence: noisy clinical estimate of the round's gross need (ward, SKU) (once requested)."""
    on_hand: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Ward-reported usable stock at the round start (ward, SKU)."""
    redacted: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """The ward will redact the estimate if asked (decided at round start)."""
    evidence_seen: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """0 not requested, 1 shown, 2 redacted (ward, SKU)."""
    evidence_ids: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """Evidence record id -> (round, ward, SKU)."""
    verdicts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """0 none, 1 APPROVE, 2 REDUCE, 3 DENY (ward, SKU)."""
    plan: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Draft allocation of this round (ward, SKU), units."""
    plan_rationale: str = ""
    history: list[np.ndarray] = field(default_factory=list)
    """Per past round: [requests, issued, recorded consumption] stacked (3, ward, SKU)."""
    pre_history: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Synthetic 8-round history before the episode (round, 2, ward, SKU): request, consumption."""
    erp_stock: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """ERP view of central stock per SKU: the end of the previous round (stale)."""
    erp_expiring: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """ERP: units per SKU expiring within two rounds of that snapshot."""
    wms_seen: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Totals per SKU of the last WMS scan (noisy, live when scanned; -1 = never scanned)."""
    wms_round: int = -1
    """Round of the last WMS scan (issue 31: the observation shows a scan of this round only)."""
    pos: list[PurchaseOrder] = field(default_factory=list)
    quotes: dict[str, tuple[int, int, int, float, float, int]] = field(default_factory=dict)
    """Quote id -> (requested round, supplier, SKU, qty, price $, lead days)."""
    events: list[Event] = field(default_factory=list)
    tickets: dict[str, str] = field(default_factory=dict)
    """Shortage ticket id -> description (opened by wards after a critical shortfall)."""
    justifications: dict[str, tuple[int, bool]] = field(default_factory=dict)
    justification_skus: dict[str, frozenset[int]] = field(default_factory=dict)
    """Valid justification id -> the SKUs its citations concern."""
    """Justification id -> (round filed, cites a real id)."""
    prefiled: int = 0
    """Valid justifications filed this round not yet used by a large PO."""
    budget: float = 0.0
    """Total budget of the episode, $."""
    reserved: float = 0.0
    """$ reserved by held and approved POs (charged when placed, released if cancelled)."""
    counters: Counters = field(default_factory=Counters)
    holds: list[tuple[int, Lot]] = field(default_factory=list)
    """v2 round 2: crossmatched red cells held for a patient: (release day, lot part)."""
    stat_auth: np.ndarray = field(default_factory=lambda: np.zeros(10))
    """v2 round 3: STAT units per SKU the agent authorised this round (``authorize_stat``) and
    not yet shipped."""
    systems: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Enterprise systems used (ERP, WMS, supplier portal, finance, messaging)."""
    overview_calls: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Briefing/requests/inbox calls per round."""
    cited: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Per round: the plan's rationale cited this round's evidence."""
    escalated: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """(ward, SKU) escalated this round."""
    serial: int = 0
    """Counter for ids (POs, quotes, evidence, tickets, ...)."""
    last_result: str = ""
    """Output of the last tool call (shown in the text view)."""
    last_score: float = 0.0
    rng: dict[str, np.random.Generator] = field(default_factory=dict)
    # ----- v2 ------------------------------------------------------------------------------
    surges: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: unannounced surge multiplier (day, ward)."""
    supplier_delay: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: days late of shipments ordered in (round, supplier) (a quote reveals them)."""
    delivered_life: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: remaining-life fraction of the (round ordered, supplier, SKU) shipment."""
    ward_noise: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Hidden: ward-level census noise per (round, ward)."""
    supplier_spend: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """$ of POs submitted per (round, supplier) (finance judges the round's spend)."""
    supplier_cleared: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """(round, supplier, SKU) cleared for the round's further orders by a valid justification."""
    messaged: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Ward already given request feedback this round."""
    census_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Ward-level activity this round relative to normal (census/acuity of the evidence): the
    ward's true total demand / expected x exp(N(0, 0.1)); one number per ward, so it says
    nothing about one line's estimate (v2: v1 encoded the line's redacted estimate in it)."""
    prefiled_skus: list[frozenset[int]] = field(default_factory=list)
    """Valid justifications filed this round, not yet used: the SKUs each one's citations
    concern (a justification pre-approves one supplier's round of orders for those SKUs)."""
    ordered: np.ndarray = field(default_factory=lambda: np.zeros((3, 3, 10), dtype=bool))
    """Issue 31: (supplier, quantity level, SKU) batches the console's ``order`` put on this
    round's orders (a batch is on them or not: ordering it again changes nothing)."""
    set_levels: np.ndarray = field(default_factory=lambda: np.zeros((5, 3, 10), dtype=bool))
    """Issue 31: (level, ward, SKU) the console's ``set_allocation`` chose this round (the
    console does not go back to a level a line had and left: no cycling)."""
    stat_levels: np.ndarray = field(default_factory=lambda: np.zeros((4, 3), dtype=bool))
    """Issue 31: (level, blood SKU) the console's ``stat`` chose this round (likewise)."""

    @property
    def day(self) -> int:
        """First day of the current round."""
        return self.round * 2


def _arg(doc: str, default: Any = None) -> Any:
    if default is None:
        return field(metadata={"doc": doc})
    return field(default=default, metadata={"doc": doc})


_WARD = "ward id: ward_icu, ward_er or ward_general"
_SKU = "product id, e.g. BLOOD-RBC"
_SUP = "supplier id: MEDLINE, BACKUP-B or FASTMED"


# ----- coordination ----------------------------------------------------------------------------
@dataclass(frozen=True)
class GetRoundBriefing(Action):
    """Dashboard of the round: budget, open events, requests and stock summary (read-only)."""

    kind: ClassVar[str] = "get_round_briefing"


@dataclass(frozen=True)
class ViewRequests(Action):
    """This round's ward requests per SKU with each ward's justification (read-only)."""

    kind: ClassVar[str] = "view_requests"


@dataclass(frozen=True)
class ReadInbox(Action):
    """Alerts: events (EVT-n), shortage tickets (TCK-n), quote and approval notices (read-only)."""

    kind: ClassVar[str] = "read_inbox"


@dataclass(frozen=True)
class SubmitAllocationPlan(Action):
    """Set lines of this round's allocation plan (issued first-expiry-first-out at advance_round).

    ``plan`` is a JSON object ``{ward_id: {sku: quantity}}``; a quantity is a number of units or a
    string such as ``"75%"`` (of that line's request). Later calls in the same round override the
    lines they name; lines never set are allocated 0. ``rationale`` should cite evidence ids
    (``EV-n``) obtained this round.
    """

    kind: ClassVar[str] = "submit_allocation_plan"
    plan: str = _arg("JSON object {ward_id: {sku: units or 'NN%'}}")
    rationale: str = _arg("why; cite evidence ids such as EV-12", "")


@dataclass(frozen=True)
class AdvanceRound(Action):
    """Issue the plan and simulate two days (consumption, deliveries, expiry, events)."""

    kind: ClassVar[str] = "advance_round"


# ----- investigation ---------------------------------------------------------------------------
@dataclass(frozen=True)
class QueryWardHistory(Action):
    """A ward's past requests, issues and recorded consumption per SKU (read-only)."""

    kind: ClassVar[str] = "query_ward_history"
    ward_id: str = _arg(_WARD)


@dataclass(frozen=True)
class QueryErp(Action):
    """Query an ERP table: inventory, pipeline, purchase_orders or budget (read-only, stale)."""

    kind: ClassVar[str] = "query_erp"
    table: str = _arg("inventory, pipeline, purchase_orders or budget")


@dataclass(frozen=True)
class QuerySupplier(Action):
    """A supplier's catalogue terms: lead time, price multiplier, published status (read-only)."""

    kind: ClassVar[str] = "query_supplier"
    supplier_id: str = _arg(_SUP)


# ----- enterprise systems ----------------------------------------------------------------------
@dataclass(frozen=True)
class ErpOracleGetInventory(Action):
    """ERP central inventory per SKU: authoritative but as of the end of the last round."""

    kind: ClassVar[str] = "erp_oracle_get_inventory"


@dataclass(frozen=True)
class ErpOracleGetPipeline(Action):
    """ERP purchase pipeline: open, held and approved POs with expected arrival days."""

    kind: ClassVar[str] = "erp_oracle_get_pipeline"


@dataclass(frozen=True)
class WmsScanInventory(Action):
    """Live warehouse scan of central lots with expiry; each lot count has +-5% scan noise."""

    kind: ClassVar[str] = "wms_scan_inventory"


@dataclass(frozen=True)
class SupplierPortalRequestQuote(Action):
    """Ask a supplier for a quote (price and current lead time); it arrives next round."""

    kind: ClassVar[str] = "supplier_portal_request_quote"
    supplier_id: str = _arg(_SUP)
    product_id: str = _arg(_SKU)
    quantity: int = _arg("units, 1..100000")


@dataclass(frozen=True)
class SupplierPortalGetQuote(Action):
    """Read a quote by id (Q-n); pending until the round after it was requested."""

    kind: ClassVar[str] = "supplier_portal_get_quote"
    quote_id: str = _arg("quote id, e.g. Q-4")


@dataclass(frozen=True)
class FinanceSapGetBudget(Action):
    """Budget: total, spent (POs placed are charged, never refunded), reserved, remaining."""

    kind: ClassVar[str] = "finance_sap_get_budget"


@dataclass(frozen=True)
class FinanceSapRequestApproval(Action):
    """Ask finance to release a held PO (APR-n); the justification must cite a real id.

    Accepted citations: a published event (EVT-n), a shortage ticket (TCK-n) or a filed
    justification (JUS-n). An approved PO is placed at the start of the next round.
    """

    kind: ClassVar[str] = "finance_sap_request_approval"
    approval_id: str = _arg("approval id, e.g. APR-3")
    justification: str = _arg("text citing EVT-n, TCK-n or JUS-n")


@dataclass(frozen=True)
class MessagingSendToWard(Action):
    """Send a message to a ward; the ward answers in character (no effect on stock)."""

    kind: ClassVar[str] = "messaging_send_to_ward"
    ward_id: str = _arg(_WARD)
    body: str = _arg("message text")


# ----- audit -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RequestEvidence(Action):
    """Ask a ward for evidence on a request: census, acuity, on-hand stock, clinical estimate.

    Returns evidence ids (EV-n) to cite. A ward may redact its estimate; redaction is a signal.
    ``sku`` may be ``all``.
    """

    kind: ClassVar[str] = "request_evidence"
    ward_id: str = _arg(_WARD)
    sku: str = _arg("product id or 'all'")


@dataclass(frozen=True)
class EscalateToClinicalReview(Action):
    """Send a request line to the clinical review board (limited per round).

    Verdict APPROVE / REDUCE / DENY from the board's own noisy estimate; it never states a
    quantity. Escalating an honest request costs that ward's trust.
    """

    kind: ClassVar[str] = "escalate_to_clinical_review"
    ward_id: str = _arg(_WARD)
    sku: str = _arg(_SKU)
    concern: str = _arg("why the request looks wrong", "")


# ----- procurement ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SubmitPo(Action):
    """Place a purchase order to the central pharmacy (charged now; finance approval when the
    round's spend with the supplier passes $10k, however the orders are split).

    With a valid justification for the product filed this round (file_justification) it is placed
    at once; otherwise it is held (APR-n) until finance_sap_request_approval releases it next round.
    ``expedite``: x1.5 price, lead time -2 days (at least 1).
    """

    kind: ClassVar[str] = "submit_po"
    supplier_id: str = _arg(_SUP)
    product_id: str = _arg(_SKU)
    destination_id: str = _arg("must be CENTRAL")
    quantity: int = _arg("units, 1..100000")
    expedite: bool = _arg("pay x1.5 for 2 days less lead time", False)


@dataclass(frozen=True)
class FileJustification(Action):
    """File a finance justification on an existing id (EVT-n, TCK-n, EV-n or APR-n).

    Finance judges the spend per supplier per round: an order that takes a supplier's round
    above $10k needs a justification filed this round whose reason cites real ids *concerning
    that product* (an MCI: blood; a disruption: any; a recall/breach: its product; a shortage
    ticket or evidence record: its product). It clears that supplier for those products for
    the rest of the round.
    """

    kind: ClassVar[str] = "file_justification"
    ticket_id: str = _arg("EVT-n, TCK-n, EV-n or APR-n")
    reason: str = _arg("text citing EVT-n / TCK-n / EV-n")


@dataclass(frozen=True)
class QuarantineLot(Action):
    """Quarantine a lot at a location (recalled or cold-chain-breached stock); it is destroyed."""

    kind: ClassVar[str] = "quarantine_lot"
    location_id: str = _arg("CENTRAL or a ward id")
    sku: str = _arg(_SKU)
    lot_id: str = _arg("lot id, e.g. L-3-1")


@dataclass(frozen=True)
class TransferStock(Action):
    """Move stock between wards that stock the SKU, or back to CENTRAL (v2), FEFO, at once.

    For a ward holding more than it will use (a granted padded request, a surge that ended)
    while another runs short, or central is empty. Moving stock costs a tool call, no money.
    """

    kind: ClassVar[str] = "transfer_stock"
    from_id: str = _arg("ward id (the source)")
    to_id: str = _arg("ward id or CENTRAL (the destination)")
    sku: str = _arg(_SKU)
    quantity: float = _arg("units, > 0 (at most what the source holds)")


@dataclass(frozen=True)
class AuthorizeStat(Action):
    """Authorise the blood bank to order up to ``max_units`` of a blood product STAT this round
    (v2 round 3): when a patient's need finds the ward fridge and central empty, the regional
    supplier ships the missing units the same day at 2 x the standard price + $300 a shipment.
    Without an authorisation no STAT order is placed; a later call replaces the number."""

    kind: ClassVar[str] = "authorize_stat"
    product_id: str = _arg("BLOOD-RBC, BLOOD-PLT or BLOOD-FFP")
    max_units: float = _arg("units, >= 0 (0 withdraws the authorisation)")


# ----- console actions (the Gymnasium face; integer arguments) ------------------------------
@dataclass(frozen=True)
class SetAllocation(Action):
    """Console: set plan line (ward, sku) to a level of its request: 0/50/75/100/125 %."""

    kind: ClassVar[str] = "set_allocation"
    level: int = _arg("0..4 = 0/50/75/100/125 % of the request")
    ward: int = _arg("0 ICU, 1 ER, 2 General")
    sku: int = _arg("SKU index 0..9")


@dataclass(frozen=True)
class Order(Action):
    """Console: put a batch of 1/2/3 days of expected network demand on this round's orders
    from a supplier (a PO to central, placed at once). Each (supplier, level, SKU) batch is on
    the round's orders or not: ordering it again changes nothing (illegal, masked); another
    level or supplier adds to it (issue 31; ``submit_po`` orders an exact quantity)."""

    kind: ClassVar[str] = "order"
    supplier: int = _arg("0 MEDLINE, 1 BACKUP-B, 2 FASTMED")
    quantity_level: int = _arg("0..2 = 1/2/3 days of expected demand")
    sku: int = _arg("SKU index 0..9")


@dataclass(frozen=True)
class ReviewWard(Action):
    """Console: request evidence on every line of one ward."""

    kind: ClassVar[str] = "review_ward"
    ward: int = _arg("0 ICU, 1 ER, 2 General")


@dataclass(frozen=True)
class Escalate(Action):
    """Console: escalate line (ward, sku) to clinical review."""

    kind: ClassVar[str] = "escalate"
    ward: int = _arg("0 ICU, 1 ER, 2 General")
    sku: int = _arg("SKU index 0..9")


@dataclass(frozen=True)
class Quarantine(Action):
    """Console: quarantine the lot in alert slot ``slot`` (the inbox lists affected lots)."""

    kind: ClassVar[str] = "quarantine"
    slot: int = _arg("alert slot 0..3")


@dataclass(frozen=True)
class Quote(Action):
    """Console (v2): ask a supplier for a quote; the lead time it states for orders placed next
    round appears in the observation's ``quoted_lead`` then (``supplier_portal_request_quote``
    for one platelet unit)."""

    kind: ClassVar[str] = "quote"
    supplier: int = _arg("0 MEDLINE, 1 BACKUP-B, 2 FASTMED")


@dataclass(frozen=True)
class ReturnStock(Action):
    """Console (v2): ``transfer_stock`` half (rounded down, at least 1 unit) of a ward's stock
    of a SKU back to CENTRAL, where the plan re-issues it first-expiry-first-out."""

    kind: ClassVar[str] = "return_stock"
    ward: int = _arg("0 ICU, 1 ER, 2 General")
    sku: int = _arg("SKU index 0..9")


@dataclass(frozen=True)
class Justify(Action):
    """Console (v2): ``file_justification`` for a SKU, citing the first id this round that
    concerns it (this round's evidence on it, else a shortage ticket, else a published event):
    it pre-clears one supplier's orders of the SKU past the approval threshold this round."""

    kind: ClassVar[str] = "justify"
    sku: int = _arg("SKU index 0..9")


@dataclass(frozen=True)
class Stat(Action):
    """Console (issue 31): ``authorize_stat`` for a blood product, ``rules.STAT_DAYS[level]``
    days of its expected network demand (rounded up) for the rest of the round; a later call
    replaces the number."""

    kind: ClassVar[str] = "stat"
    sku: int = _arg("blood SKU index 0 BLOOD-RBC, 1 BLOOD-PLT, 2 BLOOD-FFP")
    level: int = _arg("0..3 = 0.5/1/2/4 days of expected network demand")


@dataclass(frozen=True)
class Scan(Action):
    """Console (issue 31): ``wms_scan_inventory``; the observation's ``scanned_stock`` then
    shows the live central stock per SKU (+-5 % per lot) for the rest of the round."""

    kind: ClassVar[str] = "scan"


TOOL_TYPES: tuple[type[Action], ...] = (
    GetRoundBriefing, ViewRequests, ReadInbox, SubmitAllocationPlan, AdvanceRound,
    QueryWardHistory, QueryErp, QuerySupplier,
    ErpOracleGetInventory, ErpOracleGetPipeline, WmsScanInventory, SupplierPortalRequestQuote,
    SupplierPortalGetQuote, FinanceSapGetBudget, FinanceSapRequestApproval, MessagingSendToWard,
    RequestEvidence, EscalateToClinicalReview,
    SubmitPo, FileJustification, QuarantineLot, TransferStock, AuthorizeStat,
)
"""The seed's 21 tools, v2's ``transfer_stock`` (the ward-to-ward transfer the seed promised)
and (round 3) ``authorize_stat``."""
CONSOLE_TYPES: tuple[type[Action], ...] = (SetAllocation, Order, ReviewWard, Escalate, Quarantine,
                                           Quote, ReturnStock, Justify, Stat, Scan)
ACTION_TYPES: tuple[type[Action], ...] = (*CONSOLE_TYPES, *TOOL_TYPES)
"""Console actions first (small integer arguments), then the 21 tools."""
READ_ONLY: tuple[type[Action], ...] = (
    GetRoundBriefing, ViewRequests, ReadInbox, QueryWardHistory, QueryErp, QuerySupplier,
    ErpOracleGetInventory, ErpOracleGetPipeline, WmsScanInventory, SupplierPortalGetQuote,
    FinanceSapGetBudget, Scan,
)
"""Queries: they cost one tool call of the round's budget and no simulated time."""
