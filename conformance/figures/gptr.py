"""Figures 3.1, 3.2 and B.1 of seed 003 (Redberg's dissertation, chapter 3 and appendix B: generalized
Propose-Test-Release; the AISTATS 2023 paper arXiv 2301.00301), regenerated from the catalogue (``dpspec figures
gptr``). Every number is computed here, none is typed in; the notes shared/notes/generalized-ptr.md (§4 algorithms and
experiment settings, §5.2 values, §5.3 figure captions) say what the text shows. tests/conformance/test_figures_gptr.py
checks the outputs against the catalogue at a few points.

Files (each a CSV with the data and a PNG rendering):

* ``fig3_1_gptr`` — Fig 3.1 (seed 003 §3.6.1): test MSE (mean and a 95% normal-approximation interval over seeded
  trials) against the total ε at δ = 1e-6 for ridge regression tuned over k = 30 λ by Algorithm 5 (Liu–Talwar random
  stopping, τ = 0.05/k, δ2 = δ/2, per-candidate budget (ε*, δ*) from Thm 3.5.6), each candidate released by
  - ``ops_ptr_alg14``: OPS-PTR, Algorithm 14 with the directions corrected (gptr.E5) and the corrected Thm 3.6.1,
    per-PTR split of §3.6.1: ε = ε̂ = ε*/2, δ = δ*/6, δ̂ = δ*/3, δ′ = δ*/2 (δ′₁ = δ′₂ = δ*/4, a stated choice);
  - ``ops_ptr_alg15``: Algorithm 15 at (ε*, δ*) with the analytic-Gaussian releases (gptr.E7 corrected; gptr.thm_b4_1);
  - ``ops_ptr_alg15_printed``: Algorithm 15 as printed (σ = √log(6/δ)/(ε/4), printed Thm 3.6.1 and Lemma B.4.2) — its
    claimed (ε, δ) is not met: the ``delta_true`` column is Thm 3.5.6 at the per-candidate δ that
    gptr.thm_b4_1's ``printed_calibration`` variant gives;
  - ``ops``: OPS without PTR (Thm 3.6.1 at the data-independent λ_min = 0 and L = ‖𝒳‖(‖𝒳‖‖𝒴‖√(n/λ) + ‖𝒴‖), the
    bound of regression_algorithms.outpert_sensitivity on ‖θ*‖; every dataset's ε_φ is below it, so it is DP);
  - ``outpert``: output perturbation (regression_algorithms.outpert, analytic Gaussian at (ε*, δ*)).
  Reference lines: the non-private ridge (λ chosen on the validation set) and the zero predictor. OPS-Balanced and
  AdaOPS (Wang 2018) are left out: the text names them without defining them (regression_algorithms.py says so).
* ``ops_accounting_gptr`` — the budget behind Fig 3.1 at each ε: Liu–Talwar's T, ε*, δ* (notes §5.2: T = 8705.19,
  δ* = 1.6495e-21 at δ = 1e-6), the per-PTR split and its Ex 3.6.2 total, Algorithm 5's accounted total, and the
  true total of the printed Algorithm 15.
* ``fig3_2_gptr`` — Fig 3.2 (seed 003 §3.6.2): privacy cost (ε at δ = 1e-5) of labelling T = 200 queries with GNMax
  (400 teachers, C = 10 classes) against σ1, high- and low-consensus synthetic votes (:data:`CONSENSUS`): the
  data-independent Gaussian baseline (gptr.gnmax_composed), the data-dependent DP (non-private: Papernot's
  data-dependent RDP, gptr.thm3_6_4, converted at the best order of :data:`ORDERS`; and at Algorithm 6's order α),
  and PATE-PTR's purple-region floor ε̂ + mean ε_σ1 over 10 trials (Algorithm 6 at σ_s = σ_2 = 15) with the test
  cost ε̂ in three forms: the exact GNSS worst case (gptr.thm3_6_6), Papernot's Thm 23 (the notes' E2: 0.58994) and
  as printed (0.58174).
* ``figb1a_gptr`` — Fig B.1(a): the data-dependent ε of binary report-noisy-max (gptr.thm_b3_2, exact, pure and at
  δ = 1e-5) and the text's printed bound against the vote gap, with the Laplace ε = 10.
* ``figb1b_gptr`` — Fig B.1(b): privacy cost at aligned error rate, t = 100, b = 1/ε ∈ (0, 0.5], δ = 1e-5: Laplace
  (ε, 0); Gen-PTR ε̃ + E[ε_p], ε̃ = 1/(2b), E[ε_p] computed exactly (a sum over the integer values of ⌈t_p⌉; the text
  averages 100000 draws), with ε_p = sup_{g ≥ t_p} ε_{δ/2}(g) (corrected, gptr.E4(iii)) and as printed ε_{δ/2}(t_p);
  classic PTR with the ε̃ whose error rate P[t_p ≤ 1]/2 equals the Laplace error rate p(εt) (closed form).

Deviations from the text, stated on the outputs: Fig 3.1 uses scikit-learn's bundled diabetes data (442 × 10; the
text's UCI sets are not named) — columns z-scored, rows scaled to norm 1 (‖𝒳‖ = 1), the label centred and divided by
its largest magnitude (‖𝒴‖ = 1), these statistics taken as public as in the text; a fresh seeded 60/10/30 split per
trial. Fig 3.2's MNIST teachers are replaced by a stated seeded vote model (:func:`synthetic_votes`), and σ1 runs
over 1.3^x, x ∈ [10, 14.8] (the authors' public code, notes §4 [EXT]; the text gives no range).

Speed: Algorithm 5 (reference/gptr/algorithms.py, used as is) calls its candidate mechanism ~600 times per run, and
the mpmath reference algorithms take ~0.2 s per call; the candidates here are float64 mirrors of
regression_algorithms.alg14_ops_ptr / alg15_ops_ptr / ops_sample / outpert that draw the same random numbers in the
same order (the tests replay one draw sequence through both and compare), with every constant (analytic-Gaussian σ,
normal quantiles, γ* of data-independent OPS) from the reference; where Δ^P is so large that γ* underflows to 0 the
mirrors output ⊥ (the reference algorithms raise OverflowError there: small λ at small ε). Algorithm 6's
data-dependent RDP and smooth sensitivity come from the torch fast path (dpspec.fast.gptr.pate; the reference takes
minutes at T = 200), the rest of Algorithm 6 mirrors smooth_sensitivity.alg6_pate_ptr draw for draw (tested against
it on small vote matrices).
"""
from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from pathlib import Path

import mpmath
import numpy as np
from mpmath import mpf

from dpspec.reference.errors import ParameterError

# ---------------------------------------------------------------------------------------------------------------
# settings (seed 003 §3.6.1, §3.6.2, Ex B.3.1; notes §4, §5.1)

DPS = 30  # working precision of the reference calls
SEED = 20230101  # base seed of every random stream here (a trial's seed is SEED + its index)
# Fig 3.1 (Sec 3.6.1): δ = 1e-6, k = 30 λ log-spaced on [2.5, 2.5^10], τ = 0.05/k, δ2 = δ/2, split 60/10/30
OPS = {"delta": 1e-6, "k": 30, "lam_range": (2.5, 2.5**10), "tau_times_k": 0.05, "split": (0.6, 0.1, 0.3)}
OPS_GRID = {"full": {"eps": (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0), "trials": 20},
            "quick": {"eps": (2.0, 16.0), "trials": 3}}
