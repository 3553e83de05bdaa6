"""Transformer thermal model of each feeder zone (v3): top-oil and hot-spot temperature, ageing.

IEC 60076-7:2018 §8.2 (difference-equation solution of the thermal model) with the distribution
transformer (ONAN) characteristics of its Table 5 — all in ``EVGridParams``' docstrings. With
k21 = 1 the hot-spot rise over top oil is a single first-order lag (time constant k22·τ_w);
the top-oil rise is a first-order lag of τ_o towards its ultimate value at the tick's load.
The load is held constant within a tick, so each lag is stepped exactly
(``x ← ult + (x − ult)·exp(−Δt/τ)``): stable for any tick length, unlike the standard's Euler
form, which needs Δt ≤ τ_w/2.

Relative ageing rate ``V = 2^((θ_h − 98)/6)`` (IEC 60076-7 eq. 2, non-thermally-upgraded
paper): an hour at 98 °C ages the insulation one hour, at 104 °C two hours, at 140 °C 128 hours.
A short overload barely heats the oil (τ_o = 180 min); a long one in a heatwave does.
"""

from __future__ import annotations

import numpy as np

from lifeline.envs.evgrid.params import EVGridParams


def ultimate_rises(p: EVGridParams, k_pu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(top-oil rise over ambient, hot-spot rise over top oil) at steady per-unit load ``k_pu``,
    K."""
    k2 = k_pu * k_pu
    oil = p.oil_rise_k * ((1.0 + p.loss_ratio * k2) / (1.0 + p.loss_ratio)) ** p.oil_exponent
    wind = p.hotspot_gradient_k * k_pu ** p.winding_exponent
    return oil, wind


def steady_state(p: EVGridParams, k_pu: np.ndarray, ambient: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(top-oil °C, hot-spot rise K) after a long time at ``k_pu`` (the state at reset)."""
    oil, wind = ultimate_rises(p, k_pu)
    return ambient + oil, wind


def step(p: EVGridParams, top_oil: np.ndarray, hs_rise: np.ndarray, k_pu: np.ndarray,
         ambient: float, dt_min: float) -> tuple[np.ndarray, np.ndarray]:
    """Top-oil (°C) and hot-spot rise over top oil (K) after ``dt_min`` at load ``k_pu``."""
    oil_u, wind_u = ultimate_rises(p, k_pu)
    a_oil = np.exp(-dt_min / p.tau_oil_min)
    a_wind = np.exp(-dt_min / (2.0 * p.tau_winding_min))  # k22 = 2
    new_oil = ambient + oil_u + (top_oil - ambient - oil_u) * a_oil
    new_rise = wind_u + (hs_rise - wind_u) * a_wind
    return new_oil, new_rise


def ageing_rate(p: EVGridParams, hot_spot: np.ndarray) -> np.ndarray:
    """Relative ageing rate V (1 at the reference hot-spot temperature)."""
    return np.power(2.0, (hot_spot - p.ageing_ref_c) / 6.0)
