"""Issue 31: the console's ``stat`` and ``scan`` actions and the projected reference
``base_stock_flat`` (every call it makes is an encoded action a pointer policy can learn)."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.pharmacy import inventory, rules
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.flat_reference import FlatBaseStockAgent, nearest_level, order_level
from lifeline.envs.pharmacy.params import SCENARIOS
from lifeline.envs.pharmacy.types import (
    AdvanceRound,
    Justify,
    Quote,
    Scan,
    SetAllocation,
    Stat,
)


def test_new_console_actions_append_to_the_encoding() -> None:
    env = PharmacyEnv("light")
    assert env.num_actions == 306
    assert env.encode(Justify(sku=9)) == 292  # the first 293 indices are unchanged
    assert env.decode(293) == Stat(sku=0, level=0)
    assert env.decode(305) == Scan()


def test_stat_authorises_days_of_blood_and_is_masked_without_authorisation() -> None:
    env = PharmacyEnv("light")
    state = env.reset(3)
    i = env.encode(Stat(sku=1, level=2))
    assert env.action_mask(state)[i]
    env.step(state, i)
    assert state.stat_auth[1] == rules.stat_quantity(env.params, 1, 2) > 0
    assert env.observe(state)["stat_authorised"][1] == state.stat_auth[1]
    off = PharmacyEnv(params=dataclasses.replace(SCENARIOS["light"], stat_authorisation=False))
    s2 = off.reset(3)
    assert not off.action_mask(s2)[i]
    assert not off.step(s2, i).valid


def test_calls_that_change_nothing_are_masked_and_still_use_a_call() -> None:
    """Issue 31: MaskablePPO's argmax repeated one set_allocation on 410 of 423 steps. A repeat
    of a set_allocation / stat that gives the line / product what it has, or a second quote of
    a supplier this round, is illegal (exact mask), a no-op, and uses one call."""
    env = PharmacyEnv("light")
    state = env.reset(3)
    w, s = next((w, s) for w, s in rules.LINES if state.requests[w, s] > 0)
    calls = [(env.encode(SetAllocation(level=3, ward=w, sku=s)), lambda: state.plan[w, s]),
             (env.encode(Stat(sku=1, level=2)), lambda: state.stat_auth[1]),
             (env.encode(Quote(supplier=2)), lambda: len(state.quotes))]
    for i, value in calls:
        assert env.action_mask(state)[i]
        assert env.step(state, i).valid
        before, used = value(), state.calls_used
        assert not env.action_mask(state)[i]
        ts = env.step(state, i)
        assert not ts.valid
        assert "changes nothing" in ts.message or "same lead" in ts.message
        assert value() == before and state.calls_used == used + 1
    zero = env.encode(SetAllocation(level=0, ward=w, sku=s))
    assert env.action_mask(state)[zero]  # another level of the line is still a change
    env.step(state, AdvanceRound())
    assert all(env.action_mask(state)[i] for i, _ in calls[1:])  # a new round: legal again


def test_a_repeated_order_batch_changes_nothing_and_is_masked() -> None:
    """Issue 31: MaskablePPO's argmax repeated order(BACKUP-B, 2 days, antibiotics) ~115 times
    a round, each repeat buying another batch. A (supplier, level, SKU) batch is now on the
    round's orders or not: a repeat is illegal (exact mask, a message), a no-op that uses one
    call; another level or supplier of the SKU is still an order; a new round clears it."""
    from lifeline.envs.pharmacy.types import Order

    env = PharmacyEnv("light")
    state = env.reset(3)
    i = env.encode(Order(supplier=1, quantity_level=1, sku=4))
    assert env.action_mask(state)[i]
    assert env.step(state, i).valid
    assert env.observe(state)["ordered"][1, 1, 4] == 1
    pos, spent, used = len(state.pos), state.counters.spent, state.calls_used
    assert not env.action_mask(state)[i]
    ts = env.step(state, i)
    assert not ts.valid and "changes nothing" in ts.message
    assert len(state.pos) == pos and state.counters.spent == spent
    assert state.calls_used == used + 1
    for other in (Order(supplier=1, quantity_level=0, sku=4), Order(supplier=0, quantity_level=1,
                                                                    sku=4)):
        assert env.action_mask(state)[env.encode(other)]  # another batch adds to the order
    env.step(state, AdvanceRound())
    assert env.action_mask(state)[i] and not env.observe(state)["ordered"].any()


def test_mask_equals_the_rules_on_random_states() -> None:
    """The whole mask is exactly the actions ``validate`` accepts, on states a masked-random
    player reaches that mostly orders, sets the plan, authorises STAT and justifies (batches
    ordered, levels left, justifications unused, budget spent)."""
    env = PharmacyEnv("heavy")
    off = env.layout.offsets
    busy = [(off["set_allocation"], off["review_ward"]), (off["justify"], off["scan"])]
    rng = np.random.default_rng(7)
    checked = ordered = left = 0
    for seed in (11, 12):
        state = env.reset(seed)
        while not state.done and checked < 120:
            mask = env.action_mask(state)
            for i in range(env.num_actions):
                assert mask[i] == (env.validate(state, env.decode(i)) is None), env.decode(i)
            checked += 1
            ordered += int(state.ordered.sum())
            left += int((state.set_levels.sum(axis=0) > 1).sum())
            legal = np.flatnonzero(mask)
            pick = legal[np.any([(legal >= lo) & (legal < hi) for lo, hi in busy], axis=0)]
            env.step(state, int(rng.choice(pick if pick.size and rng.random() < 0.9
                                           else legal)))
    assert checked == 120 and ordered > 50 and left > 20


def test_the_console_does_not_go_back_or_repeat_a_review_or_a_justification() -> None:
    """Issue 31: with every no-change call masked, MaskablePPO's argmax cycled between two
    levels of one plan line (``set_allocation`` 75 % / 125 %) on 409 of 480 steps, then filed
    one justification again and again. A level a line (a STAT product) had this round and left
    is illegal; a review of a ward whose lines all have this round's evidence returns the same
    estimates (illegal); a ``justify`` of a SKU an unused justification covers is illegal until
    that one is used. Each is a no-op with a message that uses a call."""
    from lifeline.envs.pharmacy.types import Order, ReviewWard

    env = PharmacyEnv("light")
    state = env.reset(12)
    w, s = next((w, s) for w, s in rules.LINES if state.requests[w, s] > 0)
    a, b, c = (env.encode(SetAllocation(level=k, ward=w, sku=s)) for k in (2, 4, 3))
    env.step(state, a)
    env.step(state, b)
    assert not env.action_mask(state)[a] and env.action_mask(state)[c]
    used = state.calls_used
    ts = env.step(state, a)
    assert not ts.valid and "does not go back" in ts.message and state.calls_used == used + 1
    assert state.plan[w, s] == state.requests[w, s] * rules.LEVELS[4]
    x, y = env.encode(Stat(sku=0, level=1)), env.encode(Stat(sku=0, level=3))
    env.step(state, x)
    env.step(state, y)
    assert not env.action_mask(state)[x] and not env.step(state, x).valid
    review = env.encode(ReviewWard(ward=0))
    env.step(state, review)
    assert not env.action_mask(state)[review]
    assert "changes nothing" in env.step(state, review).message
    state.events = []
    j = env.encode(Justify(sku=0))
    assert env.action_mask(state)[j]
    env.step(state, j)
    assert not env.action_mask(state)[j] and "until it is used" in env.step(state, j).message
    state.supplier_spend[state.round, 0] = env.params.approval_threshold  # the next order
    env.step(state, env.encode(Order(supplier=0, quantity_level=0, sku=0)))  # uses it
    assert state.pos[-1].status == "open" and env.action_mask(state)[j]
    env.step(state, AdvanceRound())
    mask = env.action_mask(state)
    assert mask[x] and mask[review]  # a new round: legal again


def test_scan_shows_live_central_stock_for_the_round_only() -> None:
    env = PharmacyEnv("light")
    state = env.reset(4)
    assert (env.observe(state)["scanned_stock"] == -1).all()
    env.step(state, env.encode(Scan()))
    seen = env.observe(state)["scanned_stock"]
    live = np.array([inventory.total(lots) for lots in state.central])
    assert np.allclose(seen, live, rtol=0.051)
    env.step(state, AdvanceRound())
    assert (env.observe(state)["scanned_stock"] == -1).all()


def test_justified_shows_a_filed_justification() -> None:
    from lifeline.envs.pharmacy.types import ReviewWard

    env = PharmacyEnv("light")
    state = env.reset(6)
    assert env.observe(state)["justified"][0] == 0
    env.step(state, env.encode(ReviewWard(ward=0)))
    env.step(state, env.encode(Justify(sku=0)))
    assert env.observe(state)["justified"][0] == 1


def test_levels() -> None:
    assert nearest_level(10.0, 10.0) == 3
    assert nearest_level(0.0, 10.0) == 0
    assert nearest_level(11.25, 10.0) == 4  # a tie goes to the larger level
    qty = np.array([10, 20, 30])
    assert order_level(qty, 25.0) == 2  # 30 units: nearest, a tie with 20 goes to more units
    assert order_level(qty, 22.0) == 1
    assert order_level(qty, 6.0) == 0
    assert order_level(qty, 4.0) is None
    assert order_level(qty, 45.0) == 2  # 30 + 20 (the 10 and 20 batches left after it)
    used = np.array([False, False, True])  # the 30 batch is already on this round's orders
    assert order_level(qty, 45.0, used) == 1  # 20 + 10 of the batches left
    assert order_level(qty, 15.0, used) == 1  # 10 / 20 tie: more units
    assert order_level(qty, 100.0, np.ones(3, bool)) is None  # every batch ordered


def _play(env: PharmacyEnv, agent: object, seed: int) -> float:
    state = env.reset(seed)
    agent.reset(env, seed)  # type: ignore[attr-defined]
    while not state.done:
        env.step(state, agent.act(env, state))  # type: ignore[attr-defined]
    return env.grade(state).score


def test_flat_reference_is_stateless_and_only_encoded() -> None:
    env = PharmacyEnv("light")
    agent = make_agent("base_stock_flat", "pharmacy")
    state = env.reset(5)
    agent.reset(env, 5)
    steps = 0
    while not state.done:
        action = agent.act(env, state)
        i = env.encode(action)  # raises for a tool-only call
        assert env.action_mask(state)[i]
        fresh = FlatBaseStockAgent()
        assert fresh.act(env, copy.deepcopy(state)) == action  # no memory: labels any state
        assert env.step(state, i).valid
        steps += 1
    assert steps < 8 * env.params.tool_calls_per_round


class _NoStat(FlatBaseStockAgent):
    def _stat(self, env, state, own):  # type: ignore[no-untyped-def]
        return iter(())


class _NoScan(FlatBaseStockAgent):
    def act(self, env, state):  # type: ignore[no-untyped-def]
        state.wms_round = state.round  # the teacher believes it scanned: reads the stale ERP
        return super().act(env, state)


@pytest.mark.parametrize("variant", [_NoStat, _NoScan])
def test_stat_and_scan_earn_their_place(variant: type) -> None:
    """The two console actions issue 31 added are what lets the projection approach the
    reference: without either, the projected reference scores lower (training seeds)."""
    env = PharmacyEnv("light")
    seeds = (0, 1, 2, 3)
    full = np.mean([_play(env, FlatBaseStockAgent(), s) for s in seeds])
    cut = np.mean([_play(env, variant(), s) for s in seeds])
    ref = np.mean([_play(env, make_agent("base_stock", "pharmacy"), s) for s in seeds])
    assert full > cut + 0.003
    assert full > ref - 0.015


def test_derived_order_features_match_the_teachers_next_order_and_clear_once_filled() -> None:
    """Issue 31 item 4: ``entities.order_features`` (observation + public parameters only) says
    which SKUs ``base_stock_flat`` would still order, at which level and from which supplier;
    once the round's orders are placed it is zero (nothing due, gap under half a level)."""
    from lifeline.envs.pharmacy.entities import derive, order_features
    from lifeline.envs.pharmacy.flat_reference import (
        pending_orders,
        reference_allocation,
        round_issue,
    )
    from lifeline.envs.pharmacy.types import Order

    env = PharmacyEnv("light")
    qty = env.layout.order_qty
    orders = cleared = 0
    for seed in (1, 2):
        state = env.reset(seed)
        agent = FlatBaseStockAgent()
        agent.reset(env, seed)
        while not state.done:
            action = agent.act(env, state)
            feats = order_features(env, env.observe(state))
            if state.wms_round == state.round and state.round < env.params.rounds:
                own = round_issue(env.params, state, reference_allocation(agent.ref, state,
                                                                          env.params))
                true = pending_orders(agent.ref, env.params, qty, state, own)
                assert set(np.flatnonzero(feats["order_due"]).tolist()) == {s for _, s, _, _
                                                                             in true}
                if isinstance(action, Order):
                    orders += 1
                    s = action.sku
                    assert feats["order_due"][s] == 1
                    assert round(float(feats["order_level"][s]) * (qty.shape[1] - 1)) \
                        == action.quantity_level
                    assert round(float(feats["order_supplier"][s]) * 2) == action.supplier
                elif isinstance(action, (Stat, AdvanceRound)):
                    cleared += 1
                    assert not feats["order_due"].any()
                    # a gap is left only where a supplier's batches are all on the round's
                    # orders (each is ordered at most once a round: at most 6 days)
                    left = feats["order_gap"] >= 0.5 * qty[:, 0] + 1e-6
                    assert state.ordered[:, :, left].all(axis=1).any(axis=0).all()
                    assert derive(env)(env.observe(state))["stage"][-1] == 0
            env.step(state, action)
    assert orders >= 20 and cleared >= 8
