"""Exact laws of the small instances behind the ``gptr.*`` errata and proof checks, computed independently of
dpspec.reference (the "truth" side: each demonstration compares it with the reference evaluator it concerns).

Seed 003 (Redberg's dissertation, ``003_dabdd6bee088f80a.txt``), chapter 3 and appendix B; notes
shared/notes/generalized-ptr.md (§3 neighbouring pairs, §5 vectors, §6 errata). Everything is mpmath at the
current precision; callers fix it (``mp.workdps``). Nothing here is a statement of the catalogue.

- Laplace difference (Ex B.3.1, notes §7.2): Z = L₁ − L₂, L_i ~ Lap(1) iid, density (1+|z|)e^{−|z|}/4, tail
  P[Z > s] = (2+s)e^{−s}/4 (s ≥ 0); by quadrature of the convolution for an independent check.
- Binary report-noisy-max (Thm B.3.2, notes §3.10): the exact two-point output laws and their data-dependent ε,
  pure and at δ > 0, under add/remove (t ± 1) or replace-one (t ± 2) neighbours.
- Gaussian pairs: the analytic-Gaussian δ(ε) (Balle–Wang 2018), and the exact hockey-stick of two 1-D Gaussians
  with different variances (the OPS posterior pair of notes §3.6 in one dimension, and the first coordinate of the
  worst-direction pair of ``gptr.ops_ridge``, rebuilt from its datasets).
- Ridge regression's Δ(X) = log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖) in one dimension (Lemma B.4.2).
- The Thm B.2.5 counterexample pair (notes §3.5): a Gaussian threshold test on a sensitivity-1 statistic, then a
  Gaussian release; its Rényi divergence in closed form and by quadrature.
- GNMax (Thm 3.6.4, notes §3.11): the exact output law by a 1-D integral, and Rényi divergences between them.
- Papernot et al. 2018, Thm 23 (the GNSS RDP the text cites in Lemma 3.6.5), the Gaussian Rényi divergence
  (closed form and quadrature) and the GNSS release's worst case over the smooth-sensitivity constraints.
- The truncated geometric T̂ = min(T, Geom(τ)) of Alg 5 (Thm B.2.3).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from dpspec.reference.errors import ParameterError

# --- Laplace difference (Ex B.3.1) ------------------------------------------------------------------------------


def lap_diff_density(z) -> mpf:
    """(1 + |z|)e^{−|z|}/4: the density of L₁ − L₂, L_i ~ Lap(1) iid (seed 003, Ex B.3.1)."""
    z = abs(mpf(z))
    return (1 + z) * mpmath.exp(-z) / 4


def lap_diff_density_quad(z) -> mpf:
    """The same density by quadrature of the convolution ∫ ½e^{−|u|}·½e^{−|u−z|} du (breakpoints 0 and z)."""
    z = mpf(z)
    f = lambda u: mpmath.exp(-abs(u) - abs(u - z)) / 4
    return mpmath.quad(f, sorted({-mpmath.inf, mpf(0), z, mpmath.inf}))


def lap_diff_tail(s) -> mpf:
    """P[L₁ − L₂ > s] = (2+s)e^{−s}/4 for s ≥ 0, and 1 − (2+|s|)e^{−|s|}/4 for s < 0 (symmetry)."""
    s = mpf(s)
    upper = (2 + abs(s)) * mpmath.exp(-abs(s)) / 4
    return upper if s >= 0 else 1 - upper


# --- binary report-noisy-max (Thm B.3.2) -------------------------------------------------------------------------


def rnm_p(t, eps) -> mpf:
    """p(t) = P[n₀ + Lap(1/ε) > n₁ + Lap(1/ε)] = P[Z > εt], t = n₁ − n₀ (seed 003, Ex B.3.1)."""
    return lap_diff_tail(mpf(eps) * t)


def _two_point_eps(p, q, delta) -> mpf:
    """Smallest ε ≥ 0 with δ_{P‖Q}(ε) ≤ δ for P = (p, 1−p), Q = (q, 1−q): for ε ≥ 0 at most one outcome has
    P(o) > e^ε Q(o), so ε(δ) = max(0, max_o log((P(o) − δ)/Q(o))) over outcomes with P(o) > δ."""
    best = mpf(0)
    for a, b in ((p, q), (1 - p, 1 - q)):
        if a > delta:
            best = max(best, mpmath.log((a - delta) / b))
    return best


def rnm_eps(t, eps, delta=0, step=1) -> mpf:
    """The data-dependent ε of binary RNM at gap t (seed 003, Thm B.3.2) against the neighbours t ± step (step 1:
    add/remove one voter, the theorem's four neighbours away from zero counts; step 2: one voter changes vote),
    both directions; δ = 0 gives the pure form max{|log p/p′|, |log (1−p)/(1−p′)|}."""
    p = rnm_p(t, eps)
    worst = mpf(0)
    for l in (-step, step):
        q = rnm_p(t + l, eps)
        worst = max(worst, _two_point_eps(p, q, mpf(delta)), _two_point_eps(q, p, mpf(delta)))
    return worst


# --- Gaussian pairs ------------------------------------------------------------------------------------------------


def analytic_gaussian_delta(eps, ratio) -> mpf:
    """δ(ε) = Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r), r = Δ/σ (Balle & Wang 2018, Thm 8; seed 003 (C.2.1))."""
    eps, r = mpf(eps), mpf(ratio)
    return mpmath.ncdf(r / 2 - eps / r) - mpmath.exp(eps) * mpmath.ncdf(-r / 2 - eps / r)


def gaussian_pair_delta(m1, v1, m2, v2, eps) -> mpf:
    """Exact δ_{P‖Q}(ε) = P(A) − e^ε Q(A), A = {log p/q > ε}, for P = N(m1, v1), Q = N(m2, v2) in one dimension:
    the log-ratio is a quadratic a·o² + b·o + c₀, so A is an interval or the complement of one."""
    m1, v1, m2, v2, eps = map(mpf, (m1, v1, m2, v2, eps))
    a = 1 / (2 * v2) - 1 / (2 * v1)
    b = m1 / v1 - m2 / v2
    c = m2 ** 2 / (2 * v2) - m1 ** 2 / (2 * v1) + mpmath.log(v2 / v1) / 2 - eps
    tiny = mpf(10) ** (-mpmath.mp.dps + 5)
    if abs(a) <= tiny:
        if abs(b) <= tiny:
            intervals = [(-mpmath.inf, mpmath.inf)] if c > 0 else []
        else:
            root = -c / b
            intervals = [(root, mpmath.inf)] if b > 0 else [(-mpmath.inf, root)]
    else:
        disc = b * b - 4 * a * c
        if disc <= 0:
            intervals = [(-mpmath.inf, mpmath.inf)] if a > 0 else []
        else:
            r1, r2 = sorted(((-b - mpmath.sqrt(disc)) / (2 * a), (-b + mpmath.sqrt(disc)) / (2 * a)))
            intervals = [(r1, r2)] if a < 0 else [(-mpmath.inf, r1), (r2, mpmath.inf)]

    def mass(m, v, lo, hi):
        s = mpmath.sqrt(v)
        return mpmath.ncdf((hi - m) / s) - mpmath.ncdf((lo - m) / s)

    total = mpmath.fsum(mass(m1, v1, lo, hi) - mpmath.exp(eps) * mass(m2, v2, lo, hi) for lo, hi in intervals)
    return max(mpf(0), total)


def gaussian_pair_eps(m1, v1, m2, v2, delta, iterations=100) -> mpf:
    """Smallest ε ≥ 0 with δ_{P‖Q}(ε) ≤ δ (bisection on the decreasing profile; the returned ε is the upper end of
    the final bracket, so δ_{P‖Q}(returned) ≤ δ)."""
    delta = mpf(delta)
    f = lambda e: gaussian_pair_delta(m1, v1, m2, v2, e) - delta
    if f(0) <= 0:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while f(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(iterations):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return hi


def ops_1d_pair(xs, ys, lam, gamma, x_new, y_new):
    """The OPS posterior pair of notes §3.6 in one dimension, add/remove neighbours: P = N(θ*, 1/(γH)) on the data
    (xs, ys), Q = N(θ*′, 1/(γH′)) after adding z = (x_new, y_new); H = Σx² + λ, θ* = Σxy/H (seed 003, Ex 3.5.5).
    Returns ((mean, variance) of P, (mean, variance) of Q, λ_min = Σx², θ*)."""
    s = mpmath.fsum(mpf(x) ** 2 for x in xs)
    b = mpmath.fsum(mpf(x) * mpf(y) for x, y in zip(xs, ys))
    h = s + lam
    h2 = h + mpf(x_new) ** 2
    theta, theta2 = b / h, (b + mpf(x_new) * mpf(y_new)) / h2
    return (theta, 1 / (gamma * h)), (theta2, 1 / (gamma * h2)), s, theta



def ops_witness_laws(gamma, lam, lam_min, L, x_norm, case):
    """The first coordinate of the two OPS laws (M(X), M(X′)) of the worst-direction ridge pair (notes §3.6; the
    datasets of dpspec.reference.gptr.ops's ``gptr.ops_ridge``, derived here from their definition, not from that
    code): the second coordinate has the same law under both. ``add``: X has Gram λ_min (first coordinate) and
    labels 0, X′ = X ∪ {(‖𝒳‖e₁, L/‖𝒳‖)}. ``remove``: X = rest ∪ {z}, rest with Gram λ_min and labels 0, z =
    (‖𝒳‖e₁, y) with y chosen so that L(X) = ‖𝒳‖(y + ‖𝒳‖θ*(X)) = L; X′ = rest. Returns ((mean, variance) of M(X),
    (mean, variance) of M(X′)), posterior N(Σxy/(Σx² + λ), 1/(γ(Σx² + λ)))."""
    gamma, lam, lam_min, L, x = map(mpf, (gamma, lam, lam_min, L, x_norm))
    x2 = x * x
    if case == "add":
        h_x, b_x, h_n, b_n = lam_min + lam, mpf(0), lam_min + x2 + lam, L
    elif case == "remove":
        y = L / (x * (1 + x2 / (lam_min + x2 + lam)))
        h_x, b_x, h_n, b_n = lam_min + x2 + lam, x * y, lam_min + lam, mpf(0)
    else:
        raise ParameterError(f"case must be 'add' or 'remove', not {case!r}")
    return (b_x / h_x, 1 / (gamma * h_x)), (b_n / h_n, 1 / (gamma * h_n))


def ops_witness_delta(eps, gamma, lam, lam_min, L, x_norm) -> mpf:
    """max over add/remove and both orders of the exact 1-D hockey-stick δ(ε) of :func:`ops_witness_laws`."""
    out = []
    for case in ("add", "remove"):
        (m1, v1), (m2, v2) = ops_witness_laws(gamma, lam, lam_min, L, x_norm, case)
        out += [gaussian_pair_delta(m1, v1, m2, v2, eps), gaussian_pair_delta(m2, v2, m1, v1, eps)]
    return max(out)


def ridge_log_lipschitz_stats(h, b, lam) -> mpf:
    """Δ(X) = log(‖𝒴‖ + ‖𝒳‖|θ*_λ|) with ‖𝒳‖ = ‖𝒴‖ = 1 in one dimension, from the sufficient statistics h = Σx²,
    b = Σxy: θ*_λ = b/(h + λ), so Δ = log(1 + |b|/(h + λ)) (seed 003, Lemma B.4.2)."""
    h, b, lam = map(mpf, (h, b, lam))
    return mpmath.log(1 + abs(b) / (h + lam))


# --- Thm B.2.5 counterexample pair (notes §3.5) -----------------------------------------------------------------


def b25_pass_probability(u, tau, sigma_t) -> mpf:
    """P[u + N(0, σ_T²) > τ]: the Gaussian threshold test on a sensitivity-1 statistic u."""
    return mpmath.ncdf((mpf(u) - tau) / sigma_t)


def b25_divergence(alpha, sigma_t, tau, ratio) -> mpf:
    """D_α(M(X)‖M(X′)) of Alg 4 with the threshold test (u(X) = 0, u(X′) = −1, both "bad") and the release
    N(0, σ²) vs N(Δ, σ²), r = Δ/σ, output ⊥ or θ (notes §3.5):
    E_Q[(dP/dQ)^α] = (1−p)^α(1−p′)^{1−α} + p^α p′^{1−α} e^{α(α−1)r²/2}."""
    alpha = mpf(alpha)
    p, pp = b25_pass_probability(0, tau, sigma_t), b25_pass_probability(-1, tau, sigma_t)
    moment = ((1 - p) ** alpha * (1 - pp) ** (1 - alpha)
              + p ** alpha * pp ** (1 - alpha) * mpmath.exp(alpha * (alpha - 1) * mpf(ratio) ** 2 / 2))
    return mpmath.log(moment) / (alpha - 1)


def b25_divergence_quad(alpha, sigma_t, tau, ratio) -> mpf:
    """The same divergence with the release part by quadrature of p_θ^α q_θ^{1−α} (σ = 1, Δ = r), not the
    Gaussian Rényi closed form."""
    alpha, r = mpf(alpha), mpf(ratio)
    p, pp = b25_pass_probability(0, tau, sigma_t), b25_pass_probability(-1, tau, sigma_t)
    release = mpmath.quad(lambda o: mpmath.npdf(o, 0, 1) ** alpha * mpmath.npdf(o, r, 1) ** (1 - alpha),
                          [-mpmath.inf, -10, 0, r, 10 + alpha * r, mpmath.inf])
    moment = (1 - p) ** alpha * (1 - pp) ** (1 - alpha) + p ** alpha * pp ** (1 - alpha) * release
    return mpmath.log(moment) / (alpha - 1)


def b25_claim(alpha, eps_hat, eps_tilde, eps, delta_prime) -> mpf:
    """Thm B.2.5 as printed: ε̂(α) + (1/(α−1)) log(δ′e^{(α−1)ε̃(α)} + (1−δ′)e^{(α−1)ε(α)}) (log space)."""
    alpha, dp = mpf(alpha), mpf(delta_prime)
    log_terms = [mpmath.log(dp) + (alpha - 1) * eps_tilde, mpmath.log1p(-dp) + (alpha - 1) * eps]
    top = max(log_terms)
    return eps_hat + (top + mpmath.log(mpmath.fsum(mpmath.exp(x - top) for x in log_terms))) / (alpha - 1)


# --- GNMax (Thm 3.6.4) and GNSS (Lemma 3.6.5) ------------------------------------------------------------------


def gnmax_law(votes, sigma) -> list:
    """P[argmax_j (n_j + N(0, σ²)) = k] = ∫ φ(z) Π_{j≠k} Φ((n_k − n_j)/σ + z) dz for every k (notes §3.11)."""
    votes = [mpf(n) for n in votes]
    sigma = mpf(sigma)
    out = []
    for k, nk in enumerate(votes):
        f = lambda z: mpmath.npdf(z) * mpmath.fprod(mpmath.ncdf((nk - nj) / sigma + z)
                                                     for j, nj in enumerate(votes) if j != k)
        out.append(mpmath.quad(f, [-mpmath.inf, -8, 0, 8, mpmath.inf]))
    return out


def renyi_discrete(p, q, alpha) -> mpf:
    """D_α(P‖Q) = log Σ p^α q^{1−α} / (α − 1) for finite laws."""
    alpha = mpf(alpha)
    return mpmath.log(mpmath.fsum(a ** alpha * b ** (1 - alpha) for a, b in zip(p, q) if a > 0)) / (alpha - 1)


def papernot_thm23(alpha, beta, sigma) -> mpf:
    """Papernot et al. 2018 ("Scalable private learning with PATE"), Thm 23: releasing f(D) + SS_β(D)·N(0, σ²) is
    (α, αe^{2β}/σ² + (βα − ½ log(1 − 2αβ))/(α − 1))-RDP for 1 < α < 1/(2β) (notes §7.2)."""
    alpha, beta, sigma = mpf(alpha), mpf(beta), mpf(sigma)
    return alpha * mpmath.exp(2 * beta) / sigma ** 2 + (beta * alpha - mpmath.log1p(-2 * alpha * beta) / 2) / (alpha - 1)



def gaussian_renyi(alpha, m0, v0, m1, v1) -> mpf:
    """D_α(N(m0, v0)‖N(m1, v1)) = α(m0 − m1)²/(2v_α) − log(v_α/(v0^{1−α}v1^α))/(2(α − 1)), v_α = αv1 + (1 − α)v0
    (+inf where v_α ≤ 0): the Gaussian integral of p^α q^{1−α}."""
    alpha, m0, v0, m1, v1 = map(mpf, (alpha, m0, v0, m1, v1))
    va = alpha * v1 + (1 - alpha) * v0
    if not va > 0:
        return mpf("inf")
    return alpha * (m0 - m1) ** 2 / (2 * va) - (mpmath.log(va) - (1 - alpha) * mpmath.log(v0)
                                                 - alpha * mpmath.log(v1)) / (2 * (alpha - 1))


def gaussian_renyi_quad(alpha, m0, v0, m1, v1) -> mpf:
    """The same by quadrature of p^α q^{1−α} (in log space, around both means)."""
    alpha = mpf(alpha)
    s0, s1 = mpmath.sqrt(mpf(v0)), mpmath.sqrt(mpf(v1))
    f = lambda o: mpmath.exp(alpha * mpmath.log(mpmath.npdf(o, m0, s0)) + (1 - alpha) * mpmath.log(mpmath.npdf(o, m1, s1)))
    w = 40 * max(s0, s1)
    return mpmath.log(mpmath.quad(f, [-mpmath.inf, mpf(m0) - w, mpf(m0), mpf(m1), mpf(m1) + w, mpmath.inf])) / (alpha - 1)


def gnss_divergence(alpha, sigma, r, shift) -> mpf:
    """D_α of the GNSS release (Papernot et al. 2018 App. B.4; seed 003, Lemma 3.6.5) on two neighbours with
    SS_β(X) = 1 and SS_β(X′) = r ∈ [e^{−β}, e^β], f(X′) − f(X) = shift: N(0, σ²) against N(shift, r²σ²)."""
    return gaussian_renyi(alpha, 0, mpf(sigma) ** 2, shift, (mpf(r) * mpf(sigma)) ** 2)


def gnss_worst(alpha, beta, sigma, grid=40) -> tuple:
    """The largest D_α of the GNSS release over the smooth-sensitivity constraints (SS_β(X′)/SS_β(X) = r ∈ [e^{−β},
    e^β], |f(X) − f(X′)| ≤ min(LS(X), LS(X′)) ≤ min(1, r)), on a grid of ``grid`` + 1 ratios r (log-spaced, both
    ends included) with the largest shift min(1, r) (D_α increases in |shift|). Returns (max, the r attaining it)."""
    beta = mpf(beta)
    rows = []
    for k in range(grid + 1):
        r = mpmath.exp(-beta + 2 * beta * k / grid)
        rows.append((gnss_divergence(alpha, sigma, r, min(mpf(1), r)), r))
    return max(rows)

def pate_constants_from_sigma(sigma_s, delta):
    """Alg 6's constants with σ_s given (seed 003, Alg 6; notes §2.4 [R]): α = 2 log(2/δ)/ε̂ + 1 and
    σ_s² = (3α + 2)/ε̂ give σ_s² ε̂² − 5ε̂ − 6 log(2/δ) = 0, so ε̂ = (5 + √(25 + 24σ_s² log(2/δ)))/(2σ_s²);
    β = 0.2/α. Returns (ε̂, α, β)."""
    s2, L = mpf(sigma_s) ** 2, mpmath.log(2 / mpf(delta))
    eps_hat = (5 + mpmath.sqrt(25 + 24 * s2 * L)) / (2 * s2)
    alpha = 2 * L / eps_hat + 1
    return eps_hat, alpha, mpf("0.2") / alpha


# --- Alg 5's truncated geometric (Thm B.2.3) ---------------------------------------------------------------------


def truncated_geometric_pgf(x, tau, T) -> mpf:
    """E[x^{T̂}] for T̂ = min(T, G), G ~ Geometric(τ) on {1, 2, ...}, T a positive integer:
    Σ_{g<T} τ(1−τ)^{g−1}x^g + (1−τ)^{T−1}x^T, summed in closed form (a geometric series)."""
    x, tau, T = mpf(x), mpf(tau), int(T)
    r = (1 - tau) * x
    head = tau * x * (1 - r ** (T - 1)) / (1 - r) if r != 1 else tau * x * (T - 1)
    return head + x * r ** (T - 1)


def truncated_geometric_mean(tau, T) -> mpf:
    """E[T̂] = Σ_{g ≥ 1} P[T̂ ≥ g] = Σ_{g=1}^{T} (1−τ)^{g−1} = (1 − (1−τ)^T)/τ."""
    tau = mpf(tau)
    return (1 - (1 - tau) ** int(T)) / tau
