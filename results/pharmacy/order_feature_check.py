"""Agreement of the derived order features (entities.order_features, observation only) with
base_stock_flat's own pending orders on its trajectories (issue 31 item 4; results/pharmacy/learned.md).

``PYTHONPATH=$PWD python results/pharmacy/order_feature_check.py SCENARIO SEEDS`` (SEEDS: comma list of
training seeds).
"""
import sys
import numpy as np
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.entities import order_features
from lifeline.envs.pharmacy.flat_reference import FlatBaseStockAgent, pending_orders, reference_allocation, round_issue
from lifeline.envs.pharmacy.types import Order
from lifeline.envs.pharmacy import generator

scen = sys.argv[1]; seeds = [int(x) for x in sys.argv[2].split(",")]
env = PharmacyEnv(scen)
tot = same = same_nomci = tot_nomci = ord_states = ord_match = 0
bud_err = []
for seed in seeds:
    st = env.reset(seed); ag = FlatBaseStockAgent(); ag.reset(env, seed)
    from lifeline.envs.pharmacy.entities import budget_estimate
    bud_err.append(budget_estimate(env.params) / st.budget - 1)
    while not st.done:
        a = ag.act(env, st)
        obs = env.observe(st)
        if st.round < env.params.rounds and st.wms_round == st.round:
            alloc = reference_allocation(ag.ref, st, env.params)
            own = round_issue(env.params, st, alloc)
            true = {(s): (p, k) for p, s, k, _ in reversed(pending_orders(ag.ref, env.params, env.layout.order_qty, st, own))}
            f = order_features(env, obs)
            due = {int(s) for s in np.flatnonzero(f["order_due"])}
            ok = due == set(true)
            mci = any(ev.kind == "mci" and ev.announce_round <= st.round for ev in st.events)
            tot += 1; same += ok
            if not mci: tot_nomci += 1; same_nomci += ok
            if isinstance(a, Order):
                ord_states += 1
                ord_match += bool(f["order_due"][a.sku] and round(f["order_level"][a.sku] * (env.layout.order_qty.shape[1]-1)) == a.quantity_level)
        env.step(st, a)
print(f"{scen} seeds {seeds}: due-set agreement {same}/{tot}; without a published MCI {same_nomci}/{tot_nomci}; teacher Order calls whose sku is due at its level {ord_match}/{ord_states}; budget est rel err {np.round(bud_err,3).tolist()}")
