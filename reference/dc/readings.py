"""DC-DPSGD's privacy made computable: the effective noise multiplier of each sound reading and its T-fold (ε, δ).

Seed 004 (arXiv 2405.17529v1), Thm 5.1 (L174) and Appendix C (L897–L1059); notes shared/notes/dc-dpsgd.md §3.1–§3.4.
The paper never writes a dominating pair (Claims C(1), C(2) are informal: errata E3, E4). Every sound reading of
one DC-DPSGD step is a Poisson-subsampled Gaussian mechanism with an effective noise multiplier σ_eff (sensitivity
1 after rescaling), so its accounting CALLS the base SGM accountant — the mpmath RDP of base.sgm_rdp (MTZ19) through
base.rdp_to_dp (BBG+20 / CKS20, certified continuous order search: every real α > 1, fractional orders near 1
included), or, variant "pld", base.pld_sgm_epsilon (exact connect-the-dots PLD, T ≤ 64 only). Nothing here is a
new SGM accountant.

Units: the gradient noise is N(0, σ_dp²c1²I) on the clipped sum (the sound "single" form), so in c1 units the noise
multiplier is σ_dp (notes §3.2). The three readings of the selection (tail/body labels; notes §3.4):
- (A) top-⌊pB⌋, kept internal: Δ_gp = 2c1 − c2 (adding z can move one other sample tail → body; E4) and the
  trace-score noise plays no privacy role:  σ_eff = σ_gp·c1/(2c1 − c2);
- (B) a fixed, data-independent score threshold: Δ_gp = c1:  σ_eff = σ_gp;
- (C) the paper's two-component view, noisy scores released with ℓ2 sensitivity Δ_tr (1; 1/k for the 1/k-averaged V;
  √2 with the code's batch normalisation): both components use the SAME batch, so the step is ONE subsampled
  Gaussian with μ_step² = (Δ_tr/σ_tr)² + ((2c1 − c2)/(c1 σ_gp))², σ_eff = 1/μ_step (E2: not two separately
  subsampled ones). The gradient part is reading A's: the selection is top-⌊pB⌋ on the released scores, and adding
  z (with its own score on top) pushes a shared sample from tail to body even with the shared samples' scores
  released and fixed — the clipped sum moves by 2c1 − c2, not c1 (review counterexample, tests/dc/test_dc_privacy.py;
  notes §3.4 (C)'s Δ_gp = c1 holds only in a slot model the operator does not implement). With c1 = c2 the two
  coincide.
σ_gp is the gradient noise's multiplier relative to Δ = c1 for the noise form (notes §3.2, r = c2/c1, p = p_tail):
single σ_dp; Algorithm 1 literal per-sample noise σ_dp·√(B(p + (1−p)r²)) (at n_tail = pB; with Poisson counts
the covariance itself depends on the data — see witnesses.py, dc.gp_variance_mismatch — so this is the
multiplier given the counts only); the public code's σ·√(p² + ((1−p)r)²) (0.1345σ at p = r = 0.1, E6).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..base.conversion import rdp_to_dp
from ..base.pld import pld_sgm_epsilon
from ..base.sgm import sgm_rdp
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import EPS, Param
from ..errors import ConditionError, ParameterError
from ..precision import checked_param as _arg, self_checked
from . import spec

_CITE = "seed 004 (arXiv 2405.17529v1)"
DEFAULT_GRID_STEP = mpf("0.125")  # the PLD reference's finest loss grid (base.pld_sgm_epsilon's domain)


# ---------------------------------------------------------------------------------------------------------------
# effective multipliers


def _check_c(c1, c2):
    c1, c2 = _arg("c1", spec.POSITIVE, c1), _arg("c2", spec.POSITIVE, c2)
    if c2 > c1:
        raise ConditionError("dc.sigma_eff", [spec.C2_AT_MOST_C1.describe()])
    return c1, c2


def gp_multiplier(sigma_dp, c1, c2, noise="single", p_tail=None, batch=None):
    """σ_gp: the gradient noise's std relative to Δ = c1 for each noise form of notes §3.2 (seed 004 Algorithm 1,
    L187–L206; the public code, notes §4.3): single σ_dp; per_sample σ_dp·√(B(p + (1−p)r²)); published
    σ_dp·√(p² + ((1−p)r)²), r = c2/c1, p = p_tail, B = batch."""
    sigma_dp = _arg("sigma_dp", spec.POSITIVE, sigma_dp)
    c1, c2 = _check_c(c1, c2)
    noise = _arg("noise", spec.NOISE_FORM, noise)
    if noise == "single":
        return sigma_dp
    if p_tail is None:
        raise ParameterError(f"noise={noise!r} needs p_tail (the tail fraction p)")
    p, r = _arg("p_tail", spec.FRACTION, p_tail), c2 / c1
    if noise == "published":
        return sigma_dp * mpmath.sqrt(p**2 + ((1 - p) * r) ** 2)
    if batch is None:
        raise ParameterError("noise='per_sample' needs batch (the batch size B)")
    b = _arg("batch", spec.COUNT, batch)
    return sigma_dp * mpmath.sqrt(b * (p + (1 - p) * r**2))


def _sigma_eff(reading, sigma_dp, c1, c2, sigma_tr=None, delta_tr=1, noise="single", p_tail=None, batch=None):
    reading = _arg("reading", spec.READING, reading)
    c1, c2 = _check_c(c1, c2)
    s_gp = gp_multiplier(sigma_dp, c1, c2, noise, p_tail, batch)
    if reading == "A":
        return s_gp * c1 / (2 * c1 - c2)
    if reading == "B":
        return s_gp
    if sigma_tr is None:
        raise ParameterError("reading='C' needs sigma_tr (the trace-score noise std)")
    sigma_tr, delta_tr = _arg("sigma_tr", spec.POSITIVE, sigma_tr), _arg("delta_tr", spec.POSITIVE, delta_tr)
    return 1 / mpmath.sqrt((delta_tr / sigma_tr) ** 2 + ((2 * c1 - c2) / (c1 * s_gp)) ** 2)


@self_checked
def sigma_eff(reading, sigma_dp, c1, c2, sigma_tr=None, delta_tr=1, noise="single", p_tail=None, batch=None):
    """The effective noise multiplier σ_eff of one DC-DPSGD step under a sound reading (module docstring; notes
    §3.2, §3.4; seed 004 Thm 5.1 L174, Claims C(1)–C(2) L903–L973): the step is the Poisson-subsampled Gaussian
    base.sgm with σ = σ_eff. A: σ_gp c1/(2c1 − c2); B: σ_gp; C: ((Δ_tr/σ_tr)² + ((2c1 − c2)/(c1 σ_gp))²)^{−1/2}
    (C's gradient part is A's: top-⌊pB⌋ selection, Δ_gp = 2c1 − c2 even with the scores released)."""
    return _sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr, noise, p_tail, batch)


# ---------------------------------------------------------------------------------------------------------------
# T-fold (ε, δ) through the base accountants


class SgmCurve:
    """α ↦ base.sgm_rdp(α, q, σ) as an RDP curve for base.rdp_to_dp. Equal (and hashed) by (q, σ) to 20 digits, so
    that the conversion's order search (cached per curve, at 20 digits) is run once for the two precisions of a
    self-check; the value at α* is still evaluated at the working precision with this curve's own q, σ.

    The curve is base.sgm_rdp's REMOVE direction D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²)), which is the add/remove
    RDP of the step: Mironov, Talwar & Zhang 2019 (arXiv 1908.10530) Thm 5 prove the add direction is never larger
    for α ≥ 1, so base.sgm_rdp's default "max" returns this same number (to its 1e-10 margin); "max" additionally
    re-checks that theorem numerically at 20 digits at every order (a second quadrature, ~40 % of each order search:
    4.9 → 3.4 s CPU at the example point), which base.sgm_rdp's own conformance checks cover. The remove pair is
    also the witness dc.joint_step checks the readings with."""

    def __init__(self, q, sigma):
        self.q, self.sigma = mpf(q), mpf(sigma)
        self._key = ("base.sgm_rdp", "remove", mpmath.nstr(self.q, 20), mpmath.nstr(self.sigma, 20))

    def __call__(self, alpha):
        return sgm_rdp(alpha, self.q, self.sigma, "remove")

    def __eq__(self, other):
        return isinstance(other, SgmCurve) and other._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"base.sgm_rdp(q={self._key[2]}, sigma={self._key[3]}, direction=remove)"


def sgm_epsilon_rdp(q, sigma, steps, delta):
    """ε(δ) of T Poisson-subsampled Gaussian steps: base.sgm_rdp (MTZ19, every real α) through base.rdp_to_dp
    (BBG+20 Thm 21 / CKS20 Prop. 12, certified order search over all real α > 1)."""
    return rdp_to_dp(SgmCurve(q, sigma), delta, steps=int(steps))


PLD_MAX_STEPS = 64  # base.pld_sgm_epsilon's largest T (spec.PLD_STEPS_DC)


def sgm_epsilon_pld(q, sigma, steps, delta, grid_step=DEFAULT_GRID_STEP):
    """ε(δ) of T SGM steps by the exact connect-the-dots PLD reference, base.pld_sgm_epsilon (Doroshenko et al. 2022;
    T ≤ 64, σ ≥ 0.5, δ ≥ 1e-10: its domains). Beyond T = 64 at q = 1 (no subsampling) the T-fold Gaussian mechanism
    is the Gaussian mechanism at σ/√T (Dong, Roth & Su 2022, Cor. 3.3: μ-GDP composes to √T·μ), so its exact ε(δ)
    is base.gaussian_eps(δ, σ/√T) (Balle & Wang 2018, Thm 8) at every T; for q < 1 the composed PLD has no closed
    form and the mpmath convolution's cost grows with T (its domain stops at 64; the fast PLD covers the paper's T)."""
    steps = int(steps)
    if steps > PLD_MAX_STEPS and mpf(q) == 1:
        from ..base.gaussian import gaussian_eps  # noqa: PLC0415

        return gaussian_eps(delta, mpf(sigma) / mpmath.sqrt(steps))
    return pld_sgm_epsilon(delta, q, sigma, steps, grid_step)


def _reading_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=None, method="rdp", delta_tr=1,
                     noise="single", p_tail=None, batch=None, grid_step=DEFAULT_GRID_STEP):
    s = _sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr, noise, p_tail, batch)
    q = _arg("q", spec.P_Q.domain, q)
    steps = int(_arg("steps", spec.COUNT, steps))
    if method == "rdp":
        return sgm_epsilon_rdp(q, s, steps, delta)
    if method == "pld":
        return sgm_epsilon_pld(q, s, steps, delta, grid_step)
    raise ParameterError(f"method={method!r}: one of ('rdp', 'pld')")


@self_checked
def reading_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=None, method="rdp", delta_tr=1,
                    noise="single", p_tail=None, batch=None, grid_step=DEFAULT_GRID_STEP):
    """ε(δ) of T DC-DPSGD steps under reading A, B or C (notes §3.4 Step 3): T-fold Poisson-subsampled Gaussian at
    σ_eff = sigma_eff(reading, …), by base.sgm_rdp → base.rdp_to_dp (method "rdp") or base.pld_sgm_epsilon
    (method "pld", T ≤ 64). Seed 004 Thm 5.1 (L174) made computable; MNIST (q = 128/60000, T = 18750, δ = 1e-5,
    σ = 0.7048, c2/c1 = 0.1): (B) RDP 4.00, (A) σ_eff 0.3709 (notes §3.4), (C) σ_eff 0.3283 (Δ_gp = 2c1 − c2; the
    notes' 0.4984 used Δ_gp = c1, unsound for top-⌊pB⌋ selection)."""
    return _reading_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, method, delta_tr, noise,
                            p_tail, batch, grid_step)


