"""The black-box audit of DC-DPSGD as published (seed 004, arXiv 2405.17529v1; conformance/audit/dc_published.py;
notes dc-dpsgd.md §4.3, E6): one step of the authors' public code, run by `dpspec audit mechanism` on the pair
D = ten zero gradients, D' = D ∪ {(c1, 0)}, exceeds what the paper's own recipe claims for that step, and the sound
step (reading B) at the same σ stays below dpspec's certificate.

Numbers (ImageNette recipe: ε = 8, δ = 1e-4, q = 1000/9469, T = 473 → σ = 2.5403, notes §2 T5.1 table): the
paper's claim for one step on a given batch is ε_tr + ε_dp = 2 × 1.435 = 2.871 (RDP, one Gaussian step at σ); the
public code's step on this pair is a Gaussian shift of μ ≈ 7.78/σ = 3.06 (z is tail in ≈ 99 % of the draws), true
ε(1e-4) ≈ 15.4, and the audit (seed 0, 10⁴ + 6·10⁴ draws per dataset, confidence 0.95) certifies ε ≥ ≈ 5 — a
violation; the sound step is the Gaussian mechanism at σ, certified ε = 1.293 (PLD upper end; exact 1.2926), and
its audit's lower bound (≈ 1.0) stays below."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from dpspec.conformance.audit import dc_published as A
from dpspec.conformance.cli import app

SIZES = {"n_select": 10_000, "n_estimate": 60_000}


def _injected(R, B, D, k, gen, symmetric, theta_v):
    V = A._exp_projection(R, D, k, theta_v, 1.0, symmetric, gen)
    normal = lambda *shape: torch.randn(*shape, generator=gen, dtype=torch.float64)  # noqa: E731
    return V, normal(R, B), normal(R, D), normal(R, D)


@pytest.mark.parametrize("trace_noise", ["sigma", "sigma_over_B"])
def test_vectorised_published_step_is_helper_e_published_step(trace_noise):
    """Draw by draw on injected V, trace and gradient noise, the vectorised copy equals
    dpspec.fast.dc.published.published_step (random gradients of mixed norms, p = 0.3 → 2 tail rows of 7)."""
    from dpspec.fast.dc.published import published_step

    gen = torch.Generator().manual_seed(3)
    g = torch.randn(7, 3, generator=gen, dtype=torch.float64) * torch.tensor(
        [[0.1], [2.0], [0.3], [1.5], [0.05], [3.0], [0.7]], dtype=torch.float64)
    R = 6
    V, tr, zt, zb = _injected(R, 7, 3, 2, gen, False, 1.0)
    mine = A.published_draws(g, 0.7, 1.0, 0.1, 0.3, 2, R, trace_noise=trace_noise, V=V, trace_draw=tr,
                             grad_draw=(zt, zb))
    for r in range(R):
        ref = published_step(g, 0.7, 1.0, 0.1, 0.3, 2, None, trace_noise=trace_noise, score_param=None, V=V[r],
                             trace_draw=tr[r], grad_draw=(zt[r], zb[r]))
        assert torch.allclose(mine[r], ref.update, rtol=0, atol=1e-12)


def test_vectorised_sound_step_is_helper_e_sound_step():
    from dpspec.fast.dc.published import sound_step

    gen = torch.Generator().manual_seed(4)
    g = torch.randn(6, 3, generator=gen, dtype=torch.float64) * 1.5
    g[2] = 0.0  # a zero row: direction 0, score 0
    R = 5
    V, _, zt, _ = _injected(R, 6, 3, 2, gen, True, 2.0)
    mine = A.sound_draws(g, 0.9, 1.0, 0.2, 0.1, 2, R, tau=0.45, batch_size=4.5, V=V, grad_draw=zt)
    for r in range(R):
        ref = sound_step(g, 0.9, 1.0, 0.2, 0.1, 2, None, tau=0.45, batch_size=4.5, V=V[r], grad_draw=zt[r])
        assert torch.allclose(mine[r], ref.update, rtol=0, atol=1e-12)


def test_claims_follow_the_recipe_and_the_certificate():
    """The per-step claim is twice one Gaussian step's RDP ε at σ (ε_tr + ε_dp, both at σ: the recipe); the sound
    step's certificate is the Gaussian mechanism's ε at σ (reference base.gaussian_eps, exact) up to the PLD's
    certified width, and above it."""
    from dpspec.fast.accountant import sgm_epsilon
    from dpspec.reference.base.gaussian import gaussian_eps

    claim, delta = A.paper_step_claim()
    assert delta == A.SETTING.delta
    assert claim == pytest.approx(2 * float(sgm_epsilon(A.SETTING.sigma, 1.0, 1, delta)), rel=1e-12)
    exact = float(gaussian_eps(delta, A.SETTING.sigma))
    cert = A.sound_step_certified()
    assert exact <= cert <= exact * (1 + 1e-3)
    assert claim > cert  # RDP is looser than the exact profile: the claim is generous to the paper


def test_published_step_violates_its_claim_sound_step_does_not():
    """`dpspec audit mechanism` (CliRunner): the public code's step against the paper's per-step claim → exit 1,
    a violation with ε_LB > claim; the sound step against dpspec's certificate → exit 0 (seed 0, confidence 0.95)."""
    runner = CliRunner()
    claim = A.paper_step_claim()[0]
    bad = runner.invoke(app, A.cli_example(which="published", **SIZES) + ["--json"])
    assert bad.exit_code == 1, bad.output
    doc = json.loads(bad.output)
    assert doc["verdict"] == "violation" and doc["eps_lower_bound"] > claim, doc["reason"]
    assert doc["eps_lower_bound"] < 15.5  # never above the truth (Gaussian μ ≈ 3.06: ε(1e-4) ≈ 15.4)
    cert = A.sound_step_certified()
    ok = runner.invoke(app, A.cli_example(which="sound", **SIZES))
    assert ok.exit_code == 0 and ok.output.startswith("consistent"), ok.output
    print(f"\npublished step: {bad.output and doc['reason']}\nsound step: {ok.output.strip()} (certified {cert:.4f})")


