"""Private logistic regression by objective perturbation, then each individual's privacy report (seed 003, Redberg's
dissertation, chapter 2; Redberg & Wang, NeurIPS 2021, arXiv 2111.02281).

1. Data (no download): scikit-learn's bundled breast-cancer data (569 × 30), columns z-scored, rows scaled to
   ‖x‖ = 1, labels ±1 (benign = +1), a seeded 70/30 train/test split.
2. Training: Algorithm 1 (objective perturbation, b ~ N(0, σ²I), θ̂P = argmin Σ log(1 + e^{−y xᵀθ}) + (λ/2)‖θ‖² + bᵀθ)
   with Thm 2.2.5's calibration, corrected (erratum objpert.E1: σ = ξ√(8 log(2/δ) + 4ε1)/ε1, λ ≥ 2β/ε1; ξ = 1,
   β = 1/4), so the release θ̂P is (ε1, δ)-DP. The DATA-DEP report needs λ ≥ 2σ3τ (Algorithm 2's Require; erratum
   objpert.E20): λ = max(2β/ε1, 2σ3τ) is used, and the inflation is printed (a larger λ keeps the (ε1, δ)-DP).
3. The data holder knows each individual's true ex-post pDP ε1(z) (Cor 2.3.2, exact, member = in); it may not publish
   it. What it publishes is Algorithm 2's privacy report:
   - INDEP: ε^P_1(z) from θ̂P alone (no extra privacy cost: ε2 = ε3 = 0);
   - DEP: ε^P_1(z) from a noisy gradient (Algorithm 10, σ2) and a GOE-noised Hessian (Algorithm 11, σ3), each
     individual paying its own ε2(z) + ε3(z) (Thm A.3.4, A.4.1); the report's DP cost is Thm 2.3.5(1).
   σ2, σ3: the analytic Gaussian mechanism at (ε2, ρ) with Δ = ξ and at (ε3, ρ) with Δ = β/√2 (notes §5.3); ρ = δ.
   The corrected Algorithm 2 (errata objpert.E8 sign, E9 minimum) from the fast path (fast/objpert/report.py).
4. The table: the 10 most exposed individuals by true ε1, their reports and the ratios, summary quantiles over the
   training set, and the test accuracy (private and non-private at the same λ). The top individual's ε1 is
   recomputed by the mpmath reference (reference/objpert/expost.py cor2_3_2) as a check.

    .venv/bin/pip install -c constraints.txt -e ".[examples]"
    .venv/bin/python examples/objpert_privacy_report.py --quick          # a few seconds
    .venv/bin/python examples/objpert_privacy_report.py --eps1 0.5 --eps2 0.25 --eps3 0.25 --repeats 50
"""
from __future__ import annotations

import argparse
import math
import sys

import mpmath
import numpy as np
import torch

from dpspec.conformance.figures.objpert_pdp import load_breast_cancer_scaled
from dpspec.fast.objpert.expost import expost_batch, factor
from dpspec.fast.objpert.goe import goe_quantile
from dpspec.fast.objpert.report import alg2_report
from dpspec.reference.base.gaussian import gaussian_sigma
from dpspec.reference.objpert.expost import cor2_3_2
from dpspec.reference.objpert.kifer import kifer_sigma
from dpspec.reference.objpert.report import report_cost
from dpspec.reference.objpert.solver import objpert_minimiser

BETA, XI = 0.25, 1.0  # logistic loss with ‖x‖ ≤ 1 (seed 003 §2.C)


def split(seed: int, test_frac: float = 0.3):
    X, y = load_breast_cancer_scaled()
    idx = np.random.default_rng([seed, 0]).permutation(len(y))
    k = int(round(test_frac * len(y)))
    return X[idx[k:]], y[idx[k:]], X[idx[:k]], y[idx[:k]]


def train(X, y, lam, sigma, rng):
    """Algorithm 1: b ~ N(0, σ²I_d), θ̂P = argmin J(θ; D) + bᵀθ (reference damped Newton, r = 0)."""
    b = sigma * rng.standard_normal(X.shape[1])
    return objpert_minimiser(X, y, "logistic", lam, b)


def agm(eps: float, delta: float) -> float:
    """The analytic-Gaussian σ (Balle & Wang 2018; base.gaussian_sigma) for (ε, δ)-DP at sensitivity 1."""
    with mpmath.workdps(30):
        return float(gaussian_sigma(mpmath.mpf(eps), mpmath.mpf(delta)))


def accuracy(theta, X, y) -> float:
    return float((np.sign(X @ theta) == y).mean())


