"""Order calls an episode, rounds that ran out of tool calls, score and two grader components of
base_stock_flat and a pointer run on the validation seeds 900000-900005 of light (diagnostic only).

``PYTHONPATH=$PWD python results/pharmacy/order_stage_diag.py RUN_DIR``
"""
import sys
import numpy as np
from lifeline.agents import make_agent
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.types import Order

run = sys.argv[1]
env = PharmacyEnv("light")
for name in ("base_stock_flat", f"pointer:{run}"):
    orders, out, rounds, scores, cost, safety = [], 0, 0, [], [], []
    for seed in range(900000, 900006):
        ag = make_agent(name, "pharmacy"); st = env.reset(seed); ag.reset(env, seed)
        n = 0
        while not st.done:
            r = st.round
            a = ag.act(env, st)
            act = env.decode(a) if isinstance(a, (int, np.integer)) else a
            n += isinstance(act, Order)
            before_calls = st.calls_used
            env.step(st, a)
            if st.round != r:
                rounds += 1
                out += act.kind != "advance_round"
        orders.append(n)
        g = env.grade(st); scores.append(g.score)
        comps = getattr(g, "components", {}) or {}
        cost.append(comps.get("cost_control", np.nan)); safety.append(comps.get("patient_safety", np.nan))
    print(name, "orders/episode", np.mean(orders), "rounds out of calls", out, "of", rounds, "score", round(float(np.mean(scores)), 4), "cost_control", round(float(np.nanmean(cost)), 3), "patient_safety", round(float(np.nanmean(safety)), 3))
