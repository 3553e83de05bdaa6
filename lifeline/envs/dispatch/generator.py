"""Seeded generation: the ``metro`` city and each episode's realised call and event stream.

The whole call stream (times, places, types, hidden severity, false alarms, ghosts, tones) and the
city-event schedule are drawn at ``reset`` from their own streams, before any action is taken, so
a seed means one stream whatever the policy does (common random numbers across agents), and the
clairvoyant reference plan can be computed on exactly what will happen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lifeline.envs.dispatch.city import CityParams
from lifeline.envs.dispatch.params import (
    ACCIDENT,
    BREAKDOWN,
    BRIDGE,
    CARDIAC,
    DIVERT,
    FIRE,
    HEATWAVE,
    MCI,
    SEVERITY_P,
    TRANSPORT_P,
    TRAUMA,
    UNITS_NEEDED,
    DispatchParams,
)
from lifeline.envs.dispatch.types import FALSE_ALARM, GHOST, REAL

N_TYPES = len(UNITS_NEEDED)
SHIFT_STARTS = (7.0, 15.0, 23.0)
"""Possible shift start hours (day, evening, night); drawn per episode."""


def call_rate(hour_of_day: float, amplitude: float = 0.35, peak_hour: float = 14.0) -> float:
    """Relative call rate by hour of day (v4: smooth, ``1 + a·cos(2π(h − peak)/24)``, mean 1
    over the day; the afternoon is busy, the small hours quiet)."""
    return 1.0 + amplitude * math.cos(2.0 * math.pi * (hour_of_day - peak_hour) / 24.0)


def expected_calls(p: DispatchParams, start_hour: float) -> float:
    """Expected ordinary calls of a shift starting at ``start_hour``: ``calls_per_shift`` times
    the mean rate over the shift's open window (v4)."""
    t_max = p.shift_min - p.arrival_cutoff_min
    hours = start_hour + np.linspace(0.0, t_max, 97)[:-1] / 60.0 + t_max / 60.0 / 192.0
    rates = 1.0 + p.diurnal_amplitude * np.cos(2.0 * np.pi * (hours - p.diurnal_peak_hour) / 24.0)
    return float(p.calls_per_shift * rates.mean())


def draw_call_count(p: DispatchParams, start_hour: float, rng: np.random.Generator) -> int:
    """The shift's ordinary call count (v4): Poisson with a Gamma(k, 1/k) rate factor (negative
    binomial, variance λ + λ²/k); ``poisson_calls=False``: v3's fixed ``calls_per_shift``."""
    if not p.poisson_calls:
        return int(p.calls_per_shift)
    lam = expected_calls(p, start_hour)
    if math.isfinite(p.rate_dispersion_k):
        lam *= float(rng.gamma(p.rate_dispersion_k, 1.0 / p.rate_dispersion_k))
    return int(rng.poisson(lam))


@dataclass
class CallStream:
    """The realised calls of one episode, sorted by arrival minute (one entry per call)."""

    time: np.ndarray
    node: np.ndarray
    type: np.ndarray
    rtype: np.ndarray
    sev: np.ndarray
    kind: np.ndarray
    tone: np.ndarray
    transport: np.ndarray
    mci: np.ndarray | None = None
    """True for the calls of a mass-casualty burst (v2; the calibration card reports ordinary
    calls apart from bursts)."""
    open: np.ndarray | None = None
    """Minute each call opens to the dispatcher: ring + its drawn call-processing minutes, never
    before a call that rang earlier (v3; ``None``: ring + the constant ``call_processing_min``)."""
    turnout: np.ndarray | None = None
    """Turn-out minutes of a unit sent from its station to each call (v3, drawn per call;
    ``None``: the constant ``turnout_min``)."""
    travel: np.ndarray | None = None
    """v4: travel-time factor of the response trip to each call (lognormal, median 1, spread
    ``travel_sigma``; ``None``: 1)."""


@dataclass
class EventSchedule:
    """The realised city events of one episode, sorted by start minute."""

    time: np.ndarray
    kind: np.ndarray
    a: np.ndarray
    b: np.ndarray
    dur: np.ndarray


def _arrival_times(n: int, start_hour: float, t_max: float, rng: np.random.Generator,
                   t_min: float = 0.0, amplitude: float = 0.35, peak_hour: float = 14.0
                   ) -> np.ndarray:
    """``n`` arrival minutes in ``[t_min, t_max)`` with density ∝ the time-of-day call rate
    (thinning; given its count, a non-homogeneous Poisson process has these times)."""
    out = np.empty(n)
    k = 0
    top = 1.0 + abs(amplitude)
    while k < n:
        t = rng.uniform(t_min, t_max)
        if rng.random() * top <= call_rate(start_hour + t / 60.0, amplitude, peak_hour):
            out[k] = t
            k += 1
    return out