# ---------------------------------------------------------------------------------------------------------------
# catalogue entries

_C2_LE_C1 = Condition.of(spec.C2_AT_MOST_C1, lambda p: mpf(p["c2"]) <= mpf(p["c1"]))
_PRIVACY = Privacy("add_remove", "both", "poisson")

def _witness(reading):
    """The reading's T-fold pair: dc.joint_step (2-D, one Poisson batch) with the reading's shifts (notes §3.4)."""
    def mapping(p):
        delta_gp = 1 if reading == "B" else 2 - mpf(p["c2"]) / mpf(p["c1"])
        if reading == "C":  # the gradient part is reading A's: Δ_gp/c1 = 2 − c2/c1 (module docstring)
            return {"q": p["q"], "sigma_tr": p["sigma_tr"], "sigma_dp": p["sigma_dp"], "delta_tr": p["delta_tr"],
                    "delta_gp": delta_gp, "steps": p["steps"]}
        return {"q": p["q"], "sigma_tr": 1, "sigma_dp": p["sigma_dp"], "delta_tr": 0, "delta_gp": delta_gp,
                "steps": p["steps"]}
    return mapping


def _reading_fn(reading):
    if reading == "B":
        def ev(q, steps, delta, sigma_dp):
            return reading_epsilon("B", q, steps, delta, sigma_dp, 1, 1)
    elif reading == "A":
        def ev(q, steps, delta, sigma_dp, c1, c2):
            return reading_epsilon("A", q, steps, delta, sigma_dp, c1, c2)
    else:
        def ev(q, steps, delta, sigma_dp, c1, c2, sigma_tr, delta_tr=1):
            return reading_epsilon("C", q, steps, delta, sigma_dp, c1, c2, sigma_tr=sigma_tr, delta_tr=delta_tr)
    ev.__name__ = ev.__qualname__ = f"reading_{reading.lower()}"
    ev.__doc__ = (f"ε(δ) of T DC-DPSGD steps under reading ({reading}) of notes §3.4, by base.sgm_rdp → base.rdp_to_dp "
                  "(seed 004 Thm 5.1, L174, made computable).")
    return self_checked(ev)