def quantiles(a) -> str:
    a = np.asarray(a)
    return "  ".join(f"{v:10.4g}" for v in (np.quantile(a, 0.5), np.quantile(a, 0.9), np.quantile(a, 0.99), a.max()))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--eps1", type=float, default=1.0, help="DP budget of the release θ̂P (Thm 2.2.5)")
    p.add_argument("--eps2", type=float, default=0.5, help="DEP report: noisy gradient budget (Algorithm 10)")
    p.add_argument("--eps3", type=float, default=0.5, help="DEP report: GOE Hessian budget (Algorithm 11)")
    p.add_argument("--delta", type=float, default=1e-6, help="δ of every release and ρ of the report")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--repeats", type=int, default=20, help="extra seeded trainings for the accuracy spread")
    p.add_argument("--quick", action="store_true", help="no repeats (a few seconds)")
    a = p.parse_args(argv)
    if a.quick:
        a.repeats = 0
    delta = rho = a.delta
    Xtr, ytr, Xte, yte = split(a.seed)
    n, d = Xtr.shape

    sigma = float(kifer_sigma(a.eps1, delta, XI))
    lam_k = 2 * BETA / a.eps1
    sigma2 = agm(a.eps2, delta) * XI
    sigma3 = agm(a.eps3, delta) * BETA / math.sqrt(2)
    t = float(goe_quantile(d, rho))
    lam = max(lam_k, 2 * sigma3 * t)
    with mpmath.workdps(30):
        cost = float(report_cost(XI, BETA, sigma2, sigma3, delta))
    print(f"breast cancer: n_train = {n}, n_test = {len(yte)}, d = {d}; logistic loss, xi = 1, beta = 1/4")
    print(f"release: (eps1, delta) = ({a.eps1:g}, {delta:g})-DP by Thm 2.2.5 (corrected, E1): sigma = {sigma:.6g}, "
          f"lambda >= 2 beta/eps1 = {lam_k:.6g}")
    print(f"DEP report: sigma2 = {sigma2:.6g} (eps2 = {a.eps2:g}), sigma3 = {sigma3:.6g} (eps3 = {a.eps3:g}), "
          f"tau(d, rho) = {t:.6g}; Require lambda >= 2 sigma3 tau = {2 * sigma3 * t:.6g}")
    print(f"lambda used = {lam:.6g} (inflation x{lam / lam_k:.4g} over Thm 2.2.5, erratum E20); the DEP report's "
          f"DP cost (Thm 2.3.5(1)) = {cost:.6g} at delta = {delta:g}")

    rng = np.random.default_rng([a.seed, 1])
    theta = np.asarray(train(Xtr, ytr, lam, sigma, rng))
    theta_np = np.asarray(objpert_minimiser(Xtr, ytr, "logistic", lam, np.zeros(d)))

    T = lambda v: torch.as_tensor(np.asarray(v, dtype=np.float64))  # noqa: E731
    ex = expost_batch(factor(T(Xtr), T(ytr), T(theta), lam, sigma, "logistic"), T(Xtr), T(ytr), "in")
    eps1 = ex.eps1.numpy()
    rec = T(np.column_stack([Xtr, ytr]))
    ind = alg2_report(T(theta), rec, rec, "logistic", lam, sigma, sigma2, sigma3, rho, mode="INDEP")
    dep = alg2_report(T(theta), rec, rec, "logistic", lam, sigma, sigma2, sigma3, rho, mode="DEP",
                      generator=a.seed + 2, delta=delta, tau=t)
    r_ind = ind["eps1P"].numpy()
    r_dep = dep["eps1P"].numpy()
    cost_dep = (dep["eps2"] + dep["eps3"]).numpy()
    total_dep = r_dep + cost_dep

    order = np.argsort(-eps1)[: a.top]
    print(f"\nthe {a.top} most exposed training individuals (true ex-post eps1 of theta_P, Cor 2.3.2, member = in):")
    print(f"{'row':>5} {'y':>3} {'y x.theta':>10} {'eps1 true':>11} {'INDEP rep':>11} {'ratio':>8} "
          f"{'DEP eps1P':>11} {'eps2+eps3':>10} {'DEP total':>11} {'ratio':>8}")
    for i in order:
        print(f"{i:5d} {int(ytr[i]):3d} {ytr[i] * Xtr[i] @ theta:10.4f} {eps1[i]:11.5g} {r_ind[i]:11.5g} "
              f"{r_ind[i] / eps1[i]:8.3g} {r_dep[i]:11.5g} {cost_dep[i]:10.5g} {total_dep[i]:11.5g} "
              f"{total_dep[i] / eps1[i]:8.3g}")
    print(f"\nover the {n} training individuals:          median         q90         q99         max")
    for name, v in (("true eps1", eps1), ("INDEP report", r_ind), ("INDEP report / eps1", r_ind / eps1),
                    ("DEP eps1P", r_dep), ("DEP eps2 + eps3", cost_dep), ("DEP total", total_dep),
                    ("DEP total / eps1", total_dep / eps1)):
        print(f"  {name:<36} {quantiles(v)}")
    below = int((r_ind < eps1).sum()), int((r_dep < eps1).sum())
    print(f"reports below the true eps1 (a failure of the (1 - rho) guarantee): INDEP {below[0]}, DEP {below[1]} "
          f"of {n}; undefined (f'' mu^P >= 1): {int(dep['undefined'].sum())}")

    top = int(order[0])
    with mpmath.workdps(30):
        ref = float(cor2_3_2(np.column_stack([Xtr, ytr]), np.append(Xtr[top], ytr[top])[None, :], theta[None, :],
                             lam, sigma, "logistic", "in"))
    print(f"check: top individual {top}: fast eps1 = {eps1[top]:.12g}, reference cor2_3_2 = {ref:.12g}")
    print(f"\ntest accuracy: private {accuracy(theta, Xte, yte):.4f}, non-private at the same lambda "
          f"{accuracy(theta_np, Xte, yte):.4f}")
    if a.repeats:
        accs = [accuracy(np.asarray(train(Xtr, ytr, lam, sigma, np.random.default_rng([a.seed, 10 + k]))), Xte, yte)
                for k in range(a.repeats)]
        print(f"over {a.repeats} more seeded trainings: accuracy mean {np.mean(accs):.4f}, "
              f"sd {np.std(accs, ddof=1):.4f}, min {min(accs):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