OPS_METHODS = ("ops_ptr_alg14", "ops_ptr_alg15", "ops_ptr_alg15_printed", "ops", "outpert")
# Fig 3.2 (Sec 3.6.2): 400 teachers, T = 200 queries, δ = 1e-5, σ_s = σ_2 = 15, 10 trials; C = 10 (MNIST classes)
PATE = {"teachers": 400, "queries": 200, "classes": 10, "delta": 1e-5, "sigma_s": 15, "trials": 10}
PATE_GRID = {"full": tuple(1.3 ** (10 + 0.2 * i) for i in range(25)), "quick": (1.3**10, 1.3**14.8)}
# the vote model (:func:`synthetic_votes`): the true class gets a share drawn from ``top``, one other class (the
# runner-up) a share from ``runner_up``, the remaining C − 2 classes split the rest equally; votes ~ Multinomial
CONSENSUS = {"high": {"top": (0.75, 0.90), "runner_up": (0.02, 0.08)},
             "low": {"top": (0.30, 0.42), "runner_up": (0.15, 0.25)}}
ORDERS = tuple(float(a) for a in np.geomspace(1.05, 1000.0, 240))  # the orders of the non-private curve
# Fig B.1 (Ex B.3.1): (a) ε = 10, the gap varied; (b) t = 100, b = 1/ε ∈ (0, 0.5], ε̃ = 1/(2b); δ = 1e-5
B1 = {"eps": 10, "delta": 1e-5, "t": 100}
B1_GRID = {"full": {"gaps": tuple(range(0, 31)), "b": tuple(0.01 * i for i in range(1, 51))},
           "quick": {"gaps": (0, 1, 2, 5, 10, 30), "b": (0.05, 0.1, 0.25, 0.5)}}

_DATA_NOTE = ("data: scikit-learn's diabetes (442 x 10; the text's UCI sets are unnamed): columns z-scored, rows to "
              "norm 1, label centred and divided by its largest magnitude (|y| <= 1); split 60/10/30, fresh per "
              "trial")
_LEFT_OUT = "OPS-Balanced and AdaOPS are left out: seed 003 names them without defining them"
_VOTE_NOTE = ("votes: synthetic (MNIST teachers not reproduced); per query the true class gets a share ~ U{top}, one "
              "runner-up class ~ U{runner_up}, the other 8 classes split the rest; 400 votes ~ Multinomial")


def _f(x) -> float | None:
    return None if x is None else float(x)


def _ci(values) -> tuple[float, float, float]:
    """(mean, low, high): the mean and a 95% normal-approximation interval, mean ± 1.96·s/√n (s the sample standard
    deviation; with a few trials it is only indicative)."""
    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    half = 1.959963984540054 * float(v.std(ddof=1)) / math.sqrt(len(v)) if len(v) > 1 else 0.0
    return mean, mean - half, mean + half


# ---------------------------------------------------------------------------------------------------------------
# Fig 3.1: the data and the ridge path


def _diabetes_raw() -> tuple[np.ndarray, np.ndarray]:
    """The 442 × 10 diabetes data and its target as scikit-learn ships them (sklearn/datasets/data/
    diabetes_data_raw.csv.gz, diabetes_target.csv.gz), read without importing scikit-learn (whose import takes
    seconds); through ``sklearn.datasets.load_diabetes(scaled=False)`` where the files are not found. Refuses with
    one ParameterError when scikit-learn is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ParameterError("dpspec figures gptr needs scikit-learn for Fig 3.1's data (its bundled diabetes set): "
                             "pip install -c constraints.txt -e '.[examples]'")
    folder = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data"
    data, target = folder / "diabetes_data_raw.csv.gz", folder / "diabetes_target.csv.gz"
    if data.is_file() and target.is_file():
        return np.loadtxt(data), np.loadtxt(target)
    from sklearn.datasets import load_diabetes  # pragma: no cover - another scikit-learn layout

    return load_diabetes(return_X_y=True, scaled=False)  # pragma: no cover


def load_diabetes_scaled() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled diabetes data (no download), preprocessed as seed 003 §3.6.1 says: columns z-scored,
    each row scaled to Euclidean norm 1 (‖𝒳‖ = 1); the label centred and divided by its largest magnitude
    (‖𝒴‖ = 1; the text bounds y without saying how). Refuses with one ParameterError when scikit-learn is missing."""
    X, y = _diabetes_raw()
    X = (X - X.mean(0)) / X.std(0)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    y = y - y.mean()
    return X, y / np.abs(y).max()


def lambda_grid(k: int = OPS["k"]) -> np.ndarray:
    """k values of λ log-spaced on [2.5, 2.5^10] (seed 003 §3.6.1; notes §5.2: 2.5, 3.322, …, 9536.7)."""
    lo, hi = OPS["lam_range"]
    return np.geomspace(lo, hi, k)


@dataclass
class RidgePath:
    """One split's ridge quantities per λ: θ*_λ, W_λ = L_λ^{-T} (H + λI = L_λL_λᵀ, so θ*_λ + W_λξ/√γ is an OPS
    sample, Ex 3.5.5), Δ(λ) = log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖) (Alg 14 line 3), and λ_min(XᵀX) of the training rows."""

    X: np.ndarray
    y: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    lams: np.ndarray
    theta: np.ndarray
    W: np.ndarray
    log_lip: np.ndarray
    lam_min: float

    @classmethod
    def build(cls, X, y, rng: np.random.Generator, lams=None) -> "RidgePath":
        """A seeded 60/10/30 split of (X, y) and the ridge path on its training part."""
        from dpspec.reference.gptr.regression_algorithms import lambda_min, log_lipschitz, ridge

        n = X.shape[0]
        perm = rng.permutation(n)
        n_tr, n_val = round(OPS["split"][0] * n), round(OPS["split"][1] * n)
        tr, va, te = perm[:n_tr], perm[n_tr:n_tr + n_val], perm[n_tr + n_val:]
        lams = lambda_grid() if lams is None else np.asarray(lams, dtype=np.float64)
        Xt, yt = X[tr], y[tr]
        thetas, Ws, logs = [], [], []
        for lam in lams:
            h_lam, theta = ridge(Xt, yt, lam)
            thetas.append(theta)
            Ws.append(np.linalg.inv(np.linalg.cholesky(h_lam)).T)
            logs.append(log_lipschitz(Xt, yt, lam, 1.0, 1.0))
        return cls(Xt, yt, X[va], y[va], X[te], y[te], lams, np.array(thetas), np.array(Ws), np.array(logs),
                   lambda_min(Xt))

    def val_mse(self, theta) -> float:
        return float(np.mean((self.X_val @ theta - self.y_val) ** 2))

    def test_mse(self, theta) -> float:
        return float(np.mean((self.X_test @ theta - self.y_test) ** 2))

    def ops_draw(self, j: int, gamma: float, rng) -> np.ndarray:
        """θ ~ N(θ*_λ, (γ(XᵀX + λI))⁻¹): regression_algorithms.ops_sample's draw (d standard normals)."""
        return self.theta[j] + self.W[j] @ rng.standard_normal(self.theta.shape[1]) / math.sqrt(gamma)


# ---------------------------------------------------------------------------------------------------------------
# Fig 3.1: per-candidate mechanisms (float64 mirrors of reference/gptr/regression_algorithms.py)


def _tail(delta, printed: bool) -> float:
    """The tail factor of Thm 3.6.1 in reference/gptr/ops.py: 2 log(2/δ) (corrected) or log(2/δ) (printed)."""
    lg = float(mpmath.log(2 / mpf(delta)))
    return lg if printed else 2 * lg


