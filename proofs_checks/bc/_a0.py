"""The A0 object of seed 002 (Lemma F.2, Cor F.3, Table 1 row 1; [2] = Dong, Roth & Su 2022, Thm 5.1): DP-SGD with
g = 1 is C_p(G_{1/σ})^{⊗T}-DP, p = m/N, T = E·N/m, in the paper's normalised units (a round's sensitivity 2C divided
out: sensitivity 1, noise N(0, σ²)). Here its δ(ε) is bounded ABOVE by the connect-the-dots PLD of the reference
(``dpspec.reference.base.pld``: Doroshenko et al., PETS 2022, §3; exact integer convolution), applied to the
canonical pair of C_p(G_{1/σ}).

Which pair (notes §3.3). The Poisson-subsampled Gaussian pairs of ``base.pld_sgm_*`` (remove: P = (1−p)N(0,σ²) +
pN(1,σ²) vs Q = N(0,σ²); add: swapped) have the trade-off functions f_p = T(N(0,1), (1−p)N(0,1) + pN(1/σ,1)) (the
remove pair's δ is H_ε((1−p)N(0,1)+pN(1/σ,1) ‖ N(0,1)) = δ_{f_p}) and f_p^{-1}. Composing each direction and taking
the max gives δ of max{(f_p)^{⊗T}, (f_p^{-1})^{⊗T}}, which is BELOW δ of C_p(G)^{⊗T} = (min{f_p, f_p^{-1}}**)^{⊗T}
(notes §5.6: ε(1e-5) 3.25 vs 3.83 at p = 1024/50000, σ = 2, T = 4883), so it cannot refute an upper bound on
C_p(G)^{⊗T}. C_p(G) is symmetric and equals f_p where its slope is ≤ −1 ([2] Thm 4.2; notes §4.5), so its canonical
pair has, under P, the remove pair's loss law on L > 0, the mirror of the remove pair's Q-law on L < 0
(P_C(L ≤ −t) = Q_r(L ≥ t)), and an atom at L = 0 of mass 1 − P_r(L > 0) − Q_r(L > 0) = (1−p)(2Φ(1/(2σ)) − 1);
under Q the mirror image (Q_C(L ≥ t) = Q_r(L ≥ t), Q_C(L ≤ −t) = P_r(L ≥ t)). :func:`cp_gaussian_buckets` builds
its buckets from the remove pair's: for k ≥ 0 the remove bucket (ε_k, ε_{k+1}], mirrored onto (−ε_{k+1}, −ε_k] with
P and Q swapped (A' = e^{−ε_{k+1}} C_k, C' = e^{−ε_k} A_k, no cancellation), the atom in (−D, 0].
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from dpspec.reference._normal import ndtr
from dpspec.reference.base import pld as ref_pld


def cp_gaussian_buckets(p, sigma, step) -> ref_pld.Buckets:
    """One step of the canonical C_p(G_{1/σ}) pair on the grid ε_k = k·step, k = −k1..k1 (module docstring)."""
    rem = ref_pld.SgmPair(p, sigma, "remove")
    b = rem.buckets(mpf(step))
    step = b.step
    k1 = b.k1
    first = -b.k0  # index of the remove bucket (ε_0, ε_1] in b's lists
    with mp.workdps(mp.dps + ref_pld.LOCAL_GUARD_DPS):
        atom = (1 - mpf(p)) * (2 * ndtr(1 / (2 * mpf(sigma))) - 1)
        P_pos, Q_pos = b.P[first:], b.Q[first:]
        A_pos, C_pos = b.A[first:], b.C[first:]
        # mirrored buckets, from (−ε_{k1}, −ε_{k1−1}] up to (−ε_1, −ε_0]
        P_neg, Q_neg, A_neg, C_neg = [], [], [], []
        for k in range(k1 - 1, -1, -1):
            P_neg.append(Q_pos[k])
            Q_neg.append(P_pos[k])
            A_neg.append(mpmath.exp(-(k + 1) * step) * C_pos[k])
            C_neg.append(mpmath.exp(-k * step) * A_pos[k])
        # the atom at L = 0 sits at the right end of (−D, 0]: P-mass = Q-mass = atom, A += atom(1 − e^{−D}), C += 0
        P_neg[-1] += atom
        Q_neg[-1] += atom
        A_neg[-1] += -atom * mpmath.expm1(-step)
        return ref_pld.Buckets(-k1, k1, step, P_neg + list(P_pos), Q_neg + list(Q_pos), A_neg + list(A_pos),
                               C_neg + list(C_pos), b.q_hi, b.p_hi, b.p_hi, b.q_hi, mpf(0), b.delta_top)


def a0_upper_pmf(p, sigma, steps: int, step):
    """The upper (connect-the-dots) PMF of C_p(G_{1/σ})^{⊗steps}, composed exactly (reference/base/pld.py)."""
    one = ref_pld.upper_pmf(cp_gaussian_buckets(p, sigma, step))
    return ref_pld.compose(ref_pld.to_fixed(one, "upper", ref_pld.fixed_bits(mp.prec)), int(steps))


def a0_delta_upper(p, sigma, steps: int, eps, step) -> mpf:
    """Certified upper bound on δ(ε) of C_p(G_{1/σ})^{⊗steps}."""
    return ref_pld.pmf_delta(a0_upper_pmf(p, sigma, steps, step), eps)


def sgm_max_delta_upper(p, sigma, steps: int, eps, step) -> mpf:
    """Upper δ(ε) of the max over the remove/add Poisson-subsampled Gaussian compositions (the construction of
    ``base.pld_sgm_delta``, on any grid step), for comparison: δ of max{(f_p)^{⊗T}, (f_p^{-1})^{⊗T}}, below the
    paper's C_p(G)^{⊗T}."""
    out = []
    for direction in ("remove", "add"):
        one = ref_pld.upper_pmf(ref_pld.SgmPair(p, sigma, direction).buckets(mpf(step)))
        pmf = ref_pld.compose(ref_pld.to_fixed(one, "upper", ref_pld.fixed_bits(mp.prec)), int(steps))
        out.append(ref_pld.pmf_delta(pmf, eps))
    return max(out)


def remove_delta_exact(p, sigma, eps) -> mpf:
    """δ(ε) of one remove step in closed form (``SgmPair.hockey_stick``): p·δ_{N(1,σ²)|N(0,σ²)}(log((e^ε − 1 + p)/p))."""
    return ref_pld.SgmPair(p, sigma, "remove").hockey_stick(lambda: mpf(eps))


def clt_mu(p, sigma, steps: int) -> mpf:
    """[2] Cor 5.4: p√T·√(e^{1/σ²} − 1), the μ of the CLT limit of C_p(G_{1/σ})^{⊗T} (notes §4.5)."""
    return mpf(p) * mpmath.sqrt(steps) * mpmath.sqrt(mpmath.expm1(1 / mpf(sigma) ** 2))
