"""PATE-PTR (seed 003 §3.6.2, Algorithm 6) end to end on synthetic teacher votes: GNMax labels for T public queries,
then the private test of their data-dependent privacy cost, and the labels are released only if the test passes.

What runs (dpspec.conformance.figures.gptr, the code behind ``dpspec figures gptr``'s Fig 3.2):

* votes: ``--teachers`` teachers vote on ``--queries`` queries with C = 10 classes, from the stated seeded model of
  ``synthetic_votes`` (high consensus: the true class gets 75–90% of the votes; low: 30–42%, a runner-up 15–25%);
* Algorithm 6 line 2 with σ_s = σ_2 = ``--sigma-s`` (ε̂ from it, α = 2 log(2/δ)/ε̂ + 1, β = 0.2/α, δ_2 = δ/2);
  line 3 GNMax labels with noise σ1; lines 4–5 Papernot's data-dependent RDP E(X) of the T answers at order α and
  its β-smooth sensitivity SS (torch fast path); lines 6–8 the noisy upper bound (Lemma 3.6.5) and ε_σ1; line 9:
  release iff ε′ ≥ ε_σ1. It mirrors reference/gptr/smooth_sensitivity.alg6_pate_ptr draw for draw.

Printed: the constants, E, SS, μ, upper, ε_σ1, whether the labels were released, their accuracy against the votes'
argmax (the non-private answer) and against the class the votes were drawn around, and the guarantee (ε′ + ε̂, δ)
with the test cost ε̂ exact (gptr.thm3_6_6: the exact GNSS worst case), through Papernot's Thm 23 (the notes' E2) and
as printed — beside the data-independent Gaussian ε of the same labels and their non-private data-dependent ε.

    .venv/bin/python examples/pate_ptr_synthetic.py --quick
    .venv/bin/python examples/pate_ptr_synthetic.py --consensus low --sigma1 20 --eps-prime 80
"""
from __future__ import annotations

import argparse
import sys

import mpmath
import numpy as np
from mpmath import mpf

from dpspec.conformance.figures import gptr as G
from dpspec.reference.errors import DpspecError


def run(consensus: str, queries: int, teachers: int, sigma_1: float, eps_prime: float, sigma_s: float, delta: float,
        seed: int) -> None:
    from dpspec.reference.gptr.pate import gnmax_composed

    votes, truth = G.synthetic_votes(consensus, np.random.default_rng([seed, 1]), queries=queries,
                                     teachers=teachers)
    setting = G.pate_setting(float(sigma_s), float(delta))
    print(f"{queries} queries, {teachers} teachers, {consensus} consensus: mean top vote "
          f"{np.sort(votes, 1)[:, -1].mean():.1f}, mean gap to the runner-up "
          f"{np.mean(np.sort(votes, 1)[:, -1] - np.sort(votes, 1)[:, -2]):.1f}")
    print(f"Algorithm 6 line 2 (sigma_s = sigma_2 = {setting['sigma_s']:g}, delta = {delta:g}): eps_hat = "
          f"{setting['eps_hat']:.5f}, alpha = {setting['alpha']:.4f}, beta = {setting['beta']:.6f}")
    out = G.alg6_run(votes, sigma_1, eps_prime, np.random.default_rng([seed, 2]), setting)
    print(f"  E(X) = {out['rdp']:.6g} (data-dependent RDP at alpha), SS = {out['smooth_sensitivity']:.6g}, "
          f"mu = {out['mu']:.4f}, upper = {out['upper']:.5g}")
    print(f"  eps_sigma1 = upper + log(2/delta)/(alpha - 1) = {out['eps_sigma1']:.5g};  eps' = {eps_prime:g}:  "
          + ("PASSED, labels released" if out["passed"] else "FAILED, output ⊥ (nothing released)"))
    labels = out["gnmax_labels"]
    argmax = np.argmax(votes, axis=1)
    tag = "" if out["passed"] else " (not released)"
    print(f"  GNMax labels{tag}: accuracy vs the votes' argmax {np.mean(labels == argmax):.3f}, vs the generating "
          f"class {np.mean(labels == truth):.3f} (the argmax itself: {np.mean(argmax == truth):.3f})")
    with mpmath.workdps(G.DPS):
        gauss = float(gnmax_composed(queries, mpf(sigma_1), mpf(delta)))
    dd, order = G.data_dependent_eps(votes, sigma_1, delta)
    print(f"\nGuarantee of the release (delta = {delta:g}):")
    print(f"  corrected (gptr.thm3_6_6, exact GNSS test cost {setting['cost_tight']:.5f}): "
          f"eps = {out['guarantee'][0]:.5f}")
    print(f"  through Papernot's Thm 23 (test cost {setting['cost_thm23']:.5f}, the notes' E2):  "
          f"eps = {out['guarantee_thm23'][0]:.5f}")
    print(f"  as printed (Thm 3.6.6: eps' + eps_hat = {eps_prime:g} + {setting['eps_hat']:.5f}):            "
          f"eps = {out['guarantee_printed'][0]:.5f}")
    print(f"  for comparison: data-independent Gaussian (gptr.gnmax_composed) eps = {gauss:.5f}; non-private "
          f"data-dependent eps = {dd:.5f} (order {order:.3g})")
    if out["passed"] and out["guarantee"][0] > gauss:
        print("  here PATE-PTR's guarantee is above the data-independent one (see fig3_2_gptr: at the text's "
              "constants the smooth-sensitivity term dominates)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--consensus", choices=sorted(G.CONSENSUS), default="high")
    parser.add_argument("--queries", type=int, default=G.PATE["queries"])
    parser.add_argument("--teachers", type=int, default=G.PATE["teachers"])
    parser.add_argument("--sigma1", type=float, default=40.0, help="GNMax noise σ1 (default 40)")
    parser.add_argument("--eps-prime", type=float, default=15.0,
                        help="ε′, the threshold of the test, fixed before seeing the data (default 15)")
    parser.add_argument("--sigma-s", type=float, default=G.PATE["sigma_s"], help="σ_s = σ_2 (default 15)")
    parser.add_argument("--delta", type=float, default=G.PATE["delta"])
    parser.add_argument("--seed", type=int, default=G.SEED)
    parser.add_argument("--quick", action="store_true", help="50 queries (a smoke test)")
    args = parser.parse_args(argv)
    try:
        run(args.consensus, 50 if args.quick else args.queries, args.teachers, args.sigma1, args.eps_prime,
            args.sigma_s, args.delta, args.seed)
    except DpspecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
