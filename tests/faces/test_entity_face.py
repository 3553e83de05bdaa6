"""The entity face: every legal action index of every registered env maps to a kind and rows."""

from __future__ import annotations

import numpy as np
import pytest

import lifeline  # noqa: F401 - registers the envs
from lifeline.core import registry
from lifeline.faces.entities import GLOBAL, EntityHints, entity_spec

ENVS = [s.name for s in registry.all_specs()]


@pytest.mark.parametrize("name", ENVS)
def test_every_legal_action_maps_to_its_kind_and_valid_rows(name: str) -> None:
    env = registry.make(name)
    spec = entity_spec(env)
    assert len(spec.actions) == env.num_actions
    assert next(iter(spec.tables_shape)) == GLOBAL
    rng = np.random.default_rng(0)
    state = env.reset(3)
    checked = 0
    for _ in range(25):
        tables = spec.tables(env.observe(state))
        assert {k: v.shape for k, v in tables.items()} == spec.tables_shape
        assert all(np.all(np.isfinite(v)) for v in tables.values())
        legal = np.flatnonzero(env.action_mask(state))
        for i in legal:
            entry = spec.actions[int(i)]
            kind = spec.kinds[entry.kind]
            assert entry.kind == env.decode(int(i)).kind
            assert tuple(t for t, _ in entry.refs) == kind.ref_tables
            for table, row in entry.refs:
                assert 0 <= row < spec.tables_shape[table][0]
            assert all(0 <= a < n for a, n in zip(entry.args, kind.arg_sizes, strict=True))
            checked += 1
        state_step = env.step(state, int(rng.choice(legal)))
        if state_step.terminated or state_step.truncated:
            break
    assert checked > 0


def test_name_matching_picks_the_table_whose_rows_fit_the_field_range() -> None:
    kinds = entity_spec(registry.make("ed")).kinds
    assert kinds["transfer_to_icu"].ref_tables == ("general_beds",)
    assert kinds["ventilate"].ref_tables == ("icu_beds",)
    assert kinds["discharge_icu"].ref_tables == ("icu_beds",)


def test_env_hints_are_what_maps_codered_ambulances_and_pharmacy_cells() -> None:
    codered = registry.make("codered")
    assert entity_spec(codered).kinds["dispatch_ambulance"].ref_tables == ("units", "patients")
    bare = entity_spec(codered, EntityHints()).kinds["dispatch_ambulance"]
    assert "units" not in bare.ref_tables
    pharmacy = registry.make("pharmacy")
    spec = entity_spec(pharmacy)
    assert spec.kinds["set_allocation"].ref_tables == ("cells",)
    action = pharmacy.decode(spec.kinds["escalate"].indices[-1])
    entry = spec.actions[spec.kinds["escalate"].indices[-1]]
    assert entry.refs == (("cells", action.ward * 10 + action.sku),)


def test_ed_admissions_point_at_the_waiting_queue_only_with_its_hint() -> None:
    from lifeline.faces.entities import EntityHints

    ed = registry.make("ed")
    assert entity_spec(ed).kinds["admit_general"].ref_tables == ("queue",)
    assert entity_spec(ed, EntityHints()).kinds["admit_general"].ref_tables != ("queue",)


def test_dispatch_derived_pair_table_marks_the_unit_the_reference_sends() -> None:
    """Dispatch's ``derive`` hint: ``dispatch(unit, call)`` points at its (unit, call) row of
    ``unit_call``, and in every state where ``verify_dmexclp`` dispatches, the unit it sends is
    the nearest free unit (or the nearest free ALS one) to the first call of its queue."""
    from lifeline.agents import make_agent
    from lifeline.envs.dispatch.entities import PAIR_COLUMNS

    env = registry.make("dispatch", scenario="learning")
    spec = entity_spec(env)
    assert entity_spec(env, EntityHints()).kinds["dispatch"].ref_tables == ("units", "calls")
    assert spec.kinds["dispatch"].ref_tables == ("units", "calls", "unit_call")
    col = {c: j for j, c in enumerate(PAIR_COLUMNS)}
    agent = make_agent("verify_dmexclp", "dispatch")
    state = env.reset(5)
    agent.reset(env, 5)
    seen = 0
    while not state.done and seen < 12:
        action = agent.act(env, state)
        if getattr(action, "kind", "") == "dispatch":
            i = int(env.encode(action))
            (_, u), (_, k), (_, row) = spec.actions[i].refs
            assert row == u * env.ctx.K + k
            raw = spec.derive(env.observe(state))  # type: ignore[misc]
            assert raw["unit_call_first"][u, k] == 1.0
            assert raw["unit_call_free"][u, k] == 1.0
            assert max(raw["unit_call_nearest"][u, k], raw["unit_call_nearest_als"][u, k]) == 1.0
            pair = spec.tables(env.observe(state))["unit_call"][row]
            assert pair[col["rank"]] == pytest.approx(np.log1p(1.0))
            seen += 1
        env.step(state, action)
    assert seen >= 5


def test_derived_arrays_add_tables_and_columns_only_through_the_hint() -> None:
    def derive(core: object):  # type: ignore[no-untyped-def]
        def fn(obs):  # type: ignore[no-untyped-def]
            return {"zones": np.concatenate([obs["zones"], obs["zones"][:, :1] + 1.0], 1)}
        return fn

    env = registry.make("evgrid")
    bare = entity_spec(env, EntityHints())
    spec = entity_spec(env, EntityHints(derive=derive))
    assert spec.tables_shape["zones"][1] == bare.tables_shape["zones"][1] + 1
    obs = env.observe(env.reset(3))
    assert np.allclose(spec.tables(obs)["zones"][:, -1], np.log1p(obs["zones"][:, 0] + 1.0))


def test_evgrid_pair_regret_is_zero_at_the_station_mpc_routes_a_walk_up_to() -> None:
    from lifeline.agents import make_agent
    from lifeline.envs.evgrid.entities import PAIR_KEYS
    from lifeline.envs.evgrid.rules import routable

    env = registry.make("evgrid", "baseline")
    spec = entity_spec(env)
    assert spec.tables_shape["ev_station"] == (env.ctx.K * env.ctx.S, len(PAIR_KEYS))
    mpc = make_agent("mpc", "evgrid")
    state = env.reset(3)
    mpc.reset(env, 3)
    agree = routed = 0
    while not state.done and routed < 60:
        obs = env.observe(state)
        action = mpc.act(env, state)
        if action.kind == "route" and obs["evs"][action.ev, 2] == 0:
            assert spec.derive is not None
            regret = spec.derive(obs)["pair_regret_min"][action.ev]
            ok = routable(state, env.ctx)[action.ev]
            agree += int(np.argmin(np.where(ok, regret, np.inf)) == action.station)
            routed += 1
        env.step(state, action)
    assert routed == 60 and agree >= 55