def _reading_pld_fn(reading):
    if reading == "B":
        def ev(q, steps, delta, sigma_dp):
            return reading_epsilon("B", q, steps, delta, sigma_dp, 1, 1, method="pld")
    elif reading == "A":
        def ev(q, steps, delta, sigma_dp, c1, c2):
            return reading_epsilon("A", q, steps, delta, sigma_dp, c1, c2, method="pld")
    else:
        def ev(q, steps, delta, sigma_dp, c1, c2, sigma_tr, delta_tr=1):
            return reading_epsilon("C", q, steps, delta, sigma_dp, c1, c2, sigma_tr=sigma_tr, delta_tr=delta_tr,
                                   method="pld")
    ev.__name__ = ev.__qualname__ = f"reading_{reading.lower()}_pld"
    ev.__doc__ = (f"ε(δ) of T DC-DPSGD steps under reading ({reading}) by the exact PLD reference "
                  "base.pld_sgm_epsilon (T ≤ 64, σ_eff ≥ 0.5, δ ≥ 1e-10; notes §3.4 Step 3).")
    return self_checked(ev)


reading_a, reading_b, reading_c = (_reading_fn(r) for r in "ABC")
reading_a_pld, reading_b_pld, reading_c_pld = (_reading_pld_fn(r) for r in "ABC")

