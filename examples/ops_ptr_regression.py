"""OPS-PTR ridge regression with private hyperparameter selection (seed 003 §3.6.1: Example 3.6.2 / Algorithm 14
inside Algorithm 5), on scikit-learn's bundled diabetes data, against output perturbation and OPS without PTR.

What runs (dpspec.conformance.figures.gptr, the code behind ``dpspec figures gptr``'s Fig 3.1):

* the data: 442 × 10, columns z-scored, rows scaled to norm 1 (‖𝒳‖ = 1), the label centred and divided by its largest
  magnitude (‖𝒴‖ = 1); a seeded 60/10/30 train/validation/test split;
* Algorithm 5 (reference/gptr/algorithms.alg5_ptr_selection, Liu–Talwar random stopping) over k = 30 λ log-spaced on
  [2.5, 2.5^10], τ = 0.05/k, δ2 = δ/2, each call (ε*, δ*)-DP with (ε*, δ*) from Thm 3.5.6 (gptr.thm3_5_6);
* each call is Algorithm 14 (directions corrected, erratum E5; corrected Thm 3.6.1) with the §3.6.1 split ε = ε̂ =
  ε*/2, δ = δ*/6, δ̂ = δ*/3, δ′ = δ*/2: release λ^P_min ≤ λ_min and Δ^P ≥ log(1 + ‖θ*_λ‖) (analytic-Gaussian noise,
  shifted by a normal quantile), calibrate γ*, output an OPS sample or ⊥ — a float64 mirror of
  regression_algorithms.alg14_ops_ptr (the reference; one candidate is re-run through it below as a check).

Printed: the accounting (per candidate and total), what Algorithm 5 tried (per λ: calls, ⊥, mean γ*), and the test
MSE of the selected model against OutPert and OPS (no PTR) under the same Algorithm 5 budget, the non-private ridge
and the zero predictor.

    .venv/bin/pip install -c constraints.txt -e ".[examples]"
    .venv/bin/python examples/ops_ptr_regression.py --quick      # a few seconds
    .venv/bin/python examples/ops_ptr_regression.py --eps 1 --trials 20
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import mpmath
import numpy as np
from mpmath import mpf

from dpspec.conformance.figures import gptr as G
from dpspec.reference.errors import DpspecError


def accounting(eps: float, delta: float) -> dict:
    """Print and return Algorithm 5's budget: Thm 3.5.6's T, ε*, δ*, the per-PTR split and its Ex 3.6.2 total."""
    from dpspec.reference.gptr.ops import ex3_6_2

    b = G.selection_budget(eps, delta)
    es, ds = b["eps_star"], b["delta_star"]
    with mpmath.workdps(G.DPS):
        e62, d62 = ex3_6_2(mpf(es) / 2, mpf(es) / 2, mpf(ds) / 6, mpf(ds) / 3, mpf(ds) / 4, mpf(ds) / 4)
    print(f"Algorithm 5 (Thm 3.5.6): tau = {b['tau']:.6g}, delta_2 = {b['delta_2']:.3g}, T = (1/tau) log(1/delta_2) "
          f"= {b['T_real']:.2f} (cut-off {b['T']})")
    print(f"  per candidate (eps*, delta*) = ({es:.6g}, {ds:.5g})")
    print(f"  OPS-PTR split (Sec 3.6.1): eps = eps_hat = {es / 2:.6g}; delta = {ds / 6:.4g}, delta_hat = {ds / 3:.4g}, "
          f"delta' = {ds / 2:.4g} (delta'_1 = delta'_2 = {ds / 4:.4g})")
    print(f"  Ex 3.6.2 total per candidate: ({float(e62):.6g}, {float(d62):.5g})  <= (eps*, delta*)")
    return b


def run(eps: float, delta: float, trials: int, seed: int, check: bool) -> None:
    X, y = G.load_diabetes_scaled()
    budget = accounting(eps, delta)
    results = defaultdict(list)
    for i in range(trials):
        path = G.RidgePath.build(X, y, np.random.default_rng([seed, i]))
        const = G.candidate_constants(budget["eps_star"], budget["delta_star"], path.lams, path.X.shape[0])
        for m, method in enumerate(("ops_ptr_alg14", "outpert", "ops")):
            trace: list = []
            out = G.select(method, path, const, budget, np.random.default_rng([seed, i, m]), trace)
            results[method].append(out)
            if i == 0 and method == "ops_ptr_alg14":
                first = (path, const, out, trace)
        results["non_private_ridge"].append(
            {"test_mse": path.test_mse(path.theta[int(np.argmin([path.val_mse(t) for t in path.theta]))])})
        results["zero_predictor"].append({"test_mse": float(np.mean(path.y_test ** 2))})

    path, const, out, trace = first
    print(f"\nTrial 0: Algorithm 5 made T_hat = {out['T_hat']} calls; total guarantee (eps, delta) = "
          f"({out['eps_accounted']:.6g}, {out['delta_accounted']:.4g})")
    print(f"  {'lambda':>9} {'calls':>5} {'bottom':>6} {'lam_min^P':>9} {'Delta^P':>8} {'mean gamma*':>11}")
    by = defaultdict(list)
    for j, lam_p, delta_p, gamma in trace:
        by[j].append((lam_p, delta_p, gamma))
    for j in sorted(by):
        calls = by[j]
        gam = [g for _, _, g in calls if g is not None]
        dps = [d for _, d, _ in calls if d is not None]
        print(f"  {path.lams[j]:9.2f} {len(calls):5d} {len(calls) - len(gam):6d} "
              f"{np.mean([lp for lp, _, _ in calls]):9.3f} {np.mean(dps) if dps else float('nan'):8.3f} "
              f"{np.mean(gam) if gam else float('nan'):11.4g}")
    print(f"  selected lambda = {out['lam']}, test MSE {out['test_mse']:.5f}")

    if check and out["lam"] is not None:  # one candidate through the mpmath reference with the same draws
        from dpspec.reference.gptr.regression_algorithms import alg14_ops_ptr

        j = int(np.argmin(np.abs(path.lams - out["lam"])))
        c = const.alg14
        mirror: list = []
        G.run_alg14(path, j, np.random.default_rng(seed), c, mirror)
        _, acc = alg14_ops_ptr(path.X, path.y, path.lams[j], eps=c["eps"], delta=c["delta"], eps_hat=c["eps_hat"],
                               delta_hat=c["delta_hat"], delta_prime_1=c["delta_prime_1"],
                               delta_prime_2=c["delta_prime_2"], rng=np.random.default_rng(seed))
        print(f"  check at lambda = {path.lams[j]:.2f}: reference alg14_ops_ptr gamma = {acc.get('gamma')}, "
              f"float64 mirror gamma = {mirror[0][3]}")

    print(f"\nTest MSE over {trials} trial(s), total (eps, delta) = ({eps:g}, {delta:g}), label scaled to |y| <= 1:")
    for method, label in (("ops_ptr_alg14", "OPS-PTR (Alg 14 in Alg 5)"), ("outpert", "OutPert (in Alg 5)"),
                          ("ops", "OPS without PTR (in Alg 5)"), ("non_private_ridge", "non-private ridge"),
                          ("zero_predictor", "predict 0")):
        mean, lo, hi = G._ci([r["test_mse"] for r in results[method]])
        print(f"  {label:28s} {mean:.5f}  [{lo:.5f}, {hi:.5f}]")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eps", type=float, default=4.0, help="total ε of the whole selection (default 4)")
    parser.add_argument("--delta", type=float, default=1e-6, help="total δ (default 1e-6, Fig 3.1's)")
    parser.add_argument("--trials", type=int, default=10, help="seeded trials for the MSE intervals (default 10)")
    parser.add_argument("--seed", type=int, default=G.SEED)
    parser.add_argument("--quick", action="store_true", help="two trials (a smoke test)")
    args = parser.parse_args(argv)
    try:
        run(args.eps, args.delta, 2 if args.quick else args.trials, args.seed, check=True)
    except DpspecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
