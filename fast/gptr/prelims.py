"""Preliminaries of seed 003 ch. 3 (§3.3, §3.5.1) on the torch fast path (float64, broadcasting): the Gaussian δ(ε) of
Theorem 3.3.3 (corrected sign, erratum E8; and the printed sign-typo form), classic PTR's accounting (Theorem 3.3.4,
Algorithm 3, with its exact worst case (2ε, δ/2): notes generalized-ptr.md §2.1, §3.3), and the data-dependent ε of the
Laplace mechanism (Example 3.5.2). Mirrors ``dpspec.reference.gptr.prelims``.

Theorem 3.3.3's Gaussian δ(ε) is the analytic-Gaussian profile of N(Δ, σ²) vs N(0, σ²) (Balle & Wang 2018, Thm 8;
seed 003 (C.2.1)), i.e. ``base.gaussian_profile`` at noise σ/Δ: it is evaluated by fast/base/gaussian.py's log-space
erfcx form (no cancellation of Φ(a) − e^ε Φ(b); relative accuracy down to δ ~ 1e-300), never duplicated here.
"""
from __future__ import annotations

import torch

from dpspec.reference.domains import DELTA, EPS

from .._torch import params
from ..base.gaussian import log_delta_sigma, ndtr
from dpspec.reference.gptr.spec import NONNEGATIVE, POSITIVE


def log_gaussian_delta(eps: torch.Tensor, sensitivity: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """log δ(ε) of Theorem 3.3.3 (corrected), unchecked tensors: the profile of the Gaussian mechanism with noise
    σ/Δ (sensitivity 1), ``fast.base.gaussian.log_delta_sigma``. −inf where δ underflows."""
    return log_delta_sigma(eps, sigma / sensitivity)


def gaussian_delta(eps, sensitivity, sigma) -> torch.Tensor:
    """δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), seed 003 Theorem 3.3.3 with the sign of the second argument
    corrected (erratum E8; seed 003 (C.2.1)); ε ≥ 0, Δ > 0, σ > 0. Underflows to 0 below the float64 range."""
    eps, sensitivity, sigma = params(eps=(eps, EPS), sensitivity=(sensitivity, POSITIVE), sigma=(sigma, POSITIVE))
    return torch.exp(log_gaussian_delta(eps, sensitivity, sigma))


def gaussian_delta_printed(eps, sensitivity, sigma) -> torch.Tensor:
    """The printed form of seed 003 Theorem 3.3.3, Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) + εσ/Δ) (the sign typo of
    erratum E8): negative for ε > 0 at moderate Δ/σ, equal to the corrected δ at ε = 0. Not a bound; a direct
    difference (−inf where e^ε overflows)."""
    eps, sensitivity, sigma = params(eps=(eps, EPS), sensitivity=(sensitivity, POSITIVE), sigma=(sigma, POSITIVE))
    half = sensitivity / (2 * sigma)
    shift = eps * sigma / sensitivity
    first = ndtr(half - shift)
    second = torch.exp(eps) * ndtr(-half + shift)
    return torch.where(eps == 0, gaussian_delta(eps, sensitivity, sigma), first - second)


def classic_ptr(eps, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """(2ε, δ): seed 003 Theorem 3.3.4 (Dwork & Lei 2009), the accounting of Algorithm 3 (test ε-DP through
    D_β(X) + Lap(1/ε), release Lap(β/ε))."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    return 2 * eps, delta


def classic_ptr_tight(eps, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """(2ε, δ/2): the exact worst case of Algorithm 3 at 2ε (notes §2.1 and §3.3: D(X) = D(X') = 0, the pass
    probability P[Lap(1) > log(1/δ)] = δ/2, the releases far apart)."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    return 2 * eps, delta / 2


def laplace_data_dependent_eps(local_sensitivity, phi) -> torch.Tensor:
    """ε_φ(X) = Δ_LS(X)/φ: the data-dependent DP of M_φ(X) = f(X) + Lap(φ) (seed 003 Example 3.5.2)."""
    local_sensitivity, phi = params(local_sensitivity=(local_sensitivity, NONNEGATIVE), phi=(phi, POSITIVE))
    return local_sensitivity / phi