_COMMON = (spec.P_Q_ACC, spec.P_STEPS_ACC, spec.P_DELTA_ACC, spec.P_SIGMA_DP_ACC)
_READINGS = {
    "A": dict(params=_COMMON + (spec.P_C1, spec.P_C2), conditions=(_C2_LE_C1,),
              summary="ε(δ) of T-fold SGM(q, σ_eff), σ_eff = σ_dp·c1/(2c1 − c2) (internal top-pB: Δ_gp = 2c1 − c2)",
              purpose="reading (A): top-⌊pB⌋ selection kept internal; Δ_gp = 2c1 − c2, the trace noise costs nothing",
              monotone={"sigma_dp": -1},
              note="The selection can move one other sample tail → body: Δ_gp = c1 + (c1 − c2) (notes §3.2, §3.4 A; "
                   "erratum dc.E4). At the paper's σ this costs a lot: MNIST σ_dp = 0.7048, c2/c1 = 0.1 gives σ_eff "
                   "0.3709 and ε ≈ 43.5 (PLD; notes §3.4). A fair comparison with DP-SGD scales σ_dp by 2 − c2/c1."),
    "B": dict(params=_COMMON, conditions=(),
              summary="ε(δ) of T-fold SGM(q, σ_dp) (fixed score threshold: Δ_gp = c1, no selection cost)",
              purpose="reading (B): a fixed data-independent score threshold; Δ_gp = c1, σ_eff = σ_dp",
              monotone={"sigma_dp": -1},
              note="Each label depends only on its own sample and noise: the step is DP-SGD's step (notes §3.4 B); "
                   "this is base.sgm_rdp → base.rdp_to_dp at σ = σ_dp. MNIST (q = 128/60000, T = 18750, δ = 1e-5, "
                   "σ = 0.7048): RDP ε = 4.00 (notes §3.4), PLD 3.48 (fast accountant, helper H)."),
    "C": dict(params=_COMMON + (spec.P_C1, spec.P_C2, spec.P_SIGMA_TR_ACC, spec.P_DELTA_TR), conditions=(_C2_LE_C1,),
              summary="ε(δ) of T-fold SGM(q, σ_eff), σ_eff = ((Δ_tr/σ_tr)² + ((2c1 − c2)/(c1σ_dp))²)^{−1/2} (scores "
                      "released, same batch, top-⌊pB⌋)",
              purpose="reading (C): the paper's two-component view, trace scores released; ONE subsampled Gaussian "
                      "with μ_step² = (Δ_tr/σ_tr)² + ((2c1 − c2)/(c1 σ_dp))²",
              monotone={"sigma_tr": -1},
              note="Both components use the same Poisson batch, so the per-step pair is the subsampled Gaussian at the "
                   "composed μ (GDP composition, Dong–Roth–Su), not two separately subsampled mechanisms (erratum "
                   "dc.E2: ε_tr + ε_dp is invalid). The gradient part is reading A's Δ_gp = 2c1 − c2: with top-⌊pB⌋ "
                   "selection, adding z moves a shared sample tail → body even with the shared scores released and "
                   "fixed (D = {x, y}, D' = D ∪ {z}, p = 1/2: tails [x] vs [z], shift 2c1 − c2; notes §3.4 (C)'s "
                   "Δ_gp = c1 needs a slot model the operator does not implement). MNIST 4+4 (σ_tr = σ_dp = 0.7048, "
                   "c2/c1 = 0.1): σ_eff 0.3283, PLD ε ∈ [72.2, 72.7] against the claimed 8 (with Δ_gp = c1 it would "
                   "be 12.45: the notes' number); at c1 = c2 it is 12.45. The slot model that makes the released "
                   "scores' Δ_tr ≤ 1 under add/remove is an analysis device (notes §3.1): prefer A or B."),
}