def _lipschitz(delta_p: float) -> float:
    """L̃ = ‖𝒳‖e^{Δ^P} at ‖𝒳‖ = 1 (Alg 14 line 4), +inf where e^{Δ^P} exceeds the float64 range."""
    return math.exp(delta_p) if delta_p < 709.0 else math.inf


def _gamma_star(eps: float, lam_star: float, L: float, x2: float, tail: float) -> float | None:
    """γ* = sup{γ : aγ + b√γ + c ≤ ε} of Thm 3.6.1 (reference ops._ops_terms / _gamma_star, float64):
    a = L²/(2(λ* + ‖𝒳‖²)), b = L√(t/λ*), c = (1 + t)‖𝒳‖²/(2λ*), the stable root; None (⊥) where c ≥ ε, and where
    γ* underflows to 0 (L̃ beyond ~1e150: γ* ∝ 1/L̃²; no usable γ > 0, Alg 14 line 7 read as γ* > 0, erratum gptr.E15 —
    the reference algorithms raise OverflowError there instead, from math.exp(Δ^P))."""
    a = L * L / (2 * (lam_star + x2))
    b = L * math.sqrt(tail / lam_star)
    room = eps - (1 + tail) * x2 / (2 * lam_star)
    if not room > 0:
        return None
    s = 2 * room / (b + math.sqrt(b * b + 4 * a * room))
    return s * s if s * s > 0 else None


@dataclass(frozen=True)
class Candidate:
    """The per-candidate budget (ε*, δ*) of Algorithm 5 and each method's constants, from the reference (mpmath)."""

    eps_star: float
    delta_star: float
    alg14: dict
    alg15: dict
    alg15_printed: dict
    ops_gamma: tuple
    outpert_sigma: tuple


def selection_budget(eps, delta=OPS["delta"], k=OPS["k"]) -> dict:
    """Algorithm 5's budget for a total (ε, δ) (seed 003 Thm 3.5.6; notes §5.2): τ = 0.05/k, δ2 = δ/2, the integer
    cut-off T = ⌈(1/τ) log(1/δ2)⌉ that algorithms.alg5_ptr_selection accounts with, δ* = ((δ − δ2)/T)²/2 and
    ε* = ε/3 − √(2δ*), so that (3ε* + 3√(2δ*), √(2δ*)T + δ2) = (ε, δ)."""
    from dpspec.reference.gptr.algorithms import alg5_cutoff
    from dpspec.reference.gptr.selection import liu_talwar_cutoff

    with mpmath.workdps(DPS):
        tau = mpf(OPS["tau_times_k"]) / k
        delta_2 = mpf(delta) / 2
        cutoff = alg5_cutoff(tau, delta_2)
        delta_star = ((mpf(delta) - delta_2) / cutoff) ** 2 / 2
        eps_star = mpf(eps) / 3 - mpmath.sqrt(2 * delta_star)
        if not eps_star > 0:
            raise ParameterError(f"eps={eps!r}: below 3√(2δ*) = {float(3 * mpmath.sqrt(2 * delta_star))!r}")
        return {"tau": float(tau), "delta_2": float(delta_2), "T_real": float(liu_talwar_cutoff(tau, delta_2)),
                "T": cutoff, "eps_star": float(eps_star), "delta_star": float(delta_star)}


def candidate_constants(eps_star, delta_star, lams, n_max) -> Candidate:
    """Every constant of the five candidate mechanisms at (ε*, δ*), from the reference at DPS digits:
    Alg 14 (split of §3.6.1): the analytic-Gaussian σ(ε̂/2, δ̂/2) of its releases and the quantiles z(δ′₁), z(δ′₂);
    Alg 15: σ/Δ and the shift (alg15_sigma / alg15_sigma_printed, alg15_margin); OPS without PTR: γ*_λ
    (ops_gamma_star at λ_min = 0, L = 1 + √(n/λ); None where infeasible); OutPert: σ_λ (outpert_sensitivity ×
    the analytic Gaussian σ(ε*, δ*))."""
    from dpspec.reference._normal import ndtri_upper
    from dpspec.reference.base.gaussian import gaussian_sigma
    from dpspec.reference.gptr.ops import (alg15_margin, alg15_sigma, alg15_sigma_printed, ops_gamma_feasible,
                                           ops_gamma_star)
    from dpspec.reference.gptr.regression_algorithms import outpert_sensitivity

    with mpmath.workdps(DPS):
        es, ds = mpf(eps_star), mpf(delta_star)
        split = {"eps": es / 2, "eps_hat": es / 2, "delta": ds / 6, "delta_hat": ds / 3, "delta_prime_1": ds / 4,
                 "delta_prime_2": ds / 4}
        alg14 = {k: float(v) for k, v in split.items()}
        alg14.update(noise=float(gaussian_sigma(split["eps_hat"] / 2, split["delta_hat"] / 2)),
                     z1=float(ndtri_upper(split["delta_prime_1"])), z2=float(ndtri_upper(split["delta_prime_2"])),
                     tail=_tail(split["delta"], False))
        a15 = {}
        for printed in (False, True):
            ratio = alg15_sigma_printed(es, ds) if printed else alg15_sigma(es, ds)
            a15[printed] = {"eps": float(es), "delta": float(ds), "ratio": float(ratio),
                            "margin": float(alg15_margin(es, ds, ratio)), "tail": _tail(ds / 3, printed),
                            "printed": printed}
        gammas = []
        for lam in lams:
            L = 1 + math.sqrt(n_max / float(lam))  # ‖𝒳‖(‖𝒳‖‖𝒴‖√(n/λ) + ‖𝒴‖) at ‖𝒳‖ = ‖𝒴‖ = 1
            ok = ops_gamma_feasible(es, mpf(lam), mpf(0), mpf(1), ds)
            gammas.append(float(ops_gamma_star(es, mpf(lam), mpf(0), mpf(L), mpf(1), ds)) if ok else None)
        unit = float(gaussian_sigma(es, ds))
        sigmas = tuple(outpert_sensitivity(lam, 1.0, 1.0, n_max) * unit for lam in lams)
    return Candidate(float(es), float(ds), alg14, a15[False], a15[True], tuple(gammas), sigmas)


def run_alg14(path: RidgePath, j: int, rng, c: dict, trace: list | None = None):
    """regression_algorithms.alg14_ops_ptr at λ = path.lams[j] (‖𝒳‖ = ‖𝒴‖ = 1), float64, the same draws in the same
    order: Z (λ^P_min), Z′ (Δ^P), then d normals for the OPS sample; None for ⊥. ``trace`` collects
    (j, λ^P_min, Δ^P, γ) per call (None where not reached)."""
    lam = float(path.lams[j])
    s1 = c["noise"]  # ‖𝒳‖²·σ
    lam_p = max(path.lam_min + s1 * rng.standard_normal() - s1 * c["z1"], 0.0)
    delta_p = gamma = None
    if lam + lam_p > 1.0:
        s2 = math.log1p(1.0 / (lam + lam_p - 1.0)) * c["noise"]  # corrected Lemma B.4.2 at λ^P_min
        delta_p = path.log_lip[j] + s2 * rng.standard_normal() + s2 * c["z2"]
        gamma = _gamma_star(c["eps"], lam + lam_p, _lipschitz(delta_p), 1.0, c["tail"])
    if trace is not None:
        trace.append((j, lam_p, delta_p, gamma))
    return None if gamma is None else path.ops_draw(j, gamma, rng)


