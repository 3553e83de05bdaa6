"""Pharmacy v2: hidden padding cannot be decoded from any text, template or the census.

A logistic regression (scipy) on the observable *text* features of a request line — which of
the five justification templates it came with, and the length of its text — is trained on
thousands of lines and must not predict padding better than chance on held-out lines (v1's
templates 3 and 4 appeared only on padded lines). The census and acuity shown with evidence are
ward-level (v1 computed them from the line's estimate, so a redacted estimate could be read back).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from lifeline.envs.pharmacy import dynamics
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.generator import STOCKED
from lifeline.envs.pharmacy.types import AdvanceRound, RequestEvidence, ViewRequests


def _lines(seeds: range) -> tuple[np.ndarray, np.ndarray]:
    """(features, padded) of every stocked request line of every round (advance only)."""
    env = PharmacyEnv("medium")
    feats, labels = [], []
    for seed in seeds:
        state = env.reset(seed)
        while not state.done:
            text = env.step(state, ViewRequests()).message or state.last_result
            rows = text.splitlines()
            i = 0
            for w in range(3):
                for s in np.flatnonzero(STOCKED[w]):
                    row = rows[i]
                    i += 1
                    quote = row.split("('", 1)[1]
                    onehot = [1.0 if quote.startswith(j) else 0.0
                              for j in dynamics.JUSTIFICATIONS]
                    feats.append([*onehot, len(quote) / 50.0, float(w == 2)])
                    labels.append(float(state.padded[w, s]))
            env.step(state, AdvanceRound())
    return np.array(feats), np.array(labels)


def _fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x1 = np.hstack([x, np.ones((len(x), 1))])

    def loss(b: np.ndarray) -> tuple[float, np.ndarray]:
        z = x1 @ b
        p = 1.0 / (1.0 + np.exp(-z))
        eps = 1e-9
        val = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 1e-3 * b @ b
        return float(val), x1.T @ (p - y) / len(y) + 2e-3 * b

    return np.asarray(minimize(loss, np.zeros(x1.shape[1]), jac=True).x)


def _auc(score: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(score, kind="stable")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    for v in np.unique(score):  # ties share their mean rank
        ranks[score == v] = ranks[score == v].mean()
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2)
                 / (pos.sum() * (~pos).sum()))


def test_justification_text_does_not_predict_padding() -> None:
    x_train, y_train = _lines(range(0, 25))
    x_test, y_test = _lines(range(100, 125))
    assert 0.1 < y_train.mean() < 0.6  # enough padding to learn from
    b = _fit(x_train, y_train)
    text_only = np.hstack([x_test, np.ones((len(x_test), 1))])
    text_only[:, -2] = 0.0  # the ward (public) is not a text feature; drop its weight
    score = text_only @ b
    assert _auc(score, y_test) < 0.55  # v1: templates 3-4 only on padding -> far above


def test_census_is_ward_level_so_redaction_holds() -> None:
    env = PharmacyEnv("heavy")
    state = env.reset(3)
    for _ in range(4):
        for w, ward in enumerate(("ward_icu", "ward_er", "ward_general")):
            env.step(state, RequestEvidence(ward, "all"))
            census = {line.split("census ")[1].split(",")[0]
                      for line in state.last_result.splitlines()}
            acuity = {line.split("acuity ")[1].split(",")[0]
                      for line in state.last_result.splitlines()}
            assert len(census) == 1 and len(acuity) == 1, (w, census)
        env.step(state, AdvanceRound())