for _r, _d in _READINGS.items():
    register(Statement(
        id=f"dc.reading_{_r.lower()}",
        fast=f"dpspec.fast.dc.accounting:reading_{_r.lower()}",
        tolerance=1e-6,  # both order searches stop at an order they found; observed ≤ 6e-16 (helper H)
        source=Source(spec.SEED, "Thm 5.1", _d["purpose"]),
        kind="eps_delta",
        claim="upper",
        value=Value("eps", "delta"),
        summary=_d["summary"],
        params=_d["params"],
        conditions=_d["conditions"],
        reference=globals()[f"reading_{_r.lower()}"],
        variants={"pld": Variant(globals()[f"reading_{_r.lower()}_pld"],
                                 "the exact PLD reference base.pld_sgm_epsilon at σ_eff (grid 0.125): only T ≤ 64, "
                                 "σ_eff ≥ 0.5, δ ≥ 1e-10 (its domains; outside them a DomainError; at q = 1 and "
                                 "T > 64 the exact Gaussian ε(δ) at σ_eff/√T, base.gaussian_eps) — the notes' sizes "
                                 "(T = 473–18750) are the fast PLD's (helper H, fast/dc/accounting.py)")},
        witnesses=(WitnessUse("dc.joint_step", _witness(_r), "the T-fold joint-step pair of the reading (scores and "
                              "gradient on one Poisson batch; its loss is base.sgm's at σ_eff, notes §3.4)"),),
        privacy=_PRIVACY,
        monotone=_d["monotone"],
        note=_d["note"] + " Monotone in every parameter (σ's −, q, T, Δ's +, δ −); one declaration is checked, each "
                          "costs ~10 certified searches. Relates: base.sgm_rdp, base.rdp_to_dp, base.pld_sgm_epsilon; dc.sigma_eff gives σ_eff; "
                          "dc.thm5_1_total compares with the printed ε_tr + ε_dp.",
    ))