def run_alg15(path: RidgePath, j: int, rng, c: dict, trace: list | None = None):
    """regression_algorithms.alg15_ops_ptr at λ = path.lams[j] (``c["printed"]``: the printed calibration, Lemma
    B.4.2 and Thm 3.6.1 as printed), float64, the same draws in the same order; None for ⊥. ``trace`` as in
    :func:`run_alg14`."""
    lam, printed = float(path.lams[j]), c["printed"]
    lam_t = max(path.lam_min + c["ratio"] * rng.standard_normal() - c["margin"], 0.0)
    delta_p = gamma = None
    if lam + lam_t > (0.0 if printed else 1.0):
        s = math.log1p(1.0 / (lam + lam_t)) if printed else math.log1p(1.0 / (lam + lam_t - 1.0))
        delta_p = path.log_lip[j] + s * c["ratio"] * rng.standard_normal() + s * c["margin"]
        gamma = _gamma_star(c["eps"] / 2, lam + lam_t, _lipschitz(delta_p), 1.0, c["tail"])
    if trace is not None:
        trace.append((j, lam_t, delta_p, gamma))
    return None if gamma is None else path.ops_draw(j, gamma, rng)


def run_ops(path: RidgePath, j: int, rng, gammas):
    """OPS without PTR at the data-independent γ*_λ (:func:`candidate_constants`); None where no γ meets ε*."""
    return None if gammas[j] is None else path.ops_draw(j, gammas[j], rng)


def run_outpert(path: RidgePath, j: int, rng, sigmas):
    """regression_algorithms.outpert's draw: θ*_λ + σ_λ N(0, I_d)."""
    return path.theta[j] + sigmas[j] * rng.standard_normal(path.theta.shape[1])


def _runner(method: str, const: Candidate, trace: list | None = None):
    if method == "ops_ptr_alg14":
        return lambda path, j, rng: run_alg14(path, j, rng, const.alg14, trace)
    if method == "ops_ptr_alg15":
        return lambda path, j, rng: run_alg15(path, j, rng, const.alg15, trace)
    if method == "ops_ptr_alg15_printed":
        return lambda path, j, rng: run_alg15(path, j, rng, const.alg15_printed, trace)
    if method == "ops":
        return lambda path, j, rng: run_ops(path, j, rng, const.ops_gamma)
    if method == "outpert":
        return lambda path, j, rng: run_outpert(path, j, rng, const.outpert_sigma)
    raise ParameterError(f"method={method!r}: one of {OPS_METHODS}")


def select(method: str, path: RidgePath, const: Candidate, budget: dict, rng: np.random.Generator,
           trace: list | None = None) -> dict:
    """One run of Algorithm 5 (algorithms.alg5_ptr_selection, the reference, as is) over the λ indices, each call the
    candidate mechanism ``method`` at (ε*, δ*); the score is −(validation MSE). Returns the test MSE of the selected
    release (of the zero predictor when every call gave ⊥), T̂, the share of ⊥ and the accounted (ε, δ).
    ``trace`` (OPS-PTR methods) collects each call's private quantities (:func:`run_alg14`)."""
    from dpspec.reference.gptr.algorithms import alg5_ptr_selection

    run = _runner(method, const, trace)
    bottoms = [0]

    def call(g, j):
        out = run(path, j, g)
        bottoms[0] += out is None
        return out

    outcome = alg5_ptr_selection(rng, list(range(len(path.lams))), call, lambda theta: -path.val_mse(theta),
                                 const.eps_star, const.delta_star, budget["tau"], budget["delta_2"])
    t_hat = outcome.details["T_hat"]
    if outcome.release is None:
        mse, lam = float(np.mean(path.y_test**2)), None
    else:
        j, theta = outcome.release
        mse, lam = path.test_mse(theta), float(path.lams[j])
    return {"test_mse": mse, "lam": lam, "T_hat": t_hat, "bottom_share": bottoms[0] / t_hat,
            "eps_accounted": float(outcome.eps), "delta_accounted": float(outcome.delta)}


def _printed_alg15_truth(eps_star, delta_star, budget) -> tuple[float, float]:
    """The total (ε, δ) that Algorithm 5 over the printed Algorithm 15 really has: Thm 3.5.6 (gptr.thm3_5_6) at the
    per-candidate (ε*, δ_true), δ_true from gptr.thm_b4_1's ``printed_calibration`` variant (gptr.E7; the printed Thm
    3.6.1 at δ/3 holds at √(2δ/3))."""
    from dpspec.reference.gptr.ops import thm_b4_1_printed_calibration
    from dpspec.reference.gptr.selection import liu_talwar

    with mpmath.workdps(DPS):
        _, d_true = thm_b4_1_printed_calibration(mpf(eps_star), mpf(delta_star))
        e, d = liu_talwar(mpf(eps_star), d_true, mpf(budget["tau"]), mpf(budget["delta_2"]))
        return float(e), float(d)


def ops_accounting_rows(eps_grid) -> list[dict]:
    """The budget behind Fig 3.1 at each total ε (δ = 1e-6): :func:`selection_budget`, the per-PTR split of §3.6.1
    and its Ex 3.6.2 total (gptr.ex3_6_2, sum form: must be ≤ (ε*, δ*)), Alg 15's (gptr.thm_b4_1) at (ε*, δ*),
    Thm 3.5.6's total (gptr.thm3_5_6 at the real T of the text, and at Algorithm 5's integer cut-off), and the
    printed Alg 15's true per-candidate δ and total."""
    from dpspec.reference.gptr.ops import ex3_6_2, thm_b4_1, thm_b4_1_printed_calibration
    from dpspec.reference.gptr.selection import liu_talwar

    rows = []
    for eps in eps_grid:
        b = selection_budget(eps)
        with mpmath.workdps(DPS):
            es, ds = mpf(b["eps_star"]), mpf(b["delta_star"])
            e62, d62 = ex3_6_2(es / 2, es / 2, ds / 6, ds / 3, ds / 4, ds / 4)
            e15, d15 = thm_b4_1(es, ds)
            _, d15p = thm_b4_1_printed_calibration(es, ds)
            lt_e, lt_d = liu_talwar(es, ds, mpf(b["tau"]), mpf(b["delta_2"]))
            root = mpmath.sqrt(2 * ds)
            int_e, int_d = 3 * es + 3 * root, root * b["T"] + mpf(b["delta_2"])
        true_e, true_d = _printed_alg15_truth(b["eps_star"], b["delta_star"], b)
        rows.append({"eps": eps, "delta": OPS["delta"], "k": OPS["k"], "tau": b["tau"], "delta_2": b["delta_2"],
                     "T_real": b["T_real"], "T_cutoff": b["T"], "eps_star": b["eps_star"],
                     "delta_star": b["delta_star"], "ptr_eps": b["eps_star"] / 2, "ptr_eps_hat": b["eps_star"] / 2,
                     "ptr_delta": b["delta_star"] / 6, "ptr_delta_hat": b["delta_star"] / 3,
                     "ptr_delta_prime": b["delta_star"] / 2, "ex3_6_2_eps": float(e62), "ex3_6_2_delta": float(d62),
                     "alg15_eps": float(e15), "alg15_delta": float(d15), "thm3_5_6_eps": float(lt_e),
                     "thm3_5_6_delta": float(lt_d), "alg5_eps": float(int_e), "alg5_delta": float(int_d),
                     "alg15_printed_delta_per_candidate": float(d15p), "alg15_printed_total_eps": true_e,
                     "alg15_printed_total_delta": true_d,
                     "alg15_printed_misses_delta": bool(true_d > OPS["delta"])})
    return rows


