"""The algebra of Theorem 5.2 (formal version, seed 000, A.4: eqs. (93)–(96), (118)–(127), (136)–(141), (151)).

Notation renamed to avoid the seed's clashes (notes §2.14 and §6 item 20): λ = strong convexity (printed α), β = smoothness,
σ_g² = variance of honest gradients (printed σ²), x = ‖w^(t) − w*‖. n oracles, at most F corrupted, n > 2F.
Routine A releases Σ_{i≤n} g_(i) + N(0, σ1² I_d); Routine B releases Σ_{i≤n−F} g_(i) + N(0, σ2² I_d).
"""
from __future__ import annotations

import sympy as sp

from . import CheckResult, check

eta, lam, beta, R, d, sigma_g, sigma1, x, k = sp.symbols("eta lambda beta R d sigma_g sigma1 x k", positive=True)
F, m, slack = sp.symbols("F m slack", positive=True)  # m = n − F > F
n = F + m


def rho_B(step):
    """(95)/(124): ρ_B = 1 − 2ηλ(n−2F) + η²(n² + (n−F+1)(n−F)β²)."""
    return 1 - 2 * step * lam * (n - 2 * F) + step**2 * (n**2 + (n - F + 1) * (n - F) * beta**2)


def rho_A(step):
    """(140): ρ_A = 1 − 2ηλ(n−F) + η²(n² + (n+1)(n−F)β²)."""
    return 1 - 2 * step * lam * (n - F) + step**2 * (n**2 + (n + 1) * (n - F) * beta**2)


def m_A(step, corrupted_term):
    """(141): M_A = η²(n+1)((n−F)σ_g² + [corrupted term] + dσ1²) + (F/n)²R²; printed corrupted term FR."""
    return step**2 * (n + 1) * noise_bracket(corrupted_term) + (F / n) ** 2 * R**2


def m_B(step, s2):
    """(96)/(125): M_B = η²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)²R²."""
    return step**2 * (n - F + 1) * ((n - F) * sigma_g**2 + d * s2**2) + (F / n) ** 2 * R**2


def sigma2_squared_hypothesis(corrupted_term):
    """(151): σ2² ≥ ((n−F)(n+1)/n²)(((n−F)σ_g² + [corrupted term])/d + σ1²); printed corrupted term FR."""
    return (n - F) * (n + 1) / n**2 * (((n - F) * sigma_g**2 + corrupted_term) / d + sigma1**2)


