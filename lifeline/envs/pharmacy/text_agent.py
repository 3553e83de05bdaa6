"""Pharmacy ``text_heuristic``: the base-stock policy played from the text (tool results) alone.

Pharmacy's text view is short by design: the round, the budget, the published events, the
quarantine slots and the **last tool's output**; the tables are read with tools. So this policy
plays :class:`BaseStockAgent`'s round script and remembers what its own tools returned —
``view_requests`` (the per-line requests), ERP inventory, the WMS scan, the finance budget, the
evidence and review verdicts, its POs with their expected days — exactly as an LLM keeping its
conversation would. It then calls the base-stock helpers (:func:`evidence_allocation`,
:func:`suspicion`, :func:`replenish`) on a :class:`Seen` record of those strings.

One deliberate difference: base-stock reads the per-line requests without a tool call and opens
the round with ``get_round_briefing``; here the round opens with ``view_requests`` instead (both
are the round's one overview call, so briefing efficiency and tool discovery are unchanged, and
the briefing's other lines are in the text view or in the tools called next).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from lifeline.core.agent import TextPolicy
from lifeline.core.env import Action
from lifeline.core.registry import make
from lifeline.envs.pharmacy.baselines import (
    BaseStockAgent,
    feedback_messages,
    own_round_issue,
    plan_call,
    pool_returns,
    quoted_leads,
    replenish,
    stat_calls,
    surplus_returns,
    suspicion,
    weekend_transfers,
    with_justifications,
)
from lifeline.envs.pharmacy.dynamics import VERDICTS
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.generator import N_SKUS, N_WARDS, restocks
from lifeline.envs.pharmacy.params import CENTRAL, SKU_NAMES, SUPPLIER_NAMES, WARD_NAMES, WARDS
from lifeline.envs.pharmacy.types import (
    AdvanceRound,
    ErpOracleGetInventory,
    ErpOracleGetPipeline,
    EscalateToClinicalReview,
    FinanceSapGetBudget,
    QuarantineLot,
    QuerySupplier,
    RequestEvidence,
    SubmitPo,
    SupplierPortalGetQuote,
    SupplierPortalRequestQuote,
    ViewRequests,
    WmsScanInventory,
)
from lifeline.faces.tools import as_tool_call

_SKU = {n: i for i, n in enumerate(SKU_NAMES)}
_WARD = {n: i for i, n in enumerate(WARDS)}
_ROUND = re.compile(r"round (\d+)/(\d+)")
_REQUEST = re.compile(r"^(\w+) ([\w-]+): ([\d.]+) units")
_ERP = re.compile(r"([\w-]+) ([\d.]+) \(expiring soon ([\d.]+)\)")
_WMS = re.compile(r"([\w-]+): ([^;]*)")
_BUDGET = re.compile(r"available \$([\d,.]+)")
_EVIDENCE = re.compile(r"^(EV-\d+) (\w+) ([\w-]+): census \d+, (?:acuity [\d.]+, )?on hand "
                       r"([\d.]+), \d+-day clinical estimate (?:([\d.]+) units|REDACTED)")
_QUOTE_ASKED = re.compile(r"^(Q-\d+) requested from ([\w-]+)")
_QUOTE = re.compile(r"^(Q-\d+): ([\w-]+) ([\w-]+) ([\d.]+) units at \$([\d,.]+)/unit, lead time "
                    r"(\d+) days \(as quoted in round (\d+)\)")
_PIPELINE = re.compile(r"(PO-\d+) [\w-]+ [\d.]+ from [\w-]+ (\w+)")
_VERDICT = re.compile(r"clinical review of (\w+) ([\w-]+): (\w+)")
_PLACED = re.compile(r"^(PO-\d+) placed: ([\d.]+) ([\w-]+) from [\w-]+, .*expected day (\d+)")
_HELD = re.compile(r"^(PO-\d+) \(([\d.]+) ([\w-]+) from")
_MCI = re.compile(r"^EVT-\d+ \[\w+\] MASS CASUALTY INCIDENT expected days (\d+)-(\d+)")
_DISRUPTION = re.compile(r"^EVT-\d+ \[\w+\] SUPPLIER DISRUPTION at ([\w-]+) days (\d+)-(\d+)")
_SLOT = re.compile(r"\d+: (\w+) ([\w-]+) ([^,\s]+)")


@dataclass
class _Event:
    """A published event as the text states it (what the base-stock helpers read)."""

    kind: str
    start_day: int
    end_day: int
    supplier: int = -1
    announce_round: int = 0


@dataclass
class _Order:
    sku: int
    qty: float
    arrival_day: int
    status: str = "open"
    po_id: str = ""


@dataclass
class _Counters:
    spent: float = 0.0


@dataclass
class Seen:
    """Everything the policy has read, in the shape of the state fields the helpers use."""

    round: int = 0
    requests: np.ndarray = field(default_factory=lambda: np.zeros((N_WARDS, N_SKUS)))
    evidence_est: np.ndarray = field(default_factory=lambda: np.zeros((N_WARDS, N_SKUS)))
    on_hand: np.ndarray = field(default_factory=lambda: np.zeros((N_WARDS, N_SKUS)))
    evidence_seen: np.ndarray = field(
        default_factory=lambda: np.zeros((N_WARDS, N_SKUS), dtype=np.int64))
    verdicts: np.ndarray = field(
        default_factory=lambda: np.zeros((N_WARDS, N_SKUS), dtype=np.int64))
    evidence_ids: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    erp_stock: np.ndarray = field(default_factory=lambda: np.zeros(N_SKUS))
    erp_expiring: np.ndarray = field(default_factory=lambda: np.zeros(N_SKUS))
    wms_seen: np.ndarray = field(default_factory=lambda: np.full(N_SKUS, -1.0))
    pos: list[_Order] = field(default_factory=list)
    events: list[_Event] = field(default_factory=list)
    budget: float = 0.0
    """Available budget as last read (``counters.spent`` and ``reserved`` stay 0)."""
    reserved: float = 0.0
    counters: _Counters = field(default_factory=_Counters)
    quotes: dict[str, tuple[int, int, int, float, float, int]] = field(default_factory=dict)
    """Quote id -> (round requested, supplier, SKU, qty, price, lead days; -1 until read)."""
    supplier_spend: np.ndarray = field(default_factory=lambda: np.zeros((64, 3)))
    """$ of this policy's POs per (round, supplier) (0 before the round's orders)."""
    tickets: dict[str, str] = field(default_factory=dict)

    def new_round(self, rnd: int) -> None:
        self.round = rnd
        self.evidence_seen[:] = 0
        self.verdicts[:] = 0
        for po in self.pos:
            if po.status == "held":
                po.status = "cancelled"


class PharmacyTextPolicy(TextPolicy):
    """Base-stock's round script, fed by the tool results it reads in the text."""

    def __init__(self, env_name: str, scenario: str) -> None:
        super().__init__(env_name, scenario)
        env = make(env_name, scenario)  # the public catalogue, suppliers and parameters only
        assert isinstance(env, PharmacyEnv)
        self.params = env.params
        self.slack = BaseStockAgent.slack
        self._reference = BaseStockAgent()
        self.seen = Seen()
        self._round = -1
        self._phase = 0
        self._queue: list[Action] = []
        self._last: Action | None = None
        self._quarantined: list[Action] = []

    # ----- reading -------------------------------------------------------------------------------
    def _read_view(self, text: str) -> str:
        """Round, events and the last tool result (returned) from the text view."""
        head = text.partition("\n")[0]
        m = _ROUND.search(head)
        rnd = int(m.group(1)) - 1 if m else 0
        if rnd != self.seen.round:
            self.seen.new_round(rnd)
        events: list[_Event] = []
        body = text.split("\nLegal actions", 1)[0]
        result = body.split("\nLast tool result:\n", 1)[1] if "\nLast tool result:\n" in body \
            else ""
        for line in body.splitlines():
            if (em := _MCI.match(line)) is not None:
                events.append(_Event("mci", int(em.group(1)), int(em.group(2)) + 1))
            elif (dm := _DISRUPTION.match(line)) is not None:
                events.append(_Event("disruption", int(dm.group(2)), int(dm.group(3)) + 1,
                                     SUPPLIER_NAMES.index(dm.group(1))))
        self.seen.events = events
        return result

    def _read_result(self, action: Action | None, result: str) -> None:
        """Record what the tool we called last returned."""
        s = self.seen
        if isinstance(action, ViewRequests):
            s.requests[:] = 0
            for line in result.splitlines():
                if (m := _REQUEST.match(line)) is not None:
                    s.requests[_WARD[m.group(1)], _SKU[m.group(2)]] = float(m.group(3))
        elif isinstance(action, ErpOracleGetInventory):
            for m in _ERP.finditer(result):
                s.erp_stock[_SKU[m.group(1)]] = float(m.group(2))
                s.erp_expiring[_SKU[m.group(1)]] = float(m.group(3))
        elif isinstance(action, WmsScanInventory):
            for m in _WMS.finditer(result.split(": ", 1)[-1]):
                if m.group(1) in _SKU:
                    s.wms_seen[_SKU[m.group(1)]] = float(sum(
                        float(v) for v in re.findall(r"~([\d.]+)", m.group(2))))
        elif isinstance(action, FinanceSapGetBudget):
            if (m := _BUDGET.search(result)) is not None:
                s.budget = float(m.group(1).replace(",", ""))
        elif isinstance(action, RequestEvidence):
            for line in result.splitlines():
                if (m := _EVIDENCE.match(line)) is not None:
                    w, k = _WARD[m.group(2)], _SKU[m.group(3)]
                    s.evidence_ids[m.group(1)] = (s.round, w, k)
                    s.on_hand[w, k] = float(m.group(4))
                    if m.group(5) is None:
                        s.evidence_seen[w, k] = 2
                    else:
                        s.evidence_seen[w, k] = 1
                        s.evidence_est[w, k] = float(m.group(5))
        elif isinstance(action, EscalateToClinicalReview):
            if (m := _VERDICT.search(result)) is not None and m.group(3) in VERDICTS:
                s.verdicts[_WARD[m.group(1)], _SKU[m.group(2)]] = VERDICTS.index(m.group(3))
        elif isinstance(action, SubmitPo):
            if (m := _PLACED.match(result)) is not None:
                s.pos.append(_Order(_SKU[m.group(3)], float(m.group(2)), int(m.group(4)),
                                    po_id=m.group(1)))
            elif (m := _HELD.match(result)) is not None:
                s.pos.append(_Order(_SKU[m.group(3)], float(m.group(2)), 10**9, "held",
                                    m.group(1)))
        elif isinstance(action, ErpOracleGetPipeline):
            still = {m.group(1) for m in _PIPELINE.finditer(result)
                     if m.group(2) in ("open", "held", "approved")}
            for po in s.pos:  # what the ERP no longer lists has been received (or cancelled)
                if po.status == "open" and po.po_id not in still:
                    po.status = "received"
        elif isinstance(action, SupplierPortalRequestQuote):
            if (m := _QUOTE_ASKED.match(result)) is not None:
                s.quotes[m.group(1)] = (s.round, SUPPLIER_NAMES.index(m.group(2)),
                                        _SKU[action.product_id], float(action.quantity), 0.0, -1)
        elif isinstance(action, SupplierPortalGetQuote) and (m := _QUOTE.match(result)):
            s.quotes[m.group(1)] = (int(m.group(7)) - 1, SUPPLIER_NAMES.index(m.group(2)),
                                    _SKU[m.group(3)], float(m.group(4)),
                                    float(m.group(5).replace(",", "")), int(m.group(6)))

    # ----- the script ----------------------------------------------------------------------------
    def _phase_calls(self, k: int, text: str) -> list[Action] | None:
        s, p = self.seen, self.params
        if k == 0:
            quotes: list[Action] = []
            if self._reference.use_quotes:  # as base-stock: read last round's, ask for next
                quotes = [SupplierPortalGetQuote(q) for q, v in s.quotes.items()
                          if v[0] == s.round - 1]
                if s.round < p.rounds - 2:
                    quotes.append(SupplierPortalRequestQuote("MEDLINE", "BLOOD-RBC", 1))
            return [ViewRequests(), ErpOracleGetInventory(), ErpOracleGetPipeline(),
                    WmsScanInventory(), FinanceSapGetBudget(), *quotes,
                    *[RequestEvidence(w, "all") for w in WARDS]]
        if k == 1:
            sus = suspicion(s)  # type: ignore[arg-type]
            worst = np.argsort(-sus, axis=None)[:p.reviews_per_round]
            calls: list[Action] = []
            for flat in worst:
                w, sku = divmod(int(flat), N_SKUS)
                if sus[w, sku] > self.slack:
                    calls.append(EscalateToClinicalReview(WARDS[w], SKU_NAMES[sku],
                                                          "request above the evidence"))
            return calls or [QuerySupplier(SUPPLIER_NAMES[0])]
        if k == 2:  # quarantine what the slots show (repeated while new lots appear), then
            # scan again so that the order position leaves the quarantined lots out
            fresh = [q for q in self._quarantines(text) if q not in self._quarantined]
            self._quarantined += fresh
            if fresh:
                self._phase -= 1  # look at the slots again afterwards
                return fresh
            return [WmsScanInventory()] if self._quarantined else []
        if k == 3:  # base-stock's allocation, returns, orders and justifications on the record
            ref = self._reference
            alloc = ref.allocation(s, p)  # type: ignore[arg-type]
            cite = " ".join([e for e, (r, _, _) in s.evidence_ids.items() if r == s.round][:6])
            moves = surplus_returns(s, alloc) if p.transfers else []  # type: ignore[arg-type]
            if ref.pool_skus:  # the plan cut applies either way; the returns need transfers
                pooled = pool_returns(s, alloc, ref.pool_skus,  # type: ignore[arg-type]
                                      ref.pool_issue)
                moves += pooled if p.transfers else []
            own = alloc
            if not restocks(p, s.round):  # round 4: no ward top-up, the wards share
                alloc = own = np.zeros_like(alloc)
                if p.transfers:
                    moves += weekend_transfers(s, s.evidence_est,  # type: ignore[arg-type]
                                               ref.weekend_keep, ref.pool_skus)
            else:
                own = own_round_issue(p, s, alloc)  # type: ignore[arg-type]
            orders = replenish(p, s, own, plt_z=ref.plt_z,  # type: ignore[arg-type]
                               leads=quoted_leads(s)  # type: ignore[arg-type]
                               if ref.use_quotes else None,
                               cover_rounds=ref.cover_rounds)
            notes = feedback_messages(s) if ref.feedback else []  # type: ignore[arg-type]
            stat = stat_calls(p, s, own, orders, ref.stat_rule,  # type: ignore[arg-type]
                              ref.stat_margin)
            return [*moves, *notes, plan_call(alloc, f"evidence {cite}"),
                    *with_justifications(p, s, orders), *stat]  # type: ignore[arg-type]
        return None

    @staticmethod
    def _quarantines(text: str) -> list[Action]:
        """Every lot in the quarantine slots shown (the text lists the announced lots)."""
        for line in text.splitlines():
            if line.startswith("Quarantine slots: "):
                out: list[Action] = []
                for m in _SLOT.finditer(line.removeprefix("Quarantine slots: ")):
                    where = m.group(1)
                    loc = CENTRAL if where == "CENTRAL" else WARDS[WARD_NAMES.index(where)]
                    out.append(QuarantineLot(loc, m.group(2), m.group(3)))
                return out
        return []

    def reply(self, observation: str) -> str:
        result = self._read_view(observation)
        self._read_result(self._last, result)
        if self.seen.round != self._round:
            self._round, self._phase, self._queue = self.seen.round, 0, []
            self._quarantined = []
        while not self._queue:
            actions = self._phase_calls(self._phase, observation)
            self._phase += 1
            if actions is None:
                self._last = AdvanceRound()
                return as_tool_call(self._last)
            self._queue = list(actions)
        self._last = self._queue.pop(0)
        return as_tool_call(self._last)