def fig3_1_rows(eps_grid, trials: int) -> list[dict]:
    """Fig 3.1: per method and total ε, the test MSE over ``trials`` seeded trials (trial i: split and mechanisms
    seeded by SEED + i; each method draws from its own stream), plus the non-private ridge (λ by validation) and
    the zero predictor. Columns: mean and interval, median and largest test MSE (a run whose random stopping tries
    few candidates can release an OPS sample with a tiny γ*: one such run dominates a mean), the smallest and mean T̂,
    the share of ⊥ among the calls, the share of runs that returned ⊥, the accounted (ε, δ) and for the printed
    Alg 15 the true total δ."""
    X, y = load_diabetes_scaled()
    paths = [RidgePath.build(X, y, np.random.default_rng([SEED, i])) for i in range(trials)]
    n_max = paths[0].X.shape[0]
    rows = []
    for tag, mses in (("non_private_ridge", [p.test_mse(p.theta[int(np.argmin([p.val_mse(t) for t in p.theta]))])
                                            for p in paths]),
                      ("zero_predictor", [float(np.mean(p.y_test**2)) for p in paths])):
        mean, lo, hi = _ci(mses)
        for eps in eps_grid:
            rows.append({"method": tag, "eps": eps, "delta": OPS["delta"], "trials": trials, "test_mse": mean,
                         "ci_low": lo, "ci_high": hi, "test_mse_median": float(np.median(mses)),
                         "test_mse_max": max(mses), "min_T_hat": None, "mean_T_hat": None, "bottom_share": None,
                         "runs_all_bottom": None, "mean_lam": None, "eps_accounted": None, "delta_accounted": None,
                         "delta_true": None, "valid": True, "note": "reference line"})
    for eps in eps_grid:
        budget = selection_budget(eps)
        const = candidate_constants(budget["eps_star"], budget["delta_star"], paths[0].lams, n_max)
        true_total = _printed_alg15_truth(budget["eps_star"], budget["delta_star"], budget)
        for m_idx, method in enumerate(OPS_METHODS):
            runs = [select(method, p, const, budget, np.random.default_rng([SEED, i, m_idx, int(eps * 1000)]))
                    for i, p in enumerate(paths)]
            mean, lo, hi = _ci([r["test_mse"] for r in runs])
            lams = [r["lam"] for r in runs if r["lam"] is not None]
            printed = method == "ops_ptr_alg15_printed"
            rows.append({"method": method, "eps": eps, "delta": OPS["delta"], "trials": trials, "test_mse": mean,
                         "ci_low": lo, "ci_high": hi,
                         "test_mse_median": float(np.median([r["test_mse"] for r in runs])),
                         "test_mse_max": max(r["test_mse"] for r in runs),
                         "min_T_hat": min(r["T_hat"] for r in runs),
                         "mean_T_hat": float(np.mean([r["T_hat"] for r in runs])),
                         "bottom_share": float(np.mean([r["bottom_share"] for r in runs])),
                         "runs_all_bottom": sum(r["lam"] is None for r in runs) / trials,
                         "mean_lam": float(np.mean(lams)) if lams else None,
                         "eps_accounted": max(r["eps_accounted"] for r in runs),
                         "delta_accounted": max(r["delta_accounted"] for r in runs),
                         "delta_true": true_total[1] if printed else None, "valid": not printed,
                         "note": ("printed calibration (gptr.E7): claimed (ε, δ) not met, delta_true is Thm 3.5.6 at "
                                  "gptr.thm_b4_1 printed_calibration" if printed else _DATA_NOTE)})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Fig 3.2: PATE-PTR on synthetic votes


def synthetic_votes(kind: str, rng: np.random.Generator, queries=PATE["queries"], classes=PATE["classes"],
                    teachers=PATE["teachers"]) -> tuple[np.ndarray, np.ndarray]:
    """(votes (T, C) int, true classes (T,)) from the stated model (:data:`CONSENSUS`): per query a true class c ~
    U{0..C−1} and a runner-up class ≠ c; shares p ~ U(top), r ~ U(runner_up) on them and (1 − p − r)/(C − 2) on each
    other class; ``teachers`` votes ~ Multinomial (the text's high/low-consensus sets are in an appendix the
    dissertation leaves out, notes §4; the low model's top count ~ 120–170 follows the authors' code [EXT])."""
    if kind not in CONSENSUS:
        raise ParameterError(f"kind={kind!r}: one of {sorted(CONSENSUS)}")
    m = CONSENSUS[kind]
    truth = rng.integers(0, classes, size=queries)
    votes = np.empty((queries, classes), dtype=np.int64)
    for i, c in enumerate(truth):
        runner = (c + 1 + rng.integers(0, classes - 1)) % classes
        p, r = rng.uniform(*m["top"]), rng.uniform(*m["runner_up"])
        pi = np.full(classes, (1 - p - r) / (classes - 2))
        pi[c], pi[runner] = p, r
        votes[i] = rng.multinomial(teachers, pi)
    return votes, truth


@functools.lru_cache(maxsize=8)
def pate_setting(sigma_s: float = PATE["sigma_s"], delta: float = PATE["delta"]) -> dict:
    """Algorithm 6's constants at σ_s = σ_2 (seed 003 §3.6.2): ε̂ = gptr pate_eps_hat(σ_s, δ) (the inverse of line 2,
    notes §5.2: 0.58174 at σ_s = 15), (α, σ_s, β) = pate_constants(ε̂, δ), and the test cost at δ/2 in three forms
    (pate.test_cost: the exact GNSS worst case, Papernot's Thm 23, the printed (3α+2)/(2σ_s²))."""
    from dpspec.reference.gptr.pate import pate_constants, pate_eps_hat, test_cost

    with mpmath.workdps(DPS):
        eps_hat = pate_eps_hat(mpf(sigma_s), mpf(delta))
        alpha, sig, beta = pate_constants(eps_hat, mpf(delta))
        return {"eps_hat": float(eps_hat), "alpha": float(alpha), "sigma_s": float(sig), "beta": float(beta),
                "delta": float(delta), "cost_tight": float(test_cost(eps_hat, mpf(delta), "tight")),
                "cost_thm23": float(test_cost(eps_hat, mpf(delta), "thm23")),
                "cost_printed": float(test_cost(eps_hat, mpf(delta), "printed"))}


def pate_statistics(votes, sigma_1: float, alpha: float, beta: float) -> tuple[float, float]:
    """(E(X), SS_β(X)) of Algorithm 6 lines 4–5 on the torch fast path: Papernot's data-dependent RDP β(q̃) summed
    over the queries (fast gptr.pate.data_dependent_rdp_beta) and its β-smooth sensitivity (smooth_sensitivity)."""
    import torch

    from dpspec.fast.gptr.pate import data_dependent_rdp_beta, smooth_sensitivity

    v = torch.as_tensor(np.asarray(votes), dtype=torch.float64)
    s, a = torch.tensor(float(sigma_1), dtype=torch.float64), torch.tensor(float(alpha), dtype=torch.float64)
    teachers = int(v[0].sum())
    E = float(data_dependent_rdp_beta(v, s, a))
    SS = float(smooth_sensitivity(v, teachers, s, a, torch.tensor(float(beta), dtype=torch.float64)))
    return E, SS


