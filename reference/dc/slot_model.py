"""Reading C of DC-DPSGD in the slot model (notes shared/notes/dc-dpsgd.md §3.1, §3.4 (C)): the algorithm for which
the two-component view's Δ_gp = c1 holds, and its T-fold (ε, δ) (``dc.reading_c_slot``). Seed 004 (arXiv
2405.17529v1) Thm 5.1 (L174), Claims C(1)–C(2) (L903–L973), Algorithm 1 (L187–L206).

The algorithm it certifies — SLOT-DC, an algorithm VARIANT, not Algorithm 1 under add/remove:

* a public slot set [N] fixed before the data (N at least the largest data set considered); each record owns one
  slot, distinct records distinct slots; D' = D ∪ {z} fills one slot that is empty in D;
* a Poisson batch: each record independently with probability q;
* scores over ALL N slots: λ_j = ‖Vᵀĝ_j‖² ∈ [0, Δ_tr] if slot j's record is in the batch (Δ_tr = 1 for orthonormal
  V, 1/k for the 1/k-averaged V), λ_j = 0 for every other slot (empty, or its record not sampled);
  λ̃ = λ + N(0, σ_tr² I_N) is released;
* labels: tail/body = ℓ(λ̃) for a function ℓ of the released vector ALONE — e.g. the top-m slots with m public
  (fixed before the data, e.g. ⌊p·q·N⌋), or a fixed threshold; empty slots are ranked with the others (a tail label
  on an empty slot clips nothing);
* s = Σ_{j in the batch} g_j·min(1, c_{ℓ_j}/‖g_j‖) + N(0, σ_dp²c1² I_d) is released (c2 ≤ c1).

One step's sensitivity (add/remove; z in the batch against z not, every other coin equal): λ̃'s mean moves in z's
slot only, by λ_z ≤ Δ_tr; GIVEN λ̃ the labels are the same on both sides, so s's mean moves by z's clipped gradient
alone, of norm ≤ c1: Δ_gp = c1 (:func:`brute_force_shift` checks this on every ranking of a tiny slot set). The step
is the adaptive composition of two Gaussian mechanisms (Dong, Roth & Su 2019, GDP composition: μ² = (Δ_tr/σ_tr)² +
(1/σ_dp)² in c1 units), and both use the same Poisson batch, so the step is ONE Poisson-subsampled Gaussian at
σ_eff = 1/μ (notes §3.3; erratum dc.E2: not two separately subsampled ones); T steps compose. The accounting is
reading C's formula at Δ_gp = c1, i.e. dpspec.reference.dc.readings.reading_epsilon("C", …, c1 = c2 = 1): this
module calls it (base.sgm_rdp → base.rdp_to_dp; variant "pld": base.pld_sgm_epsilon, T ≤ 64).

Why the variant matters (each a rule :func:`brute_force_shift` measures, tests/dc/test_dc_slot_model.py):
* Algorithm 1 ranks the BATCH members and takes the top ⌊p·|batch|⌋: adding z (its own score on top) pushes a shared
  sample tail → body even with every shared noisy score released and fixed: 2c1 − c2 (FINDINGS "Seed 004", the
  review's counterexample; dc.reading_c accounts that);
* slots ranked together but m = ⌊p·|batch|⌋ (data-dependent): adding z can raise m and move a shared sample body →
  tail: again 2c1 − c2. The count must be public.
* releasing a score list indexed by batch members instead of slots reveals membership outright (notes §3.1): the
  slot vector's length and indices do not depend on the data.
Utility price (not a privacy matter): N − |batch| empty slots with N(0, σ_tr²) scores compete for the m tail labels.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ..catalogue import Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ParameterError
from ..precision import self_checked
from . import spec
from .readings import reading_epsilon

RULES = ("slot_top_m", "slot_top_p_batch", "batch_top_p")


# ---------------------------------------------------------------------------------------------------------------
# the slot-model step (numpy; the brute force of its one-step sensitivity)


def _clipped(grads, c):
    """g·min(1, c/‖g‖) row-wise over the last axis (zero rows stay zero)."""
    norms = np.linalg.norm(grads, axis=-1, keepdims=True)
    return grads * np.minimum(1.0, c / np.where(norms > 0, norms, np.inf))


def clipped_sum(grads, in_batch, tail, c1, c2):
    """Σ_{j in the batch} g_j·min(1, c_j/‖g_j‖), c_j = c1 for tail slots, c2 otherwise (Algorithm 1 line 10, L202).
    ``grads``: (N, d), one row per slot (rows of slots outside the batch are ignored), or (G, N, d) for G gradient
    sets at once (returns (G, d))."""
    grads = np.asarray(grads, float)
    tail, in_batch = np.asarray(tail, bool)[:, None], np.asarray(in_batch, bool)[:, None]
    per = np.where(tail, _clipped(grads, c1), _clipped(grads, c2))
    return np.where(in_batch, per, 0.0).sum(axis=-2)


def labels(order, in_batch, rule, m=None, p_tail=None):
    """Tail labels (bool per slot) from the ranking ``order`` of the released noisy slot scores (slot indices, best
    first) under ``rule``: "slot_top_m" the top m slots of all N (m public; the slot model), "slot_top_p_batch" the
    top ⌊p·|batch|⌋ slots of all N (a data-dependent count), "batch_top_p" the top ⌊p·|batch|⌋ batch members
    (Algorithm 1 as printed, L199–L201)."""
    if rule not in RULES:
        raise ParameterError(f"rule={rule!r}: one of {RULES}")
    n_slots = len(order)
    tail = np.zeros(n_slots, bool)
    if rule == "slot_top_m":
        if m is None or not 0 <= m <= n_slots:
            raise ParameterError(f"rule 'slot_top_m' needs a public count 0 ≤ m ≤ N = {n_slots}, got m = {m!r}")
        tail[list(order[:m])] = True
        return tail
    count = int(np.floor(p_tail * int(np.sum(in_batch)) + 1e-9))
    if rule == "slot_top_p_batch":
        tail[list(order[:count])] = True
        return tail
    members = [j for j in order if in_batch[j]]  # "batch_top_p"
    tail[members[:count]] = True
    return tail


def brute_force_shift(grads, c1, c2, rule, m=None, p_tail=None):
    """max ‖s(D') − s(D)‖ of the clipped sum over EVERY ranking of the released noisy slot scores and every Poisson
    batch of the shared records, given the same released scores on both sides (the conditional sensitivity that
    reading C's Δ_gp is). ``grads``: (N, d) one row per slot, the LAST slot z's (empty in D), or (G, N, d) for G
    gradient sets (the maximum over all). Returns (shift, (ranking, batch of the shared records, set index))."""
    grads = np.asarray(grads, float)
    grads = grads[None] if grads.ndim == 2 else grads
    n = grads.shape[1]
    best, arg = -1.0, None
    for order in itertools.permutations(range(n)):
        for present in itertools.product((False, True), repeat=n - 1):
            without = np.array(present + (False,))
            with_z = np.array(present + (True,))
            s0 = clipped_sum(grads, without, labels(order, without, rule, m, p_tail), c1, c2)
            s1 = clipped_sum(grads, with_z, labels(order, with_z, rule, m, p_tail), c1, c2)
            shifts = np.linalg.norm(s1 - s0, axis=-1)
            i = int(np.argmax(shifts))
            if shifts[i] > best:
                best, arg = float(shifts[i]), (order, present, i)
    return best, arg


def adversarial_grads(c1, c2, n_slots, seed=0, draws=6):
    """Gradient sets for the brute force: every sign pattern of ±2c1·e₁ on the shared slots with z's gradient
    ±2c1·e₁ (the norms that the clip at c1 and at c2 treat differently), plus ``draws`` seeded random sets (3-D,
    norms log-uniform in [c2/3, 3c1])."""
    out = []
    for signs in itertools.product((1.0, -1.0), repeat=n_slots):
        g = np.zeros((n_slots, 3))
        g[:, 0] = 2 * c1 * np.array(signs)
        out.append(g)
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        g = rng.standard_normal((n_slots, 3))
        g *= (np.exp(rng.uniform(np.log(c2 / 3), np.log(3 * c1), n_slots)) / np.linalg.norm(g, axis=1))[:, None]
        out.append(g)
    return out


def worst_shift(c1, c2, rule, n_slots=4, m=None, p_tail=None, seed=0):
    """The largest brute-force shift over :func:`adversarial_grads` (every m in 0..N for "slot_top_m" when m is
    None)."""
    ms = range(n_slots + 1) if (rule == "slot_top_m" and m is None) else (m,)
    sets = np.stack(adversarial_grads(c1, c2, n_slots, seed))
    return max(brute_force_shift(sets, c1, c2, rule, mm, p_tail)[0] for mm in ms)


def score_shift(grads, k, seed=0):
    """Brute force of Δ_tr in the slot model: λ over all N slots with an orthonormal V (d × k, QR of a Gaussian
    matrix) and per-sample directions, with and without z (the last slot) in the batch, over every batch of the
    shared slots; returns the largest ℓ2 distance of the two score vectors and the number of coordinates that ever
    differ (1: z's slot only)."""
    grads = np.asarray(grads, float)
    n, d = grads.shape
    v, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, k)))
    norms = np.linalg.norm(grads, axis=1, keepdims=True)
    lam = np.sum((grads / np.where(norms > 0, norms, 1) @ v) ** 2, axis=1)
    worst, moved = 0.0, set()
    for present in itertools.product((False, True), repeat=n - 1):
        s0 = np.where(np.array(present + (False,)), lam, 0.0)
        s1 = np.where(np.array(present + (True,)), lam, 0.0)
        worst = max(worst, float(np.linalg.norm(s1 - s0)))
        moved |= set(np.flatnonzero(s1 != s0).tolist())
    return worst, sorted(moved)