def _zero(expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


@check
def am_gm_step_123() -> CheckResult:
    """(123): 2ηFRx ≤ (F/n)²R² + n²η²x², because the difference is (FR/n − nηx)²; and adding n²η²x² to the
    x²-coefficients of (118) and (137) gives ρ_B (124) and ρ_A (140)."""
    square = _zero((F / n) ** 2 * R**2 + n**2 * eta**2 * x**2 - 2 * eta * F * R * x - (F * R / n - n * eta * x) ** 2)
    coef_118 = 1 - 2 * eta * lam * (n - 2 * F) + eta**2 * beta**2 * (n - F + 1) * (n - F)
    coef_137 = 1 - 2 * eta * lam * (n - F) + eta**2 * (n + 1) * (n - F) * beta**2
    rho_b = _zero(coef_118 + n**2 * eta**2 - rho_B(eta))
    rho_a = _zero(coef_137 + n**2 * eta**2 - rho_A(eta))
    return CheckResult("am_gm_step_123", square and rho_b and rho_a,
                       {"difference_is_a_square": square, "rho_B_(124)": rho_b, "rho_A_(140)": rho_a})


@check
def step_size_bound_94_is_not_strict() -> CheckResult:
    """(94)/(127): ρ_B < 1 ⇔ 0 < η_B < η_max = 2λ(n−2F)/(n² + (n−F+1)(n−F)β²). At the printed end point
    η_B = η_max, ρ_B = 1 exactly and the limit M_B/(1−ρ_B) is undefined: the bound needs "<", not "≤"."""
    K = n**2 + (n - F + 1) * (n - F) * beta**2
    eta_max = 2 * lam * (n - 2 * F) / K
    factorised = _zero(rho_B(eta) - 1 - eta * (K * eta - 2 * lam * (n - 2 * F)))
    at_end = sp.simplify(rho_B(eta_max))
    return CheckResult("step_size_bound_94_is_not_strict", factorised and at_end == 1,
                       {"rho_B-1 = eta*(K*eta - 2*lambda*(n-2F))": factorised, "rho_B(eta_max)": str(at_end)})


@check
def rho_A_at_most_rho_B() -> CheckResult:
    """With η_A = ((n−F)/n)η_B: ρ_B(η_B) − ρ_A(η_A) = 2η_BλF²/n + η_B²F(2n−F) + η_B²β²(n−F)F(n(n−F)+n+(n−F))/n²
    (identity checked), a sum of non-negative terms since n > F."""
    eta_a = (n - F) / n * eta
    decomposition = (2 * eta * lam * F**2 / n + eta**2 * F * (2 * n - F)
                     + eta**2 * beta**2 * (n - F) * F * (n * (n - F) + n + (n - F)) / n**2)
    identity = _zero(rho_B(eta) - rho_A(eta_a) - decomposition)
    return CheckResult("rho_A_at_most_rho_B", identity, {"identity": identity, "decomposition": str(decomposition)})


def _m_a_below_m_b(corrupted_term) -> tuple[bool, sp.Expr]:
    """Under η_A = ((n−F)/n)η_B and σ2² = hypothesis + slack: M_B − M_A as an explicit sum of non-negative terms."""
    eta_a = (n - F) / n * eta
    s2 = sp.sqrt(sigma2_squared_hypothesis(corrupted_term) + slack)
    X = (n - F) * sigma_g**2 + corrupted_term + d * sigma1**2
    decomposition = eta**2 * ((n - F + 1) * (n - F) * sigma_g**2 + (n - F) * (n + 1) / n**2 * X
                              + (n - F + 1) * d * slack)
    return _zero(m_B(eta, s2) - m_A(eta_a, corrupted_term) - decomposition), decomposition


@check
def m_A_at_most_m_B_under_151() -> CheckResult:
    """(151) ⇒ M_A ≤ M_B (as the appendix says next to (151), and contrary to its earlier "M_B < M_A"), both with the
    printed corrupted term FR and with the corrected FR²: M_B − M_A = η_B²[(n−F+1)(n−F)σ_g² + ((n−F)(n+1)/n²)X
    + (n−F+1)d·slack] with X = (n−F)σ_g² + (corrupted term) + dσ1² and slack = σ2² − (151's right side) ≥ 0."""
    printed, _ = _m_a_below_m_b(F * R)
    corrected, decomposition = _m_a_below_m_b(F * R**2)
    return CheckResult("m_A_at_most_m_B_under_151", printed and corrected,
                       {"printed_FR": printed, "corrected_FR2": corrected, "M_B - M_A": str(decomposition)})


# Table of the experiments (seed 000, B.1.3 and B.2): batch size, clip norm R, proposed bound τ.
EXPERIMENTS = {"MNIST/EMNIST": (256, 1, sp.Rational(1, 2)), "CIFAR-10": (1024, 3, 2), "ResNet18/VGG11": (2048, 5, 3)}


@check
def hypothesis_151_excludes_the_experiments() -> CheckResult:
    """(151) implies σ2²/σ1² ≥ (n−F)(n+1)/n², since the other terms are ≥ 0. PTR-TMEAN (Algorithm 3) uses σ2/σ1 =
    (στ)/(σR) = τ/R. With F = 25% of the batch (seed 000, B.1.3) this needs τ/R ≥ √(0.75(n+1)/n) ≈ 0.866,
    but the experiments use τ/R = 1/2, 2/3, 3/5 (exact rational comparison): Thm 5.2 does not cover them."""
    evidence, violated = {}, []
    for name, (batch, clip, tau) in EXPERIMENTS.items():
        nn, ff = sp.Integer(batch), sp.Integer(batch) / 4
        required = (nn - ff) * (nn + 1) / nn**2
        used = (sp.Rational(tau) / clip) ** 2
        evidence[name] = {"required_sigma2_over_sigma1": float(sp.sqrt(required)), "used_tau_over_R": float(sp.sqrt(used))}
        violated.append(used < required)
    return CheckResult("hypothesis_151_excludes_the_experiments", all(violated), evidence)


def noise_bracket(corrupted_term):
    """The bracket of (139)/(141): (n−F)σ_g² + [corrupted term] + dσ1², a bound on E[Σ_i ‖g_(i)‖² + ‖ξ‖²] minus
    the gradient-norm part; printed corrupted term FR."""
    return (n - F) * sigma_g**2 + corrupted_term + d * sigma1**2


@check
def dimension_of_corrupted_term() -> CheckResult:
    """Erratum ptr.E10. The bracket of (139)/(141) bounds a sum of squared gradient norms, so scaling every
    gradient-valued quantity by k (R, σ_g, σ1 → k·) must scale it by k². With the printed FR it does not; with FR²
    (F clipped corrupted gradients, each of squared norm ≤ R²) it does. (The separate (F/n)²R² term comes from the
    AM-GM step (123), which is a valid numeric inequality, so it is not part of this check.)"""
    scale = {R: k * R, sigma_g: k * sigma_g, sigma1: k * sigma1}
    change = lambda e: sp.factor(sp.simplify(e.subs(scale, simultaneous=True) - k**2 * e))
    printed_change, corrected_change = change(noise_bracket(F * R)), change(noise_bracket(F * R**2))
    return CheckResult("dimension_of_corrupted_term", printed_change != 0 and corrected_change == 0,
                       {"printed_FR: bracket(k·) - k^2 bracket": str(printed_change),
                        "corrected_FR2: bracket(k·) - k^2 bracket": str(corrected_change)})


@check
def reference_matches_the_symbolic_forms() -> CheckResult:
    """dpspec.reference.ptr.thm5_2's ρ_B, ρ_A, M_B, M_A (printed FR and corrected FR²) and η_max agree with the
    expressions above at exact rational points (as mpf at 30 digits, to 1e-25 relative)."""
    import mpmath

    from dpspec.reference.ptr import thm5_2 as ref

    points = [dict(F=3, m=13, lam=sp.Rational(1, 2), beta=2, eta=sp.Rational(1, 1000), R=5, d=100,
                   sigma_g=sp.Rational(3, 2), sigma1=7, s2=6),
              dict(F=10, m=54, lam=sp.Rational(1, 10), beta=sp.Rational(3, 2), eta=sp.Rational(1, 30000), R=1, d=7,
                   sigma_g=sp.Rational(1, 4), sigma1=sp.Rational(11, 10), s2=sp.Rational(11, 20))]
    worst = 0
    with mpmath.workdps(30):
        for p in points:
            sub = {F: p["F"], m: p["m"], lam: p["lam"], beta: p["beta"], eta: p["eta"], R: p["R"], d: p["d"],
                   sigma_g: p["sigma_g"], sigma1: p["sigma1"]}
            nn = p["F"] + p["m"]
            exact = lambda v: mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q  # a rational as mpf
            f = lambda e: exact(e.subs(sub))
            mp_ = {k: exact(v) for k, v in p.items()}
            pairs = [
                (f(rho_B(eta)), ref.rho_b(nn, p["F"], mp_["beta"], mp_["lam"], mp_["eta"])),
                (f(rho_A(eta)), ref.rho_a(nn, p["F"], mp_["beta"], mp_["lam"], mp_["eta"])),
                (f(m_B(eta, p["s2"])), ref.m_b(nn, p["F"], mp_["d"], mp_["R"], mp_["sigma_g"], mp_["s2"], mp_["eta"])),
                (f(m_A(eta, F * R)), ref.m_a(nn, p["F"], mp_["d"], mp_["R"], mp_["sigma_g"], mp_["sigma1"], mp_["eta"],
                                             printed=True)),
                (f(m_A(eta, F * R**2)), ref.m_a(nn, p["F"], mp_["d"], mp_["R"], mp_["sigma_g"], mp_["sigma1"],
                                                mp_["eta"])),
                (f(2 * lam * (n - 2 * F) / (n**2 + (n - F + 1) * (n - F) * beta**2)),
                 ref.eta_b_max(nn, p["F"], mp_["beta"], mp_["lam"])),
            ]
            worst = max([worst] + [abs(a - b) / abs(a) for a, b in pairs])
    return CheckResult("reference_matches_the_symbolic_forms", worst <= mpmath.mpf("1e-25"),
                       {"max_relative_difference": mpmath.nstr(worst, 3)})