def alg6_upper(E: float, SS: float, setting: dict, z1: float, z2: float) -> dict:
    """Algorithm 6 lines 6–8 (smooth_sensitivity.alg6_pate_ptr, float64): c = √(2 log(2/δ_2)), δ_2 = δ/2,
    μ = log SS + βσ_2 z2 + cσ_2β, upper = E + SS σ_s z1 + σ_s c e^μ (Lemma 3.6.5), ε_σ1 = upper + log(2/δ)/(α − 1)."""
    alpha, sigma_s, beta, delta = setting["alpha"], setting["sigma_s"], setting["beta"], setting["delta"]
    c = math.sqrt(2 * math.log(2 / (delta / 2)))
    if SS > 0:
        mu = math.log(SS) + beta * sigma_s * z2 + c * sigma_s * beta
        upper = E + SS * sigma_s * z1 + sigma_s * c * math.exp(mu)
    else:
        mu, upper = -math.inf, E
    return {"mu": mu, "upper": upper, "eps_sigma1": upper + math.log(2 / delta) / (alpha - 1)}


def alg6_run(votes, sigma_1: float, eps_prime: float, rng: np.random.Generator, setting: dict | None = None,
             stats: tuple[float, float] | None = None) -> dict:
    """Algorithm 6 end to end (seed 003 §3.6.2), mirroring smooth_sensitivity.alg6_pate_ptr draw for draw (GNMax
    labels, then z1, z2), with E and SS from the fast path (``stats`` to reuse them); the labels are released iff
    ε′ ≥ ε_σ1 (``gnmax_labels``: the labels drawn either way, not released on ⊥; for the example's accuracy).
    Guarantee (gptr.thm3_6_6): (ε′ + test cost, δ), the cost in the three forms of :func:`pate_setting`."""
    from dpspec.reference.gptr.smooth_sensitivity import gnmax

    setting = pate_setting() if setting is None else setting
    labels = gnmax(votes, sigma_1, rng)
    E, SS = pate_statistics(votes, sigma_1, setting["alpha"], setting["beta"]) if stats is None else stats
    z1, z2 = rng.standard_normal(2)
    up = alg6_upper(E, SS, setting, float(z1), float(z2))
    passed = eps_prime >= up["eps_sigma1"]
    return {"labels": labels if passed else None, "passed": bool(passed), "gnmax_labels": labels, "rdp": E,
            "smooth_sensitivity": SS, **up,
            "guarantee": (eps_prime + setting["cost_tight"], setting["delta"]),
            "guarantee_thm23": (eps_prime + setting["cost_thm23"], setting["delta"]),
            "guarantee_printed": (eps_prime + setting["eps_hat"], setting["delta"])}


def data_dependent_eps(votes, sigma_1: float, delta: float, orders=ORDERS) -> tuple[float, float]:
    """The non-private data-dependent DP of the T GNMax answers (Fig 3.2's "data-dependent DP"): min over ``orders``
    and the Gaussian baseline's optimal order α* = 1 + σ1√(log(1/δ)/T) (notes §2.4; so that it is never above
    gptr.gnmax_composed) of gptr.thm3_6_4 (Papernot's Thm 6 + Prop 7, fast path) + log(1/δ)/(α − 1) (Mironov);
    returns (ε, best α)."""
    import torch

    from dpspec.fast.gptr.pate import gnmax_rdp_data_dependent

    T = np.asarray(votes).shape[0]
    orders = tuple(sorted(set(orders) | {1 + float(sigma_1) * math.sqrt(math.log(1 / delta) / T)}))
    a = torch.tensor(orders, dtype=torch.float64).unsqueeze(-1)
    rdp = gnmax_rdp_data_dependent(torch.as_tensor(np.asarray(votes), dtype=torch.float64),
                                   torch.tensor(float(sigma_1), dtype=torch.float64), a).reshape(-1)
    eps = rdp + math.log(1 / delta) / (a.reshape(-1) - 1)
    i = int(torch.argmin(eps))
    return float(eps[i]), float(orders[i])


def fig3_2_rows(sigmas, trials: int = PATE["trials"]) -> list[dict]:
    """Fig 3.2 per consensus kind and σ1: the Gaussian baseline (gptr.gnmax_composed, reference), the data-dependent
    DP (non-private; at the best order, and at Algorithm 6's α converted at δ/2 as line 8 does), E and SS, the mean
    (and spread) of ε_σ1 over ``trials`` runs of Algorithm 6, and the purple-region floor ε̂ + mean ε_σ1 with the
    test cost exact / Thm 23 / printed."""
    from dpspec.reference.gptr.pate import gnmax_composed

    setting = pate_setting()
    delta, T = PATE["delta"], PATE["queries"]
    rows = []
    for k_idx, kind in enumerate(CONSENSUS):
        votes, truth = synthetic_votes(kind, np.random.default_rng([SEED, 32, k_idx]))
        top = np.sort(votes, axis=1)
        for s_idx, s1 in enumerate(sigmas):
            stats = pate_statistics(votes, s1, setting["alpha"], setting["beta"])
            rng = np.random.default_rng([SEED, 32, k_idx, s_idx])
            runs = [alg6_run(votes, s1, math.inf, rng, setting, stats) for _ in range(trials)]
            eps_s1 = [r["eps_sigma1"] for r in runs]
            dd, best = data_dependent_eps(votes, s1, delta)
            with mpmath.workdps(DPS):
                gauss = float(gnmax_composed(T, mpf(s1), mpf(delta)))
            mean = float(np.mean(eps_s1))
            at_alpha = stats[0] + math.log(2 / delta) / (setting["alpha"] - 1)
            rows.append({"consensus": kind, "sigma_1": s1, "T": T, "teachers": PATE["teachers"], "delta": delta,
                         "mean_top_votes": float(top[:, -1].mean()),
                         "mean_gap": float((top[:, -1] - top[:, -2]).mean()),
                         "eps_gaussian": gauss, "eps_data_dependent": dd, "best_order": best,
                         "eps_data_dependent_at_alpha": at_alpha, "rdp_E": stats[0], "smooth_sensitivity": stats[1],
                         "eps_sigma1_mean": mean, "eps_sigma1_min": float(min(eps_s1)),
                         "eps_sigma1_max": float(max(eps_s1)), "trials": trials,
                         "alpha": setting["alpha"], "beta": setting["beta"], "sigma_s": setting["sigma_s"],
                         "eps_hat_printed": setting["eps_hat"], "eps_hat_tight": setting["cost_tight"],
                         "eps_hat_thm23": setting["cost_thm23"],
                         "eps_ptr_tight": mean + setting["cost_tight"], "eps_ptr_thm23": mean + setting["cost_thm23"],
                         "eps_ptr_printed": mean + setting["eps_hat"],
                         "ptr_beats_gaussian": bool(mean + setting["cost_tight"] < gauss),
                         "data_dependent_beats_gaussian": bool(dd < gauss), "note": _VOTE_NOTE})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Fig B.1: binary voting (Ex B.3.1, Thm B.3.2)