def test_report_text():
    r = {"setting": "x", "sigma": 2.0, "q": 1.0, "delta": 1e-4, "confidence": 0.95, "n_estimate": 10,
         "published_lower_bound": 5.0, "paper_step_claim": 2.9, "paper_total_claim": 8,
         "published_verdict": "violation",
         "sound_lower_bound": 1.0, "sound_certified": 1.3, "sound_verdict": "consistent"}
    text = A.report(r)
    assert "ε ≥ 5.000" in text and "2.900" in text and "violation" in text and "consistent" in text


def test_batches_keep_the_sampling_law():
    """Random fixed-size batches from rows that are all zero except z: z is in a batch of 10 from 11 rows with
    probability 10/11 (10⁴ draws: within 5 standard errors)."""
    g = torch.tensor(A.pair(rows=10)[1], dtype=torch.float64)
    gen = torch.Generator().manual_seed(0)
    parts = A._batches(g, 10, 10_000, gen)
    assert sum(c for _, c in parts) == 10_000 and len(parts) == 2
    with_z = sum(c for b, c in parts if bool((b[:, 0] > 0).any()))
    p = 10 / 11
    assert abs(with_z / 10_000 - p) < 5 * math.sqrt(p * (1 - p) / 10_000)


def test_bad_dataset_is_refused():
    with pytest.raises(ValueError, match="per-sample gradient vectors"):
        A.published_release([1.0, 2.0], np.random.default_rng(0), 10)
    with pytest.raises(ValueError):
        A.published_draws([[1.0, 0.0]], 1.0, 0.1, 1.0, 0.1, 1, 2)  # c2 > c1


@pytest.mark.slow
def test_recipe_sigma_is_the_rdp_calibration():
    """σ = 2.5403 is the RDP calibration for ε/2 = 4 at ImageNette's (q, T, δ) (notes §2 T5.1 table; ~10 s)."""
    assert A.recipe_sigma_check() == pytest.approx(A.SETTING.eps_total / 2, abs=2e-3)


@pytest.mark.slow
def test_subsampled_step_violates_the_amplified_claim():
    """With the code's fixed-size batches (10 of 94 rows: q ≈ 0.106, ImageNette's rate) the recipe's amplified
    per-step claim is 0.50; one step of the public code certifies ε ≥ 5.79 (seed 0, 10⁵ + 2·10⁶ draws; here 10⁶:
    about 4 minutes on a loaded 2-core machine). The sound step: ε ≥ 0.136 against its certificate 0.174."""
    r = A.audit(batch=10, rows=94, n_select=100_000, n_estimate=1_000_000)
    print("\n" + A.report(r))
    assert r["published_verdict"] == "violation" and r["published_lower_bound"] > 3 * r["paper_step_claim"]
    assert r["sound_verdict"] == "consistent"