@functools.lru_cache(maxsize=None)
def _brute_force_summary(c1, c2):
    return (worst_shift(c1, c2, "slot_top_m"), worst_shift(c1, c2, "batch_top_p", p_tail=0.5),
            worst_shift(c1, c2, "slot_top_p_batch", p_tail=0.5))


def _slot_sensitivity_property(statement, p):
    """Property (point-independent, computed once): on 4 slots (3 shared records and z), every ranking of the
    released scores, every batch and every public m, z moves the clipped sum by at most c1 and c1 is attained
    (c1 = 1, c2 = 0.1); Algorithm 1's batch ranking and a data-dependent count on slots reach 2c1 − c2 on the same
    enumeration (so the enumeration can see a violation)."""
    slot, batch, data_dep = _brute_force_summary(1.0, 0.1)
    if abs(slot - 1.0) > 1e-12:
        raise AssertionError(f"slot model: the worst shift is {slot:.12g}, not Δ_gp = c1 = 1")
    for name, got in (("batch_top_p", batch), ("slot_top_p_batch", data_dep)):
        if abs(got - 1.9) > 1e-12:
            raise AssertionError(f"{name}: the worst shift is {got:.12g}, not 2c1 − c2 = 1.9 (the brute force lost "
                                 "its power)")


# ---------------------------------------------------------------------------------------------------------------
# the catalogue entry


