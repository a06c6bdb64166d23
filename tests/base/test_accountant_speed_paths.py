"""The accountant's fast default paths (issue 14, "The accountant as users call it"): ``step()`` counting into the
last SGM record, the RDP method's integer-then-zoom order search, and the PLD composition's exact Chernoff window
and its ε read-out on the lattice part l >= -step. Each fast path is compared with the slow path it replaces (no
timings here: benchmarks/bench_default_path.py and bench_pld.py time them)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from dpspec.fast.accountant import GRID, OPACUS_ALPHAS, Accountant
from dpspec.fast.base import pld, pld_pairs
from dpspec.fast.conversion import bbg_objective, log_delta_objective, minimise_over_orders
from dpspec.reference.errors import DomainError


# ---------------------------------------------------------------------------------------------------------------
# step()

def _replayed(calls):
    acc = Accountant(method="rdp")
    for sigma, q in calls:
        acc.step(noise_multiplier=sigma, sample_rate=q)
    return acc


def test_step_counts_into_the_last_sgm_record_as_compose_does():
    calls = [(1.0, 0.01)] * 5 + [(1.1, 0.01)] * 3 + [(1.0, 0.01)] * 2 + [(1.0, 0.02)]
    acc = _replayed(calls)
    ref = Accountant(method="rdp")
    for sigma, q in calls:
        ref.sgm(q, sigma, 1)
    assert acc.records == ref.records == (("base.sgm_rdp", (0.01, 1.0), 5), ("base.sgm_rdp", (0.01, 1.1), 3),
                                          ("base.sgm_rdp", (0.01, 1.0), 2), ("base.sgm_rdp", (0.02, 1.0), 1))
    assert len(acc) == 11 and acc.history == [(1.0, 0.01, 5), (1.1, 0.01, 3), (1.0, 0.01, 2), (1.0, 0.02, 1)]


def test_step_merges_across_other_mechanisms_and_after_history_and_state_dict():
    acc = _replayed([(1.0, 0.01)] * 3)
    acc.laplace(2.0)
    acc.step(noise_multiplier=1.0, sample_rate=0.01)      # merges with the last SGM record, not the Laplace one
    assert acc.records == (("base.sgm_rdp", (0.01, 1.0), 4), ("base.laplace_rdp", (2.0,), 1))
    state = acc.state_dict()
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    back = Accountant(method="rdp")
    back.load_state_dict(state)                            # the counted steps were in the state dict
    back.step(noise_multiplier=1.0, sample_rate=0.01)
    assert back.records == acc.records and acc.records[0].count == 5
    acc.history = [(2.0, 0.5, 7)]                          # Opacus' get_noise_multiplier assigns history
    acc.step(noise_multiplier=2.0, sample_rate=0.5)
    assert acc.records == (("base.laplace_rdp", (2.0,), 1), ("base.sgm_rdp", (0.5, 2.0), 8))


def test_step_takes_other_number_types_like_compose():
    acc = Accountant(method="rdp")
    acc.step(noise_multiplier=1, sample_rate=np.float64(0.01))
    acc.step(noise_multiplier=torch.tensor(1.0, dtype=torch.float64), sample_rate=0.01)
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.records == (("base.sgm_rdp", (0.01, 1.0), 3),)


@pytest.mark.parametrize("sigma, q, name", [
    (math.nan, 0.01, "sigma"), (0.0, 0.01, "sigma"), (-1.0, 0.01, "sigma"), (math.inf, 0.01, "sigma"),
    (1.0, math.nan, "q"), (1.0, 0.0, "q"), (1.0, -0.0, "q"), (1.0, -0.1, "q"), (1.0, 1.5, "q"), (1.0, math.inf, "q"),
    ("1.0", 0.01, "sigma"), (1.0, None, "q")])
def test_step_refuses_each_bad_value_with_one_domain_error(sigma, q, name):
    for acc in (Accountant(method="rdp"), _replayed([(1.0, 0.01)])):  # fresh, and with a run to merge into
        before = acc.records
        with pytest.raises(DomainError) as info:
            acc.step(noise_multiplier=sigma, sample_rate=q)
        assert info.value.name == name and acc.records == before


# ---------------------------------------------------------------------------------------------------------------
# the RDP method's default order search

def _full_search(acc, objective, target):
    """The continuous search the default path replaces (GRID + golden section), over the same composed curve."""
    grid = torch.tensor(GRID, dtype=torch.float64)
    t = torch.tensor(target, dtype=torch.float64)
    value, alpha = minimise_over_orders(lambda a: objective(acc.rdp(a), a, t), (), grid, grid=grid)
    return float(value), float(alpha)


SCHEDULES = {
    "headline": lambda a: a.sgm(0.01, 1.0, 10_000),
    "10 sigma": lambda a: a.sgm(0.01, torch.linspace(0.8, 1.2, 10, dtype=torch.float64), 100),
    "small q": lambda a: a.sgm(0.001, 0.7, 3000),
    "mixed": lambda a: a.sgm(0.02, 1.1, 500).laplace(20.0, 4).gaussian(8.0, 3),
    "best order near 1": lambda a: a.gaussian(0.2, 10),            # a huge ε: the best order is 1.3 (fallback)
    "best order high": lambda a: a.sgm(0.01, 5.0, 1),              # a tiny ε: the best order is about 230
}


def _check_search(name, deltas, epsilons):
    acc = SCHEDULES[name](Accountant(method="rdp"))
    for delta in deltas:
        eps, alpha = acc.get_privacy_spent(delta=delta)
        full, _ = _full_search(acc, bbg_objective, delta)
        assert eps <= max(full, 0.0) * (1 + 1e-9) + 1e-12          # as tight as the search it replaces
        assert eps >= max(full, 0.0) * (1 - 1e-9) - 1e-12          # (below it only by rounding: the searches agree)
        assert eps <= acc.epsilon(delta, alphas=OPACUS_ALPHAS) + 1e-12
        # the reported ε is the conversion at the reported order (a valid bound at that order)
        order = torch.tensor([alpha], dtype=torch.float64)
        at = float(bbg_objective(acc.rdp(order), order, torch.tensor(delta, dtype=torch.float64))[0])
        assert abs(max(at, 0.0) - eps) <= 1e-12 * max(1.0, eps)
    for e in epsilons:
        full, _ = _full_search(acc, log_delta_objective, e)
        assert acc.delta(e) <= min(1.0, math.exp(full)) * (1 + 1e-8) + 1e-300
    return acc


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_default_search_matches_the_full_continuous_search_and_beats_opacus_orders(name):
    acc = _check_search(name, (1e-5,), (1.0,) if name in ("headline", "mixed") else ())
    if name == "best order near 1":   # the fallback ran: the best order lies below the integer ladder
        assert acc.get_privacy_spent(delta=1e-5)[1] < 2
    if name == "best order high":
        assert acc.get_privacy_spent(delta=1e-5)[1] > 64


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCHEDULES))
def test_default_search_matches_the_full_search_at_more_targets(name):
    _check_search(name, (1e-5, 1e-10, 1e-3), (0.5, 2.0))


def test_default_search_answer_is_recomputed_when_records_change():
    acc = Accountant(method="rdp").sgm(0.01, 1.0, 1000)
    first = acc.get_epsilon(1e-5)
    assert acc.get_epsilon(1e-5) == first                          # cached
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.get_epsilon(1e-5) > first                           # one more step: a new answer


# ---------------------------------------------------------------------------------------------------------------
# the PLD composition: exact Chernoff window, ε read on l >= -step

def _gaussian_parts(step):
    up, low = pld.discretise_both(pld_pairs.sgm_pair(1.0, 3.0, "remove"), step, tail=1e-40)
    return up, low


def test_window_holds_all_but_the_tail_of_the_exact_composition():
    step, count, tail = 0.02, 40, 1e-12
    up, _ = _gaussian_parts(step)
    lo, hi = pld._window([(up, count)], tail)
    full = up.masses.numpy()
    conv = np.array([1.0])
    for _ in range(count):
        conv = np.convolve(conv, full)
    losses = (count * up.offset + np.arange(conv.size)) * step
    assert conv[losses < lo].sum() <= tail and conv[losses > hi].sum() <= tail
    # and it is not the whole support: the mean 40/(2·9) ≈ 2.2, sd ≈ 2.1; a tail of 1e-12 is about 7 sd
    assert hi - lo < 0.5 * (losses[-1] - losses[0])


def test_matrix_mgf_is_an_upper_bound_within_its_margin():
    up, _ = _gaussian_parts(0.01)
    M, k0, counts, step = pld._aligned([(up, 1)])
    losses = (k0 + torch.arange(M.shape[1], dtype=torch.float64)) * step
    centre = (M[0] @ losses) / M[0].sum()
    for sign in (1.0, -1.0):
        lam = sign * torch.tensor(pld._LAMBDAS, dtype=torch.float64)
        got = pld._log_mgfs(M, losses, centre.reshape(1), lam)[0]
        keep = M[0] > 0
        exact = torch.logsumexp(torch.log(M[0][keep]).unsqueeze(0) + lam.unsqueeze(1) * (losses[keep] - centre), 1)
        assert bool((got >= exact).all()) and bool((got - exact <= 2 * pld.MGF_MARGIN + 1e-12).all())


@pytest.mark.parametrize("q, sigma, steps", [(0.01, 1.0, 300), (1.0, 2.0, 20), (0.2, 0.8, 5)])
def test_epsilon_read_on_the_upper_part_equals_the_log_space_read_out(q, sigma, steps):
    sandwich = pld.sgm_pld(q, sigma, steps, grid_step=2e-3)
    for side in (sandwich.upper, sandwich.lower):
        for c in side.values():
            sp, lsq = c._tails()
            l, d, _ = c._dots()
            assert c.offset < -1  # the part below -step exists and is left out
            for delta in (1e-1, 1e-3, 1e-6, 1e-10):
                target = delta - c.inf_mass + c.slack
                j = int(torch.nonzero(d <= target)[0])
                rest = float(sp[j]) - target
                want = math.log(rest) - float(lsq[j]) if rest > 0 else -math.inf
                want = min(want, float(l[j]))
                if j > 0:
                    want = max(want, float(l[j - 1]))
                want = max(want, 0.0)
                assert abs(c.epsilon(delta) - want) <= 1e-10 * max(1.0, want)


def test_spectrum_product_groups_equal_counts_and_equals_the_powers():
    gen = torch.Generator().manual_seed(0)
    F = torch.polar(torch.rand(6, 9, dtype=torch.float64, generator=gen),
                    6 * torch.rand(6, 9, dtype=torch.float64, generator=gen))
    F[2, 4] = 0  # a coefficient that is exactly 0 stays 0
    counts = [3, 1, 3, 100, 1, 3]
    want = torch.ones(9, dtype=torch.complex128)
    for row, c in zip(F, counts):
        want = want * row ** c
    got = pld._integer_powers_product(F, counts)
    assert torch.allclose(got, want, rtol=1e-12, atol=1e-300) and got[4] == 0


def test_epsilon_of_a_lattice_entirely_below_minus_step_is_zero():
    # a composed PMF whose every finite loss is negative (the part l >= -step is empty): ε = 0 for any δ > 0
    c = pld.Composed(0.01, -50, torch.full((10,), 0.05, dtype=torch.float64), 0.0, "upper")
    assert c.epsilon(1e-6) == 0.0 and c.epsilon(0.5) == 0.0