def generate_events(p: DispatchParams, rng: np.random.Generator) -> EventSchedule:
    """City events: each hour of the shift starts one with probability ``event_p``, plus forced."""
    city = p.city
    hours = int(p.shift_min // 60)
    times: list[float] = []
    kinds: list[int] = []
    for h in range(hours):
        if rng.random() < p.event_p:
            times.append(h * 60.0 + rng.uniform(0.0, 60.0))
            kinds.append(int(rng.integers(6)))
    for t, kind in p.forced_events:
        times.append(float(t))
        kinds.append(int(kind))
    a = np.zeros(len(times), np.int64)
    b = np.zeros(len(times), np.int64)
    dur = np.zeros(len(times))
    n_fleet = len(city.unit_home)
    for i, kind in enumerate(kinds):
        if kind == BRIDGE:
            a[i] = rng.integers(len(city.bridges))
            dur[i] = np.inf
        elif kind == ACCIDENT:
            a[i] = rng.integers(len(city.edges))
            dur[i] = rng.uniform(30.0, 90.0)
        elif kind == DIVERT:
            a[i] = rng.integers(len(city.hospitals))
            dur[i] = rng.uniform(60.0, 180.0)
        elif kind == HEATWAVE:
            dur[i] = np.inf
        elif kind == BREAKDOWN:
            a[i] = rng.integers(n_fleet)
            dur[i] = rng.uniform(30.0, 90.0)
        elif kind == MCI:
            weights = np.asarray(city.demand) / np.sum(city.demand)
            a[i] = rng.choice(city.n_nodes, p=weights)
            b[i] = rng.integers(4, 8)
            dur[i] = 60.0
    order = np.argsort(np.asarray(times), kind="stable")
    return EventSchedule(np.asarray(times, dtype=float)[order], np.asarray(kinds, np.int64)[order],
                         a[order], b[order], dur[order])


def generate_calls(p: DispatchParams, events: EventSchedule, start_hour: float,
                   rng_calls: np.random.Generator, rng_patients: np.random.Generator,
                   rng_tone: np.random.Generator) -> CallStream:
    """The call stream: ordinary calls, heatwave extra cardiac calls and mass-casualty bursts."""
    city = p.city
    t_max = p.shift_min - p.arrival_cutoff_min
    demand = np.asarray(city.demand, dtype=float)
    if p.zone_weights is not None:
        demand = demand * np.asarray(p.zone_weights)[np.asarray(city.zone_of)]
    demand = demand / demand.sum()
    mix = np.asarray(p.type_mix, dtype=float)
    mix = mix / mix.sum()

    n = draw_call_count(p, start_hour, rng_calls)
    amp, peak = p.diurnal_amplitude, p.diurnal_peak_hour
    times = [_arrival_times(n, start_hour, t_max, rng_calls, amplitude=amp, peak_hour=peak)]
    nodes = [rng_calls.choice(city.n_nodes, size=n, p=demand)]
    types = [rng_calls.choice(N_TYPES, size=n, p=mix)]
    mci = [np.zeros(n, bool)]
    for t0, kind, a, b in zip(events.time, events.kind, events.a, events.b, strict=True):
        if kind == HEATWAVE and t0 < t_max:
            extra = int(rng_calls.poisson(n * mix[CARDIAC] * (t_max - t0) / t_max))
            times.append(_arrival_times(extra, start_hour, t_max, rng_calls, t_min=float(t0),
                                        amplitude=amp, peak_hour=peak))
            nodes.append(rng_calls.choice(city.n_nodes, size=extra, p=demand))
            types.append(np.full(extra, CARDIAC))
            mci.append(np.zeros(extra, bool))
        elif kind == MCI and t0 < p.shift_min:
            times.append(t0 + rng_calls.uniform(0.0, 10.0, size=int(b)))
            nodes.append(np.full(int(b), int(a)))
            types.append(np.full(int(b), TRAUMA))
            mci.append(np.ones(int(b), bool))
    time = np.concatenate(times)
    order = np.argsort(time, kind="stable")
    time = time[order]
    node = np.concatenate(nodes).astype(np.int64)[order]
    ctype = np.concatenate(types).astype(np.int64)[order]
    is_mci = np.concatenate(mci)[order]
    m = time.size

    # Patients: kind, hidden severity, transport need, dispatcher's reported type.
    u = rng_patients.random(m)
    kind = np.where(u < p.ghost_p, GHOST, np.where(u < p.ghost_p + p.false_alarm_p,
                                                   FALSE_ALARM, REAL)).astype(np.int64)
    kind[is_mci] = REAL
    sev = np.array([rng_patients.choice(4, p=SEVERITY_P[c]) for c in ctype], dtype=np.int64)
    sev[is_mci] = np.maximum(sev[is_mci], 2)
    sev[kind != REAL] = 0
    transport = (rng_patients.random(m) < np.asarray(TRANSPORT_P)[sev]) & (kind == REAL)
    transport |= (ctype == FIRE) & (sev >= 2) & (kind == REAL)
    wrong = rng_patients.random(m) < 0.1
    other = (ctype + rng_patients.integers(1, N_TYPES, size=m)) % N_TYPES
    rtype = np.where(wrong, other, ctype).astype(np.int64)

    # Caller tone 0 calm / 1 agitated / 2 screaming: severity + zone panic bias + noise.
    panic = rng_tone.uniform(-p.panic_range, p.panic_range, size=len(city.zone_names))
    latent = p.tone_severity * sev + panic[np.asarray(city.zone_of)[node]] \
        + rng_tone.normal(0, p.tone_noise, m)
    latent = np.where(kind == FALSE_ALARM, latent + 0.3, latent)
    ghost_tone = rng_tone.choice(3, size=m, p=(0.2, 0.3, 0.5))
    tone = np.where(kind == GHOST, ghost_tone, np.clip(np.rint(latent), 0, 2)).astype(np.int64)
    opens, turnout = draw_intervals(p, time, rng_calls)
    travel = np.exp(p.travel_sigma * rng_calls.standard_normal(m)) if p.travel_sigma > 0 \
        else np.ones(m)
    return CallStream(time, node, ctype, rtype, sev, kind, tone, transport, is_mci, opens,
                      turnout, travel)


def draw_intervals(p: DispatchParams, time: np.ndarray, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Per call (v3): the minute it opens to the dispatcher and the turn-out of a unit sent from
    its station, lognormal around the medians ``call_processing_min`` / ``turnout_min`` (drawn
    at reset, after every other draw of the calls stream, so the reference plan sees them).

    A call opens no earlier than any call that rang before it (calls reach the dispatcher in
    ring order)."""
    m = time.size
    proc = p.call_processing_min * np.exp(p.call_processing_sigma * rng.standard_normal(m))
    turnout = p.turnout_min * np.exp(p.turnout_sigma * rng.standard_normal(m))
    opens = np.maximum.accumulate(time + proc) if m else time.copy()
    return opens, turnout


def toy_params(calls_per_shift: int = 2, radio_delay_p: float = 0.0) -> DispatchParams:
    """A tiny hand-built scenario for unit tests and debugging.

    Four nodes on a line (0 —2— 1 —3— 2 —4— 3 minutes), two zones, one hospital at node 3, two
    units (an ALS at node 0, a BLS at node 2), one mutual-aid slot, no events, no fake calls;
    constant call processing and turn-out (v3's spreads off), deterministic travel, a fixed call
    count and a flat call rate (v4's randomness off) so tests can count minutes.
    """
    city = CityParams(
        name="toy-4", n_nodes=4, edges=((0, 1, 2.0), (1, 2, 3.0), (2, 3, 4.0)),
        zone_of=(0, 0, 1, 1), zone_names=("west", "east"), demand=(1.0, 1.0, 1.0, 1.0),
        hospitals=(3,), hospital_names=("Toy General",), hospital_beds=(2,),
        unit_home=(0, 2), unit_als=(True, False), unit_reliability=(1.0, 1.0),
        posts=(0, 1, 2, 3), bridges=((1, 2),), aid_entry=0, aid_slots=1,
    )
    return DispatchParams(city=city, calls_per_shift=calls_per_shift, false_alarm_p=0.0,
                          ghost_p=0.0, event_p=0.0, panic_range=0.0,
                          radio_delay_p=radio_delay_p, visible_calls=4,
                          call_processing_sigma=0.0, turnout_sigma=0.0, travel_sigma=0.0,
                          poisson_calls=False, diurnal_amplitude=0.0,
                          traffic=((0.0, 1.0), (12.0, 1.0)), tags=("toy",))