@self_checked
def reading_c_slot(q, steps, delta, sigma_dp, sigma_tr, delta_tr=1):
    """ε(δ) of T SLOT-DC steps (module docstring): T-fold Poisson-subsampled Gaussian at σ_eff = ((Δ_tr/σ_tr)² +
    (1/σ_dp)²)^{−1/2}, through base.sgm_rdp → base.rdp_to_dp — reading C's accounting (notes §3.4 (C) Step 3) with
    Δ_gp = c1, i.e. dc.readings.reading_epsilon("C", …, c1 = c2 = 1). Seed 004 Thm 5.1 (L174) made computable for
    the slot model."""
    return reading_epsilon("C", q, steps, delta, sigma_dp, 1, 1, sigma_tr=sigma_tr, delta_tr=delta_tr)


@self_checked
def reading_c_slot_pld(q, steps, delta, sigma_dp, sigma_tr, delta_tr=1):
    """:func:`reading_c_slot` by the exact PLD reference base.pld_sgm_epsilon (T ≤ 64, σ_eff ≥ 0.5, δ ≥ 1e-10)."""
    return reading_epsilon("C", q, steps, delta, sigma_dp, 1, 1, sigma_tr=sigma_tr, delta_tr=delta_tr, method="pld")


register(Statement(
    id="dc.reading_c_slot",
    source=Source(spec.SEED, "Thm 5.1", "reading (C) in the slot model (notes §3.4 (C)) — an algorithm VARIANT "
                  "(SLOT-DC), not Algorithm 1: noisy slot scores released, labels a function of them, Δ_gp = c1; "
                  "ONE subsampled Gaussian per step"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) of T-fold SGM(q, σ_eff), σ_eff = ((Δ_tr/σ_tr)² + 1/σ_dp²)^{−1/2} (slot model: scores of all N "
            "public slots released, labels a function of them, Δ_gp = c1)",
    params=(spec.P_Q_ACC, spec.P_STEPS_ACC, spec.P_DELTA_ACC, spec.P_SIGMA_DP_ACC, spec.P_SIGMA_TR_ACC,
            spec.P_DELTA_TR),
    reference=reading_c_slot,
    properties=(_slot_sensitivity_property,),
    variants={"pld": Variant(reading_c_slot_pld, "the exact PLD reference base.pld_sgm_epsilon at σ_eff (grid "
                             "0.125): only T ≤ 64, σ_eff ≥ 0.5, δ ≥ 1e-10 (its domains)")},
    witnesses=(WitnessUse("dc.joint_step", lambda p: {"q": p["q"], "sigma_tr": p["sigma_tr"], "sigma_dp": p["sigma_dp"],
                                                      "delta_tr": p.get("delta_tr", 1), "delta_gp": 1,
                                                      "steps": p["steps"]},
                          "the T-fold joint pair at Δ_gp = c1 (scores of z's slot and the gradient on one Poisson "
                          "batch; its loss is base.sgm's at σ_eff)"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"sigma_tr": -1},
    note="Holds for SLOT-DC (module docstring of reference/dc/slot_model.py), NOT for Algorithm 1 under add/remove: "
         "a public slot set [N] fixed before the data (a record's slot must not depend on the other records, e.g. "
         "not its index in D), scores of all N slots released (0 + noise for empty or "
         "unsampled slots), tail labels a function of the released score vector alone (top-m with m public, or a "
         "threshold), one noise vector N(0, σ_dp²c1²I) on the clipped sum, c2 ≤ c1. Given the released scores the "
         "labels agree on D and D ∪ {z}, so the sum moves by ≤ c1 (brute force over every ranking: property). "
         "Algorithm 1's top-⌊p·|batch|⌋ of batch members (and a count ⌊p·|batch|⌋ even on slots) moves it by "
         "2c1 − c2: that algorithm is dc.reading_c. Numbers (RDP, σ_tr = σ_dp = the recipe's σ): MNIST 14.13, "
         "CIFAR10 10.57, ImageNette 6.387 (notes §3.3's integer-order 14.17, 10.59, 6.39); the notes' PLD 12.452 at "
         "MNIST is this statement's (the notes' reading C; dc.reading_c at c1 = c2). Fast path: "
         "dpspec.fast.dc.accounting dc_epsilon('C', …, c1=1, c2=1). Relates: dc.reading_c, dc.def3_1 (one step), "
         "base.sgm_rdp, base.rdp_to_dp.",
))