def figb1a_rows(gaps, eps=B1["eps"], delta=B1["delta"]) -> list[dict]:
    """Fig B.1(a): at ε = 10, per gap t: gptr.thm_b3_2 exact (pure, binary_rnm_epsilon(t, ε)), its δ = 1e-5 version,
    the printed ε log((2 + εt)/(2 + ε(t+1))) (binary_rnm_epsilon_printed: negative, not a bound, gptr.E4) and the Laplace ε
    (the data-independent ε of report-noisy-max, base.laplace_pure's)."""
    from dpspec.reference.gptr.binary_vote import binary_rnm_epsilon, binary_rnm_epsilon_printed

    rows = []
    with mpmath.workdps(DPS):
        for t in gaps:
            pure = float(binary_rnm_epsilon(t, mpf(eps)))
            approx = float(binary_rnm_epsilon(t, mpf(eps), mpf(delta)))
            printed = float(binary_rnm_epsilon_printed(t, mpf(eps)))
            rows.append({"gap": t, "eps": eps, "delta": delta, "eps_data_dependent_pure": pure,
                         "eps_data_dependent_delta": approx, "eps_printed": printed, "eps_laplace": float(eps),
                         "printed_below_exact": printed < pure})
    return rows


def _laplace_cdf(x):
    """P[Lap(1) ≤ x] (mpmath)."""
    x = mpf(x)
    return mpmath.exp(x) / 2 if x < 0 else 1 - mpmath.exp(-x) / 2


def expected_eps_p(t, eps, eps_tilde, delta, printed: bool = False) -> mpf:
    """E[ε_p] of Ex B.3.1's Gen-PTR, exactly: t_p = t − log(1/δ)/ε̃ + Lap(1/ε̃), ε_p = S(max(0, ⌈t_p⌉)) with
    S(g) = binary_vote.sup_epsilon_above(g, ε, δ/2) (corrected: sup over gaps ≥ t_p, gptr.E4(iii)) or
    rnm_epsilon(g, ε, δ/2) (``printed``: ε at t_p); both are 0 from the first g with p(g − 1) ≤ δ/2 on, so
    E[ε_p] = Σ_{g < end} P[max(0, ⌈t_p⌉) = g]·S(g)."""
    from dpspec.reference.gptr.binary_vote import log_p0, rnm_epsilon, sup_epsilon_above

    eps, eps_tilde, delta = mpf(eps), mpf(eps_tilde), mpf(delta)
    half = delta / 2
    shift = mpf(t) + mpmath.log(delta) / eps_tilde  # t − log(1/δ)/ε̃

    def cdf(x):  # P[t_p ≤ x]
        return _laplace_cdf(eps_tilde * (mpf(x) - shift))

    end = 1
    while log_p0(end - 1, eps) > mpmath.log(half):
        end += 1
    total = mpf(0)
    for g in range(end):
        p = cdf(0) if g == 0 else cdf(g) - cdf(g - 1)
        if p > 0:
            s = rnm_epsilon(g, eps, half) if printed else mpf(sup_epsilon_above(g, eps, half))
            total += p * s
    return total


def classic_aligned_eps(t, eps, delta) -> mpf:
    """The ε̃ at which Ex B.3.1's classic PTR (t_p = t − log(1/δ)/ε̃ + Lap(1/ε̃); the true majority if t_p > 1, else a
    fair coin) has the error rate of Laplace report-noisy-max at ε, p(εt) = (2 + εt)e^{−εt}/4 (Ex B.3.1):
    P[t_p ≤ 1]/2 = ½F(x), x = log(1/δ) − ε̃(t − 1), F the Lap(1) CDF; for p ≤ 1/4, ½·½e^x = p gives
    ε̃ = (log(1/δ) − log 4 − log p)/(t − 1), else ½(1 − ½e^{−x}) = p gives x = −log(2 − 4p). Needs t ≥ 2."""
    from dpspec.reference.gptr.binary_vote import log_p0

    eps, delta = mpf(eps), mpf(delta)
    if int(t) < 2:
        raise ParameterError(f"t={t!r}: classic PTR's test t_p > 1 needs a gap t ≥ 2 to be aligned")
    logp = log_p0(int(t), eps)
    L = -mpmath.log(delta)
    x = logp + mpmath.log(4) if logp <= -mpmath.log(4) else -mpmath.log(2 - 4 * mpmath.exp(logp))
    return (L - x) / (int(t) - 1)


def figb1b_rows(bs, t=B1["t"], delta=B1["delta"]) -> list[dict]:
    """Fig B.1(b) at gap t = 100, δ = 1e-5, per noise scale b: Laplace (ε = 1/b, δ = 0) and its error rate p(εt);
    Gen-PTR (gptr.ex_b3_1: (ε̃ + ε′, δ)) with ε̃ = 1/(2b) and ε′ = E[ε_p] (the purple region's floor; exact, corrected
    and printed); classic PTR (ε̃_c, δ) at the aligned error rate (:func:`classic_aligned_eps`)."""
    from dpspec.reference.gptr.binary_vote import log_p0

    rows = []
    with mpmath.workdps(DPS):
        for b in bs:
            eps = 1 / mpf(b)
            eps_tilde = eps / 2
            e_p = expected_eps_p(t, eps, eps_tilde, delta)
            e_p_printed = expected_eps_p(t, eps, eps_tilde, delta, printed=True)
            classic = classic_aligned_eps(t, eps, delta)
            log10_err = float(log_p0(t, eps) / mpmath.log(10))
            gen = float(eps_tilde + e_p)
            rows.append({"b": b, "t": t, "delta": delta, "eps_laplace": float(eps), "log10_error_rate": log10_err,
                         "eps_tilde": float(eps_tilde), "expected_eps_p": float(e_p),
                         "expected_eps_p_printed": float(e_p_printed), "eps_gen_ptr": gen,
                         "eps_gen_ptr_printed": float(eps_tilde + e_p_printed), "eps_classic_ptr": float(classic),
                         "gen_below_laplace": gen < float(eps), "gen_below_classic": gen < float(classic),
                         "classic_above_laplace": float(classic) > float(eps),
                         "purple": bool(gen < float(eps) and log10_err <= -5)})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# rendering


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


_COLOURS = {"ops_ptr_alg14": "tab:purple", "ops_ptr_alg15": "tab:blue", "ops_ptr_alg15_printed": "tab:cyan",
            "ops": "tab:green", "outpert": "tab:red", "non_private_ridge": "k", "zero_predictor": "0.5"}
_LABELS = {"ops_ptr_alg14": "OPS-PTR (Alg 14, gptr.E5 corrected)", "ops_ptr_alg15": "OPS-PTR (Alg 15, analytic σ)",
           "ops_ptr_alg15_printed": "OPS-PTR (Alg 15 as printed: (ε, δ) NOT met)", "ops": "OPS (no PTR)",
           "outpert": "OutPert", "non_private_ridge": "non-private ridge", "zero_predictor": "predict 0"}