@self_checked
def sigma_eff_statement(reading, sigma_dp, c1, c2, sigma_tr, delta_tr=1, noise="single", p_tail="0.1", batch=256):
    """dc.sigma_eff's evaluator: :func:`sigma_eff` with every input explicit (notes §3.2, §3.4)."""
    return _sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr, noise, p_tail, batch)


register(Statement(
    id="dc.sigma_eff",
    fast="dpspec.fast.dc.accounting:sigma_eff",
    source=Source(spec.SEED, "Thm 5.1 / Algorithm 1", "the effective noise multiplier of one DC-DPSGD step per reading "
                  "and noise form (notes §3.2, §3.4)"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="σ_eff: A σ_gp c1/(2c1−c2); B σ_gp; C ((Δ_tr/σ_tr)² + ((2c1−c2)/(c1σ_gp))²)^{−1/2}; σ_gp: σ_dp | "
            "σ_dp√(B(p+(1−p)r²)) | σ_dp√(p²+((1−p)r)²)",
    params=(spec.P_READING, spec.P_SIGMA_DP, spec.P_C1, spec.P_C2, spec.P_SIGMA_TR, spec.P_DELTA_TR,
            spec.P_NOISE_FORM, spec.P_P_TAIL_DEFAULT, spec.P_BATCH_DEFAULT),
    conditions=(_C2_LE_C1,),
    reference=sigma_eff_statement,
    monotone={"sigma_dp": +1, "sigma_tr": +1},
    note="The number every reading's accounting runs on (dc.reading_a/b/c: base.sgm at σ = σ_eff). Noise forms "
         "(notes §3.2): 'single' is the sound one; 'per_sample' is Algorithm 1 literally (over-noised: 0.330√B σ_dp at "
         "p = r = 0.1, and with Poisson counts its covariance depends on the data: dc.gp_variance_mismatch, not a "
         "Gaussian mechanism — the value is the multiplier given the counts); 'published' is the public code's "
         "(0.1345σ at p = r = 0.1: under-noised, erratum dc.E6). sigma_tr is used by reading C only.",
))


# ---------------------------------------------------------------------------------------------------------------
# Claims C(1) and C(2)


@self_checked
def claim_c1(eps, sigma_tr, delta_tr=1):
    """δ(ε) of releasing all noisy trace scores λ̃ = λ + N(0, σ_tr²I) in one step: a Gaussian mechanism with
    ℓ2 sensitivity Δ_tr (≤ 1; ≤ 1/k for the 1/k-averaged V), i.e. base.gaussian_profile at σ_tr/Δ_tr (Balle & Wang
    2018, Thm 8). The sound replacement of seed 004 Claim C(1) (L903–L952; notes §3.1, erratum dc.E3): the printed
    'report i-th noisy argmax' argument has no computable form; the top-⌊pB⌋ set is post-processing of λ̃."""
    from ..base.gaussian import gaussian_profile  # noqa: PLC0415

    sigma_tr, delta_tr = _arg("sigma_tr", spec.POSITIVE, sigma_tr), _arg("delta_tr", spec.POSITIVE, delta_tr)
    return gaussian_profile(eps, sigma_tr / delta_tr)


register(Statement(
    id="dc.claim_c1",
    source=Source(spec.SEED, "Claim C(1)", "trace sorting: the released noisy scores as one Gaussian mechanism "
                  "(the sound replacement of the 'report noisy argmax' argument)"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Φ(Δ/(2σ_tr) − εσ_tr/Δ) − e^ε Φ(−Δ/(2σ_tr) − εσ_tr/Δ), Δ = Δ_tr (scores λ ∈ [0, 1])",
    params=(Param("eps", EPS, "ε ≥ 0", example=1), spec.P_SIGMA_TR, spec.P_DELTA_TR),
    reference=claim_c1,
    witnesses=(WitnessUse("dc.ts_step", lambda p: {"sigma_tr": p["sigma_tr"], "delta_tr": p["delta_tr"]},
                          "the per-step TS pair: one score moves by Δ_tr under N(0, σ_tr²)"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": -1, "sigma_tr": -1, "delta_tr": +1},
    note="Not subsampled (one step, the sample in the batch). The printed argument (Dwork–Roth Claim 3.9 transplanted "
         "to Gaussian noise, 'Gauss(1/ε_tr)', δ_tr = 2δ never quantified) yields no pair: the Gaussian ratio "
         "P[r ≥ r*+1]/P[r ≥ r*] → 0, so no pure bound exists (erratum dc.E3). This is base.gaussian_profile at "
         "σ_tr/Δ_tr; in a training run the scores share the batch with the gradient step (dc.reading_c).",
))


@self_checked
def claim_c2(c1, c2, selection="fixed"):
    """The per-sample ℓ2 sensitivity of the clipped gradient sum under add/remove (seed 004 Claim C(2), L954–L973;
    notes §3.2, erratum dc.E4): c1 (= max(c1, c2)) with the tail/body assignment fixed; 2c1 − c2 when the
    assignment is recomputed on D' (adding z can move one other sample from tail to body)."""
    c1, c2 = _check_c(c1, c2)
    selection = _arg("selection", spec.SELECTION, selection)
    return c1 if selection == "fixed" else 2 * c1 - c2


@self_checked
def claim_c2_statement(c1, c2, selection="fixed", p_tail="0.1"):
    """dc.claim_c2's evaluator: :func:`claim_c2` (p_tail enters only the printed variant)."""
    _arg("p_tail", spec.FRACTION, p_tail)
    return claim_c2(c1, c2, selection)


@self_checked
def claim_c2_printed(c1, c2, selection="fixed", p_tail="0.1"):
    """The printed Δf = (1/B)(pBc1 + (1−p)Bc2) = p c1 + (1−p) c2 (seed 004 L960–L965): an average threshold, NOT a
    one-sample sensitivity (erratum dc.E4)."""
    c1, c2 = _check_c(c1, c2)
    p = _arg("p_tail", spec.FRACTION, p_tail)
    return p * c1 + (1 - p) * c2


def _clipped_sum(grads, scores, c1, c2, p_tail, selection_of=None):
    """Σ_i clip(g_i, c_i) with c_i = c1 for the top-⌊p n⌋ scores (tail), c2 otherwise (Algorithm 1, L190–L200);
    ``selection_of`` fixes the tail set instead (the 'fixed' neighbour model)."""
    import numpy as np  # noqa: PLC0415

    n = len(grads)
    tail = set(np.argsort(-scores)[: int(np.floor(p_tail * n))]) if selection_of is None else selection_of
    out = np.zeros(grads.shape[1])
    for i in range(n):
        c = c1 if i in tail else c2
        norm = np.linalg.norm(grads[i])
        out += grads[i] * min(1.0, c / norm) if norm > 0 else 0
    return out, tail


def _attaining_pair(c1, c2, p_tail):
    """The pair attaining 2c1 − c2 under top-⌊pn⌋ selection (E4; the review's counterexample of reading C): n samples
    with ⌊pn⌋ = ⌊p(n+1)⌋ = m ≥ 1 — x (score 0.5, gradient 2c1·e1, the lowest-scored tail sample of D), m − 1 zero
    gradients of score 0.9 (tail on both sides) and n − m zero gradients of score 0 —, and z (score 1, gradient
    −2c1·e1), which pushes x to the body: Σ goes from c1·e1 to (c2 − c1)·e1. Returns (gradients (n+1, 3), scores,
    n) with z last; None where no n ≤ 1000 fits (p = 0 or p = 1: the selection never moves a sample)."""
    import numpy as np  # noqa: PLC0415

    for n in range(1, 1001):
        m = int(np.floor(p_tail * n))
        if m >= 1 and m == int(np.floor(p_tail * (n + 1))) and m < n:
            g = np.zeros((n + 1, 3))
            g[0, 0], g[n, 0] = 2 * c1, -2 * c1
            sc = np.zeros(n + 1)
            sc[0], sc[1:m], sc[n] = 0.5, 0.9, 1.0
            return g, sc, n
    return None


def _sensitivity_brute_force(statement, p):
    """Property: on 300 seeded random batches (n from 1 to max(8, ⌈2/p⌉), so that top-⌊pn⌋ selection does pick
    tail samples; 3-D gradients of norms around c2…c1, random scores), adding one sample z moves the clipped sum by
    at most Δ_gp (the statement's value), both neighbour models; and Δ_gp is attained: c1 by a tail sample z of norm
    2c1 (assignment fixed), 2c1 − c2 by :func:`_attaining_pair` (recomputed, where p ∈ (0, 1))."""
    import numpy as np  # noqa: PLC0415

    c1, c2, sel, pt = float(p["c1"]), float(p["c2"]), p["selection"], float(p["p_tail"])
    if c2 > c1:
        return
    bound = float(claim_c2(p["c1"], p["c2"], sel))
    rng = np.random.default_rng(20240527)
    n_max = max(8, int(np.ceil(2 / pt))) if pt > 0 else 8
    worst, tails_seen = 0.0, 0
    for _ in range(300):
        n = int(rng.integers(1, n_max + 1))
        g = rng.standard_normal((n + 1, 3))
        g *= (np.exp(rng.uniform(np.log(c2 / 3), np.log(3 * c1), n + 1)) / np.linalg.norm(g, axis=1))[:, None]
        sc = rng.random(n + 1)
        base, tail = _clipped_sum(g[:n], sc[:n], c1, c2, pt)
        tails_seen += bool(tail)
        if sel == "fixed":
            z_tail = set(tail) | ({n} if rng.random() < 0.5 else set())
            moved, _ = _clipped_sum(g, sc, c1, c2, pt, selection_of=z_tail)
        else:
            moved, _ = _clipped_sum(g, sc, c1, c2, pt)
        worst = max(worst, float(np.linalg.norm(moved - base)))
    if worst > bound * (1 + 1e-12):
        raise AssertionError(f"a neighbour moved the clipped sum by {worst:.6g} > Δ_gp = {bound:.6g} ({sel})")
    if 0.05 <= pt < 1 and not tails_seen:
        raise AssertionError(f"vacuous: no drawn batch had a tail sample at p = {pt}")
    if sel == "fixed":
        z = np.array([[2 * c1, 0.0, 0.0]])
        moved, _ = _clipped_sum(z, np.ones(1), c1, c2, pt, selection_of={0})
        if abs(float(np.linalg.norm(moved)) - bound) > 1e-12 * bound:
            raise AssertionError("Δ_gp = c1 is not attained by a tail sample z of norm 2c1")
        return
    pair = _attaining_pair(c1, c2, pt)
    if pair is not None:
        g, sc, n = pair
        shift = np.linalg.norm(_clipped_sum(g, sc, c1, c2, pt)[0] - _clipped_sum(g[:n], sc[:n], c1, c2, pt)[0])
        if abs(float(shift) - bound) > 1e-12 * bound:
            raise AssertionError(f"Δ_gp = 2c1 − c2 = {bound:.6g} not attained (shift {float(shift):.6g})")


register(Statement(
    id="dc.claim_c2",
    source=Source(spec.SEED, "Claim C(2)", "sensitivity of the discriminatively clipped gradient sum"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="Δ_gp = c1 (assignment fixed) or 2c1 − c2 (recomputed); printed p c1 + (1−p) c2 is not a sensitivity",
    params=(spec.P_C1, spec.P_C2, spec.P_SELECTION, spec.P_P_TAIL_DEFAULT),
    conditions=(_C2_LE_C1,),
    reference=claim_c2_statement,
    properties=(_sensitivity_brute_force,),
    variants={"printed": Variant(claim_c2_printed, "the printed Δf = p c1 + (1−p) c2 (L960–L965, erratum dc.E4): the "
                                 "output's mean moves by c1 when z is a tail sample", is_bound=False)},
    note="Two-dataset counterexample to the printed form: D' = D ∪ {z}, z's clipped gradient of norm c1 (a tail "
         "sample) moves the noisy sum's mean by c1 > p c1 + (1−p) c2 (proofs_checks dc.E4). p_tail enters the printed "
         "variant only. Readings: B uses c1, A uses 2c1 − c2 (dc.reading_a, dc.reading_b).",
))
