"""Control mechanisms for the black-box audit tests: correct Gaussian/Laplace releases and planted bugs.

Neighbours are add/remove; records lie in [0, 1], so a sum has sensitivity 1."""
from __future__ import annotations

import numpy as np

EPS = 1.0


def laplace_sum(x, rng):
    """Correct: sum + Lap(1/ε), ε = 1 (sensitivity 1)."""
    return float(np.sum(x)) + rng.laplace(0.0, 1.0 / EPS)


def laplace_sum_half_noise(x, rng):
    """Bug: noise scale halved (true ε = 2)."""
    return float(np.sum(x)) + rng.laplace(0.0, 0.5 / EPS)


def laplace_sum_double_sensitivity(x, rng):
    """Bug: each record counted twice (sensitivity 2) with noise calibrated for sensitivity 1 (true ε = 2)."""
    return 2.0 * float(np.sum(x)) + rng.laplace(0.0, 1.0 / EPS)


def laplace_mean_true_count(x, rng):
    """Bug ("dataset size treated as public"): mean with noise scale 1/(n ε) using the true, private n."""
    n = len(x)
    return float(np.sum(x)) / n + rng.laplace(0.0, 1.0 / (n * EPS))


def gaussian_sum(x, rng, sigma=1.0):
    """Correct Gaussian release, σ = 1: (ε, δ) = (2.5, 0.01) holds (exact profile δ(2.5) ≈ 0.0063 < 0.01)."""
    return float(np.sum(x)) + sigma * rng.standard_normal()


def gaussian_sum_half_noise(x, rng):
    """Bug: σ halved (δ(2.5) ≈ 0.27 at σ = 0.5)."""
    return gaussian_sum(x, rng, sigma=0.5)
