"""The batch ED: N environments held as arrays, stepped together by a kernel.

:class:`EDBatch` and ``batch_kernel`` implement ED-v2 (``EDParams.version == 2``,
:class:`EDv2Env`; what ``lifeline.train.fastppo`` trains on). ED-v3 has its own array kernel,
``kernel_v3`` (:class:`lifeline.envs.ed.batch_v3.EDBatchV3`); :class:`EDVectorEnv` is the
Gymnasium face of either (``version``), and ``gymnasium.make_vec("lifeline/ED-v3", ...)``
builds it over ED-v3 (``version=2``: over ED-v2). The rest of this docstring describes v2.

:class:`EDBatch` is the array engine (reset one env from its seed, step all envs with one call
into ``batch_kernel.step_all``, grade an env); :class:`EDVectorEnv` is its Gymnasium
``VectorEnv`` face, what ``gymnasium.make_vec("lifeline/ED-v2", num_envs=N,
vectorization_mode="vector_entry_point")`` returns.

It is the *same* environment as :class:`lifeline.envs.ed.env.EDEnv`: for the same seed and the
same actions it produces identical observations, masks, rewards, terminations, truncations and
grades (``tests/envs/ed/test_ed_batch_parity.py``), because it replays the same pre-drawn random
numbers
(the generator runs on the same ``numpy`` Generators, reproduced draw by draw by numba) and
mirrors ``dynamics.py`` function by function. Needs ``numba`` (extra ``fast``); without it,
:func:`require_numba` raises an ``ImportError`` that says how to install it (there is no slow
fallback: the Python loop of scalar envs, ``SyncVectorEnv``, is that fallback and
``lifeline.faces.gymnasium.make_vector_env(..., batch=False)`` builds it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space
from gymnasium.vector.vector_env import AutoresetMode

from lifeline.core.env import Grade
from lifeline.core.extras import MissingExtra
from lifeline.core.rng import check_seed, make_streams
from lifeline.envs.ed.env import STREAMS, return_bound
from lifeline.envs.ed.generator import diurnal_profile
from lifeline.envs.ed.observation import observation_spec
from lifeline.envs.ed.params import SCENARIOS_V2 as SCENARIOS
from lifeline.envs.ed.params import EDParams, resolve
from lifeline.envs.ed.reward import FLOW_WEIGHTS, RETURN_HARM, WAIT_NORMALISER_HOURS
from lifeline.envs.ed.rules import Layout

_KINDS = ("admit_general", "admit_icu", "ventilate", "transfer_to_icu", "step_down",
          "discharge_general", "discharge_icu")


def require_numba() -> Any:
    """The ``batch_kernel`` module, or :class:`MissingExtra` saying how to get numba."""
    try:
        from lifeline.envs.ed import batch_kernel
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise MissingExtra("the batch ED needs numba: pip install 'lifeline-gym[fast]' "
                          "(or use the Python loop: make_vector_env(..., batch=False))"
                          ) from exc
    return batch_kernel


class Tables:
    """Everything the kernel needs from one ``EDParams``, as arrays (computed once)."""

    def __init__(self, params: EDParams) -> None:
        k = require_numba()
        p = params
        layout = Layout(p)
        self.layout = layout
        tick_hours = p.tick_minutes / 60.0
        self.returns_bound = return_bound(p)
        max_delay = math.ceil(p.return_delay_hours[1] * 60.0 / p.tick_minutes)
        if max_delay > 255:
            raise ValueError("the batch ED stores return delays as uint8 ticks (<= 255)")
        pi = np.zeros(15, dtype=np.int64)
        pi[[k.PI_G, k.PI_I, k.PI_V, k.PI_Q, k.PI_T, k.PI_K, k.PI_A]] = (
            p.general_beds, p.icu_beds, p.ventilators, p.queue_slots, p.horizon_ticks,
            p.actions_per_tick, layout.total)
        pi[k.PI_MAXSTEPS] = 2 * p.horizon_ticks * p.actions_per_tick
        pi[k.PI_EARLYSTOP] = p.early_stop_deaths
        pi[k.PI_TWOHOURS] = round(120.0 / p.tick_minutes)
        pi[k.PI_MCILO], pi[k.PI_MCIHI] = p.mci_patients
        pi[k.PI_BOARDERS] = p.icu_boarders
        pi[k.PI_R] = self.returns_bound
        pi[k.PI_TRIAGE] = p.triage_ticks
        self.pi = pi
        pf = np.zeros(15, dtype=np.float64)
        pf[k.PF_HPT] = p.tick_minutes / 60.0
        pf[k.PF_TICKMIN] = p.tick_minutes
        pf[k.PF_RESP] = p.respiratory_share
        pf[k.PF_MIS] = p.mistriage_prob
        pf[k.PF_MIS2] = min(1.0, 2.0 * p.mistriage_prob)
        pf[k.PF_TSIGMA] = p.treatment_sigma
        psigma = p.lwbs_patience_sigma
        pf[k.PF_PMU] = math.log(p.lwbs_patience_hours) - psigma * psigma / 2.0
        pf[k.PF_PSIGMA] = psigma
        pf[k.PF_ESI1ICU] = p.esi1_icu_prob
        pf[k.PF_BSIGMA] = p.boarding_sigma
        pf[k.PF_MCIW0], pf[k.PF_MCIW1] = p.mci_window_hours
        pf[k.PF_ICUH] = p.icu_treatment_hours
        pf[k.PF_RETURN_HARM] = RETURN_HARM
        pf[k.PF_TICK_HOURS] = tick_hours
        self.pf = pf
        self.offs = np.array([layout.offsets[kind] for kind in _KINDS], dtype=np.int64)
        self.lam = np.array([p.arrivals_per_hour * tick_hours
                             * diurnal_profile((t * tick_hours) % 24.0)
                             for t in range(p.horizon_ticks)], dtype=np.float64)
        self.cdf_mix = _cdf(np.asarray(p.esi_mix) / sum(p.esi_mix))
        self.cdf_mci = _cdf((0.2, 0.4, 0.4))
        self.icu_prob = np.asarray(p.condition_icu_prob, dtype=np.float64)
        self.vent_prob = np.asarray(p.condition_vent_prob, dtype=np.float64)
        self.cond_los = np.asarray(p.condition_los, dtype=np.float64)
        treat_mu = np.zeros((6, 6))
        sigma = p.treatment_sigma
        for c in range(6):
            treat_mu[0, c] = (math.log(p.icu_treatment_hours * p.condition_los[c])
                              - sigma * sigma / 2.0)
            for a in range(1, 6):
                treat_mu[a, c] = (math.log(p.general_treatment_hours[a - 1] * p.condition_los[c])
                                  - sigma * sigma / 2.0)
        self.treat_mu = treat_mu
        bsigma = p.boarding_sigma
        self.board_mu = np.zeros(6)
        self.ward_prob = np.zeros(6)
        for a in range(1, 6):
            self.board_mu[a] = math.log(p.boarding_hours[a - 1]) - bsigma * bsigma / 2.0
            self.ward_prob[a] = p.ward_admit_prob[a - 1]
        # hazard thresholds: dynamics.hazard_factor's location factors x condition profile
        slots = (1.0, p.no_vent_factor, p.treated_factor, p.under_care_factor)
        death = [[p.death_hazard_untreated * (f * p.condition_hazard[c]) for c in range(6)]
                 for f in slots]
        worsen = [[[p.worsen_hazard[a - 1] * (f * p.condition_hazard[c]) for c in range(6)]
                   for f in slots] if a >= 2 else [[0.0] * 6 for _ in slots]
                  for a in range(6)]
        values = sorted({v for row in death for v in row}
                        | {v for a in range(2, 6) for row in worsen[a] for v in row})
        if len(values) > 254:
            raise ValueError("too many distinct hazard thresholds for uint8 ranks")
        self.hz_th = np.asarray(values, dtype=np.float64)
        index = {v: j for j, v in enumerate(values)}
        self.th_death = np.array([[index[v] for v in row] for row in death], dtype=np.int64)
        self.th_worsen = np.full((6, 4, 6), -1, dtype=np.int64)  # -1: never (ESI 1 dies instead)
        for a in range(2, 6):
            for s in range(4):
                for c in range(6):
                    self.th_worsen[a, s, c] = index[worsen[a][s][c]]
        out_values = sorted(set(p.outside_death_prob))
        self.out_th = np.asarray(out_values, dtype=np.float64)
        self.out_j = np.full(6, -1, dtype=np.int64)
        for a in range(1, 6):
            self.out_j[a] = out_values.index(p.outside_death_prob[a - 1])
        self.ret_prob = float(p.return_prob)
        self.ret_lo, self.ret_hi = (float(v) for v in p.return_delay_hours)


def _cdf(p: Any) -> np.ndarray:
    """``Generator.choice``'s cumulative distribution for probabilities ``p``."""
    cdf = np.asarray(p, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    return cdf


class EDBatch:
    """N ED environments as arrays (see ``batch_kernel``'s docstring for the layout)."""

    PT: np.ndarray
    WL: np.ndarray
    PR: np.ndarray
    HZ: np.ndarray
    RD: np.ndarray
    scratch: np.ndarray
    capacity: int

    def __init__(self, num_envs: int, scenario: str = "normal_day",
                 params: EDParams | None = None, capacity: int = 0) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        params = resolve(scenario, params, SCENARIOS)
        if params.version != 2:
            raise ValueError("the batch kernel implements ED-v2 only (no clinicians, diagnostics "
                             "or inpatient units); pass v2 params (params.SCENARIOS_V2) or use "
                             "the scalar ED-v3 env (lifeline.envs.ed.env.EDEnv)")
        self.k = require_numba()
        self.params = params
        self.scenario = scenario
        self.num_envs = n = num_envs
        self.tables = tb = Tables(params)
        self.num_actions = tb.layout.total
        p = params
        if capacity <= 0:  # expected patients + 6 sd, grown on demand
            mean = float(tb.lam.sum()) + p.mci_patients[1] + p.icu_boarders
            capacity = int(mean + 6.0 * math.sqrt(mean) + 16)
        k = self.k
        self.S = np.zeros((n, k.N_S), dtype=np.int64)
        self.ret = np.zeros(n, dtype=np.float64)
        self.GB = np.full((n, p.general_beds), -1, dtype=np.int32)
        self.IB = np.full((n, p.icu_beds), -1, dtype=np.int32)
        self.sched = np.zeros((n, p.horizon_ticks + 1), dtype=np.int64)
        self._alloc_patients(capacity)
        self.seeds = np.full(n, -1, dtype=np.int64)
        spec = observation_spec(p)
        self.obs = {name: np.zeros((n, *s.shape), dtype=np.float32) for name, s in spec.items()}
        self.mask = np.zeros((n, self.num_actions), dtype=np.bool_)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.valid = np.zeros(n, dtype=np.bool_)
        self.info_ev = np.zeros((n, 4), dtype=np.int64)
        self._no_skip = np.zeros(n, dtype=np.bool_)

    def _alloc_patients(self, capacity: int) -> None:
        """(Re)allocate the per-patient arrays for ``capacity`` patients per env, keeping data."""
        n, k, p = self.num_envs, self.k, self.params
        shapes = {"PT": ((n, capacity, k.N_F), np.int16), "WL": ((n, capacity), np.int32),
                  "PR": ((n, capacity), np.int32),
                  "HZ": ((n, p.horizon_ticks, capacity), np.uint8),
                  "RD": ((n, capacity, self.tables.returns_bound + 1, 3), np.uint8)}
        for name, (shape, dtype) in shapes.items():
            new = np.zeros(shape, dtype=dtype)
            old = getattr(self, name, None)
            if old is not None:
                if name == "HZ":
                    new[:, :, : old.shape[2]] = old
                else:
                    new[:, : old.shape[1]] = old
            setattr(self, name, new)
        self.capacity = capacity
        self.scratch = np.zeros(k.SCRATCH + capacity + p.general_beds + p.icu_beds + 16,
                                dtype=np.int64)

    # ----- episode --------------------------------------------------------------------------
    def reset_env(self, i: int, seed: int) -> None:
        """Start env ``i``'s episode for ``seed`` (``EDEnv.reset(seed)``) and observe it."""
        seed = check_seed(seed)
        tb, k = self.tables, self.k
        while True:
            rng = make_streams(seed, STREAMS)
            pids = k.generate(i, rng["arrivals"], rng["patients"], self.S, self.PT, self.GB,
                              self.IB, self.sched, tb.pi, tb.pf, tb.lam, tb.cdf_mix, tb.cdf_mci,
                              tb.icu_prob, tb.vent_prob, tb.treat_mu, tb.board_mu, tb.ward_prob)
            if pids >= 0:
                break
            self._alloc_patients(max(-pids, int(self.capacity * 1.25)))
        det = rng["deterioration"]
        hz = det.random((pids, self.params.horizon_ticks))  # EDState.hazard_draws
        pd = det.random((pids, 5))  # EDState.patient_draws
        rd = rng["returns"].random((pids, tb.returns_bound, 3))  # EDState.return_draws
        k.store_draws(i, hz, pd, rd, self.S, self.PT, self.HZ, self.RD, self.IB, self.WL,
                      self.PR, self.sched, tb.pi, tb.pf, tb.hz_th, tb.out_th, tb.vent_prob,
                      tb.cond_los, tb.ret_prob, tb.ret_lo, tb.ret_hi, self.scratch)
        self.seeds[i] = seed
        self.ret[i] = 0.0
        self._observe(i)

    def _observe(self, i: int) -> None:
        tb, k, o = self.tables, self.k, self.obs
        k.action_mask(i, self.S, self.PT, self.GB, self.IB, tb.pi, tb.offs, self.mask)
        k.observe(i, self.S, self.PT, self.GB, self.IB, self.WL, tb.pi, tb.pf,
                  o["general_beds"], o["icu_beds"], o["ventilators"], o["queue"], o["time"],
                  o["totals"])

    def step(self, actions: np.ndarray, skip: np.ndarray | None = None) -> None:
        """Step every env not in ``skip`` with its action (an int; invalid ones use the turn);
        results land in ``reward``, ``terminated``, ``truncated``, ``valid``, ``info_ev``
        (ticks, deaths, treated, early stopped), ``mask`` and ``obs``."""
        tb, o = self.tables, self.obs
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        self.k.step_all(acts, self._no_skip if skip is None else skip, self.S, self.PT, self.GB,
                        self.IB, self.WL, self.PR, self.HZ, self.RD, self.sched, self.ret, tb.pi,
                        tb.pf, tb.offs, tb.th_death, tb.th_worsen, tb.out_j, self.reward,
                        self.terminated, self.truncated, self.valid, self.info_ev, self.mask,
                        o["general_beds"], o["icu_beds"], o["ventilators"], o["queue"],
                        o["time"], o["totals"], self.scratch)

    # ----- grading ------------------------------------------------------------------------------
    def done(self, i: int) -> bool:
        return bool(self.S[i, self.k.S_DONE])

    def grade(self, i: int) -> Grade:
        """``reward.grade`` of env ``i`` (same floats as the scalar grader)."""
        k, p = self.k, self.params
        s = [int(v) for v in self.S[i]]
        n = s[k.C_PATIENTS]
        harm = s[k.C_DEATHS] + RETURN_HARM * s[k.C_DHARMS]
        surv = 1.0 - min(harm / n, 1.0) if n else 1.0
        tick = s[k.S_TICK]
        still = [int(q) for q in self.WL[i, : s[k.S_NWAIT]]]
        total = s[k.C_WAITSUM] + sum(tick - int(self.PT[i, q, k.F_ARR]) for q in still)
        wait_h = total * p.tick_minutes / 60.0 / n if n else 0.0
        steps, invalid = s[k.S_STEPS], s[k.S_INVALID]
        invalid_rate = invalid / steps if steps else 0.0
        parts = {
            "survival": surv,
            "wait": 1.0 - min(wait_h / WAIT_NORMALISER_HOURS, 1.0),
            "completion": s[k.C_TREATED] / n if n else 1.0,
            "lwbs": 1.0 - s[k.C_LWBS] / n if n else 1.0,
            "validity": 1.0 - invalid_rate,
        }
        flow = sum(w * parts[key] for key, w in FLOW_WEIGHTS.items())
        score = (n * parts["survival"] + flow) / (n + 1)
        crit = s[k.C_CRITICAL]
        ticks = max(s[k.C_TICKS], 1)
        metrics = {
            "points": 100.0 * score, "patients": float(n), "harm": harm,
            "deaths": float(s[k.C_DEATHS]), "discharge_deaths": float(s[k.C_DDEATHS]),
            "discharge_harms": float(s[k.C_DHARMS]), "treated": float(s[k.C_TREATED]),
            "critical_patients": float(crit), "critical_deaths": float(s[k.C_CDEATHS]),
            "critical_survival": 1.0 - s[k.C_CDEATHS] / crit if crit else 1.0,
            "lwbs": float(s[k.C_LWBS]), "avg_wait_h": wait_h, "flow": flow,
            "early_discharges": float(s[k.C_EARLY]), "returns": float(s[k.C_RETURNS]),
            "still_waiting": float(len(still)), "invalid_rate": invalid_rate,
            "early_stopped": float(s[k.C_ESTOP] >= 0),
            "general_utilisation": s[k.C_GENT] / (ticks * max(p.general_beds, 1)),
            "icu_utilisation": s[k.C_ICUT] / (ticks * max(p.icu_beds, 1)),
            "ventilator_utilisation": s[k.C_VENTT] / (ticks * max(p.ventilators, 1)),
        }
        return Grade(score=score, components=parts, metrics=metrics)

    def episode_return(self, i: int) -> float:
        """``EDState.episode_return`` of env ``i`` (dense reward without invalid penalties)."""
        return float(self.ret[i])



class EDVectorEnv(gym.vector.VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """N ED environments stepped together by the batch kernel, as a Gymnasium ``VectorEnv``.

    Same spaces as ``gymnasium.make("lifeline/ED-v2")`` (a ``Dict`` observation with
    ``action_mask`` as int8, ``Discrete`` actions), batched. Sub-env ``i`` is seeded like
    ``SyncVectorEnv`` seeds its copies: ``reset(seed=s)`` gives env ``i`` the episode seed
    ``s + i`` and a ``np_random`` from which every later (auto-)reset draws its episode seed, as
    :class:`lifeline.faces.gymnasium.LifelineGymEnv` does, so the batch env and the Python loop
    of scalar envs give the same episodes for the same seed. ``autoreset_mode``: ``NEXT_STEP``
    (Gymnasium's default: the step after an episode ends resets that env, its action is ignored,
    reward 0) or ``SAME_STEP`` (the ending step returns the next episode's first observation;
    the last one is in ``infos["final_obs"]``). ``infos`` carry per-env arrays (with Gymnasium's
    ``_key`` masks): ``action_mask`` (boolean (N, A), as every id's ``SyncVectorEnv`` stacks it),
    ``valid``, ``ticks``, ``deaths``, ``treated``, ``early_stopped``, and at the
    end of an episode ``score``, ``episode_return`` and the grade ``components``.
    ``action_masks()`` returns the boolean masks (N, A). ``copy=False`` returns the internal
    observation buffers (overwritten by the next step) instead of copies. ``episode_seeds``
    (an iterator) supplies every episode seed not given to ``reset`` (a trainer passes its
    training-seed stream so no auto-reset can land on a held-out seed).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int = 1, scenario: str | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 copy: bool = True, params: EDParams | None = None,
                 episode_seeds: Iterator[int] | None = None, version: int = 2) -> None:
        from lifeline.envs.ed.env import EDv2Env
        from lifeline.faces.gymnasium import observation_space

        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode {mode} is not supported (NEXT_STEP or SAME_STEP)")
        scenario = scenario or next(iter(SCENARIOS))
        if params is not None:
            version = params.version
        self.batch: Any
        if version >= 3:  # ED-v3: lifeline.envs.ed.kernel_v3 (batch_v3.EDBatchV3)
            from lifeline.envs.ed.batch_v3 import EDBatchV3

            self.batch = EDBatchV3(num_envs, scenario, params=params)
            self.core: Any = self.batch.core
        else:
            self.batch = EDBatch(num_envs, scenario, params=params)
            self.core = EDv2Env(scenario, params=self.batch.params)
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode}
        self.copy = copy
        self.single_observation_space = observation_space(self.core)
        self.single_action_space = spaces.Discrete(self.core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._np_randoms: list[np.random.Generator | None] = [None] * num_envs
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._started = False
        self.episode_seeds = episode_seeds

    # ----- helpers ---------------------------------------------------------------------------
    def _episode_seed(self, i: int, seed: int | None) -> int:
        """The next episode seed of env ``i`` (``LifelineGymEnv.reset``'s rule, or the next value
        of ``episode_seeds`` when given: e.g. training seeds only)."""
        if self.episode_seeds is not None and seed is None:
            return int(next(self.episode_seeds))
        if seed is not None:
            self._np_randoms[i], _ = seeding.np_random(seed)
            return int(seed)
        rng = self._np_randoms[i]
        if rng is None:
            rng, _ = seeding.np_random()
            self._np_randoms[i] = rng
        return int(rng.integers(0, 2**31 - 1))

    def _obs(self) -> dict[str, np.ndarray]:
        b = self.batch
        obs = {k: (v.copy() if self.copy else v) for k, v in b.obs.items()}
        obs["action_mask"] = b.mask.astype(np.int8) if self.copy else b.mask.view(np.int8)
        return obs

    def _row_obs(self, i: int) -> dict[str, np.ndarray]:
        b = self.batch
        row = {k: v[i].copy() for k, v in b.obs.items()}
        row["action_mask"] = b.mask[i].astype(np.int8)
        return row

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the legal actions, shape ``(num_envs, num_actions)``."""
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self.batch.mask.copy()

    # ----- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"seed list has {len(seeds)} entries, expected {n}")
        episode = np.zeros(n, dtype=np.int64)
        for i in range(n):
            episode[i] = self._episode_seed(i, seeds[i])
            self.batch.reset_env(i, int(episode[i]))
        self._autoreset[:] = False
        self._started = True
        return self._obs(), {"seed": episode, "_seed": np.ones(n, dtype=np.bool_),
                             "action_mask": self.batch.mask.copy(),
                             "_action_mask": np.ones(n, dtype=np.bool_)}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        b, n = self.batch, self.num_envs
        acts = np.asarray(actions).reshape(n)
        skip = self._autoreset
        restarted = np.flatnonzero(skip)
        for i in restarted:  # NEXT_STEP: the step after the end resets, the action is ignored
            b.reset_env(int(i), self._episode_seed(int(i), None))
        b.step(acts, skip)
        reward = b.reward.copy()
        terminated = b.terminated.copy()
        truncated = b.truncated.copy()
        if len(restarted):
            reward[restarted] = 0.0
            terminated[restarted] = False
            truncated[restarted] = False
        stepped = ~skip
        infos: dict[str, Any] = {}
        for j, key in enumerate(("ticks", "deaths", "treated", "early_stopped")):
            column = b.info_ev[:, j]
            infos[key] = column.astype(bool) if key == "early_stopped" else column.copy()
            infos[f"_{key}"] = stepped
        infos["valid"] = b.valid.copy()
        infos["_valid"] = stepped
        infos["action_mask"] = b.mask.copy()  # like SyncVectorEnv's stacked info["action_mask"]
        infos["_action_mask"] = np.ones(n, dtype=np.bool_)
        ended = np.flatnonzero(terminated | truncated)
        if len(ended):
            self._end_infos(infos, ended)
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and len(ended):
            final_obs = np.full(n, None, dtype=object)
            for i in ended:
                final_obs[i] = self._row_obs(int(i))
                b.reset_env(int(i), self._episode_seed(int(i), None))
            infos["final_obs"] = final_obs
            infos["_final_obs"] = np.isin(np.arange(n), ended)
            self._autoreset = np.zeros(n, dtype=np.bool_)
        else:
            self._autoreset = terminated | truncated
        infos["action_mask"] = b.mask.copy()  # the masks of the returned observations
        infos["_action_mask"] = np.ones(n, dtype=np.bool_)
        return self._obs(), reward, terminated, truncated, infos

    def _end_infos(self, infos: dict[str, Any], ended: np.ndarray) -> None:
        """Score, return and grade components of the episodes that ended this step."""
        n = self.num_envs
        mask = np.zeros(n, dtype=np.bool_)
        mask[ended] = True
        score = np.zeros(n)
        ret = np.zeros(n)
        comps: dict[str, np.ndarray] = {}
        for i in ended:
            grade = self.batch.grade(int(i))
            score[i] = grade.score
            ret[i] = self.batch.episode_return(int(i))
            for key, value in grade.components.items():
                comps.setdefault(key, np.zeros(n))[i] = value
        infos.update({"score": score, "_score": mask, "episode_return": ret,
                      "_episode_return": mask, "components": comps, "_components": mask})

    def render(self) -> tuple[Any, ...] | None:
        return None


def make_vector_env(num_envs: int = 1, lifeline_env: str = "ed", scenario: str | None = None,
                    render_mode: str | None = None, asynchronous: bool = False,
                    max_episode_steps: int | None = None, batch: bool = True,
                    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                    copy: bool = True, version: int = 3,
                    **unknown: Any) -> gym.vector.VectorEnv[Any, Any, Any]:
    """ed's ``vector_entry_point``. ``gym.make_vec("lifeline/ED-v3", num_envs=N)`` is an
    :class:`EDVectorEnv` over the ED-v3 array kernel (``kernel_v3``; plain Python without
    numba); ``batch=False``, ``asynchronous=True`` or a ``render_mode`` give Gymnasium's loop of
    scalar v3 envs (:func:`lifeline.faces.gymnasium.make_vector_env`). ``version=2`` is an
    :class:`EDVectorEnv` over the ED-v2 batch kernel (needs numba; it is an error without it,
    or with ``batch=False``, ``asynchronous=True`` or a ``render_mode``, as no scalar ED-v2
    loop is registered)."""
    from lifeline.faces import gymnasium as adapter

    if version not in (2, 3):
        raise ValueError(f"version must be 2 (the v2 batch kernel) or 3, got {version}")
    if not batch or asynchronous or render_mode is not None:
        if version == 2:
            raise ValueError("version=2 is only available as the batch env (numba, no "
                             "render_mode, not asynchronous)")
        return adapter.make_vector_env(num_envs, lifeline_env, scenario, render_mode,
                                       asynchronous, max_episode_steps, **unknown)
    if max_episode_steps is not None:
        unknown["max_episode_steps"] = max_episode_steps  # episodes end by the env's own clock
    if unknown or lifeline_env != "ed":
        raise TypeError(
            f"lifeline/ED: unexpected keyword argument(s) {', '.join(sorted(unknown))}; "
            f"accepted: num_envs, scenario, render_mode, asynchronous, batch, autoreset_mode, "
            f"copy")
    if version == 2:
        require_numba()  # without numba there is no v2 vector env
    return EDVectorEnv(num_envs, scenario, autoreset_mode=autoreset_mode, copy=copy,
                       version=version)