def plot_fig3_1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 5.2))
    floor = min(r["test_mse"] for r in rows if r["method"] == "non_private_ridge")
    top = 1.6 * max(r["test_mse"] for r in rows if r["method"] == "zero_predictor")
    for method in ("zero_predictor", "non_private_ridge") + OPS_METHODS:
        rs = [r for r in rows if r["method"] == method]
        e = [r["eps"] for r in rs]
        m = [r["test_mse"] for r in rs]
        if method in ("zero_predictor", "non_private_ridge"):
            ax.plot(e, m, "--", color=_COLOURS[method], lw=1, label=_LABELS[method])
            continue
        err = [[min(r["test_mse"] - r["ci_low"], r["test_mse"] - 0.8 * floor) for r in rs],
               [r["ci_high"] - r["test_mse"] for r in rs]]
        ax.errorbar(e, m, yerr=err, marker="o", ms=3, capsize=2, color=_COLOURS[method], label=_LABELS[method],
                    ls=":" if method.endswith("printed") else "-")
        for r in rs:  # a mean off the scale (a run whose random stopping tried one candidate with a tiny γ*)
            if r["test_mse"] > top:
                ax.annotate(f"mean {r['test_mse']:.3g}\n(median {r['test_mse_median']:.3g})", (r["eps"], top),
                            xytext=(-4, -22), textcoords="offset points", fontsize=6, ha="right",
                            color=_COLOURS[method], arrowprops={"arrowstyle": "->", "color": _COLOURS[method]})
    ax.set_ylim(0.8 * floor, top)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"total $\varepsilon$ ($\delta = 10^{-6}$; Alg 5 over $k = 30$ $\lambda$)")
    ax.set_ylabel("test MSE (label scaled to |y| ≤ 1), mean and 95% interval")
    ax.set_title("Seed 003 Fig 3.1 regenerated: ridge regression on diabetes", fontsize=9)
    ax.legend(fontsize=7)
    import textwrap

    fig.text(0.01, 0.005, textwrap.fill(_DATA_NOTE + ". " + _LEFT_OUT + ".", 150), fontsize=6)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_fig3_2(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, kind in zip(axes, CONSENSUS):
        rs = [r for r in rows if r["consensus"] == kind]
        s = [r["sigma_1"] for r in rs]
        ax.plot(s, [r["eps_gaussian"] for r in rs], "-", color="k", label="Gaussian (data-independent)")
        ax.plot(s, [r["eps_data_dependent"] for r in rs], "--", color="tab:orange",
                label="data-dependent DP (non-private)")
        ax.fill_between(s, [r["eps_ptr_tight"] for r in rs], [max(r["eps_ptr_tight"], r["eps_gaussian"]) * 1.5
                                                                for r in rs],
                        color="tab:purple", alpha=0.2, label=r"PATE-PTR region, floor $\hat\varepsilon_{exact}$"
                                                             r" + mean $\varepsilon_{\sigma_1}$")
        ax.plot(s, [r["eps_ptr_thm23"] for r in rs], ":", color="tab:purple", label=r"floor with Thm 23 cost (gptr.E2)")
        ax.plot(s, [r["eps_ptr_printed"] for r in rs], "-.", color="tab:purple", lw=0.8,
                label=r"floor with printed $\hat\varepsilon$")
        ax.set_yscale("log")
        ax.set_xlabel(r"$\sigma_1$")
        ax.set_ylabel(r"privacy cost $\varepsilon$ ($\delta = 10^{-5}$, $T = 200$)")
        ax.set_title(f"{kind} consensus", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Seed 003 Fig 3.2 regenerated: PATE-PTR (σ_s = σ_2 = 15), 400 synthetic teachers", fontsize=9)
    fig.text(0.01, 0.005, _VOTE_NOTE, fontsize=6)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figb1a(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    g = [r["gap"] for r in rows]
    ax.plot(g, [r["eps_laplace"] for r in rows], "-", color="k", label="Laplace (data-independent)")
    ax.plot(g, [r["eps_data_dependent_pure"] for r in rows], "o-", ms=3, color="tab:blue",
            label="data-dependent, exact Thm B.3.2 (δ = 0)")
    ax.plot(g, [r["eps_data_dependent_delta"] for r in rows], "s--", ms=3, color="tab:green",
            label="data-dependent, δ = 1e-5")
    ax.plot(g, [r["eps_printed"] for r in rows], "x:", ms=3, color="tab:red", label="as printed (not a bound, gptr.E4)")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel(r"vote gap $|n_0 - n_1|$")
    ax.set_ylabel(r"$\varepsilon$")
    ax.set_title("Seed 003 Fig B.1(a) regenerated (ε = 10): the exact ε increases with the gap", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figb1b(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    b = [r["b"] for r in rows]
    ax.plot(b, [r["eps_laplace"] for r in rows], "-", color="tab:blue", label="Laplace (ε, 0)")
    ax.plot(b, [r["eps_classic_ptr"] for r in rows], "--", color="k", label="classic PTR, aligned error (ε̃, δ)")
    ax.plot(b, [r["eps_gen_ptr"] for r in rows], "-", color="tab:purple", label="Gen-PTR ε̃ + E[ε_p] (δ)")
    ax.plot(b, [r["eps_gen_ptr_printed"] for r in rows], ":", color="tab:purple", label="Gen-PTR, ε_p as printed")
    purple = [r["b"] for r in rows if r["purple"]]
    if purple:
        ax.axvspan(min(purple), max(purple), color="tab:purple", alpha=0.08, label="Gen-PTR < Laplace, error ≤ 1e-5")
    ax.set_yscale("log")
    ax.set_xlabel(r"noise scale $b = 1/\varepsilon$")
    ax.set_ylabel("privacy cost ε at aligned error rate")
    ax.set_title("Seed 003 Fig B.1(b) regenerated (t = 100, δ = 1e-5)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_accounting(rows, path: Path, dpi: int) -> None:
    from dpspec.conformance.figures.bc import render_table

    columns = [("eps", "ε"), ("T_cutoff", "T"), ("eps_star", "ε*"), ("delta_star", "δ*"), ("ex3_6_2_eps", "Ex3.6.2 ε"),
               ("ex3_6_2_delta", "Ex3.6.2 δ"), ("alg5_eps", "Alg5 ε"), ("alg5_delta", "Alg5 δ"),
               ("alg15_printed_delta_per_candidate", "printed Alg15 δ/call"),
               ("alg15_printed_total_delta", "printed Alg15 total δ"), ("_pad", " " * 10)]
    rows = [{**r, "_pad": ""} for r in rows]  # bc.render_table sizes the figure by the header: room for the flag
    render_table(rows, columns, path, dpi,
                 "Fig 3.1's budget: Alg 5 (Thm 3.5.6) over k = 30 OPS-PTR calls, δ = 1e-6",
                 "Red: the printed Alg 15 (gptr.E7) misses its δ; its total δ is Thm 3.5.6 at gptr.thm_b4_1's "
                 "printed_calibration δ.", flag="alg15_printed_misses_delta")


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute Figs 3.1, 3.2, B.1(a), B.1(b) and Fig 3.1's budget table, and write each as ``NAME.csv`` and
    ``NAME.png`` into ``out``; returns the paths written. ``quick``: two ε, three trials, two σ1, small gap and b
    grids."""
    import matplotlib

    matplotlib.use("Agg")
    mode = "quick" if quick else "full"
    load_diabetes_scaled()  # refuses (ParameterError) before any work when scikit-learn is missing
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def emit(name, rows, draw):
        _write_csv(out / f"{name}.csv", rows)
        draw(rows, out / f"{name}.png")
        written.extend([out / f"{name}.csv", out / f"{name}.png"])

    grid = OPS_GRID[mode]
    emit("fig3_1_gptr", fig3_1_rows(grid["eps"], grid["trials"]), lambda r, p: plot_fig3_1(r, p, dpi))
    emit("ops_accounting_gptr", ops_accounting_rows(grid["eps"]), lambda r, p: plot_accounting(r, p, dpi))
    emit("fig3_2_gptr", fig3_2_rows(PATE_GRID[mode]), lambda r, p: plot_fig3_2(r, p, dpi))
    emit("figb1a_gptr", figb1a_rows(B1_GRID[mode]["gaps"]), lambda r, p: plot_figb1a(r, p, dpi))
    emit("figb1b_gptr", figb1b_rows(B1_GRID[mode]["b"]), lambda r, p: plot_figb1b(r, p, dpi))
    return written
