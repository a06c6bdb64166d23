"""The mechanisms the fast path can account: ONE table, read by ``fast.Accountant`` and ``fast.conversion.rdp_curve``.

A mechanism is named by the catalogue id of the RDP statement that accounts it (as dp-accounting names a DpEvent by
its type). Its entry gives the record parameters (catalogue names and domains, in the catalogue's order, the order
α left out), the per-order RDP function of the fast path as a lazy "module:function" path (importing this table
imports no bound), the keyword options the accountant forwards (e.g. the SGM ``direction``), and the citation.

The function is called as ``fn(alpha=α, **params, **options)`` with tensors that broadcast (the accountant passes
a column of distinct parameter tuples against a row of orders) and returns one step's ε(α). Adding a mechanism is one
entry below (see DEVELOPERS.md, "Adding a mechanism to the accountant"); every consumer of the table (the
accountant's ``compose`` and ``supports``, ``rdp_curve``, and the tight method through ``pld``) picks it up.

This module imports neither torch bounds nor mpmath at import time (the domains come from the
dependency-free reference/domains.py and reference/ptr/spec.py).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from dpspec.reference.domains import NOISE, SAMPLING_RATE, Real
from dpspec.reference.base.spec import WOR_BATCH as _WOR_BATCH, WOR_DATASET as _WOR_DATASET  # dependency-free
from dpspec.reference.errors import ParameterError
from dpspec.reference.objpert import spec as _objpert  # dependency-free module
from dpspec.reference.ptr.spec import DELTA0, Q_RATE  # δ0 ∈ (0, 1/2], q ∈ (0, 1) (dependency-free module)


@dataclass(frozen=True)
class Mechanism:
    """One accountable mechanism (sensitivity 1, add/remove neighbours)."""

    id: str  # catalogue id of the RDP statement that accounts it
    params: tuple[tuple[str, Real], ...]  # record parameters (name, domain), in the catalogue's order, α left out
    rdp: str  # "module:function": fn(alpha=α, **params, **options) -> ε(α), broadcasting
    options: tuple[str, ...] = ()  # keyword options the accountant forwards (e.g. "direction")
    doc: str = ""  # what is accounted, and the citation
    pld: str = ""  # "module:function": fn(**params) -> {direction: LossPair} (tight accounting); "" = none

    @property
    def pairs(self) -> Callable[..., Any] | None:
        """The dominating pairs' factory for the PLD accountant (imported on first use), or None."""
        if not self.pld:
            return None
        fn = _LOADED.get(self.pld)
        if fn is None:
            module, _, name = self.pld.partition(":")
            fn = _LOADED[self.pld] = getattr(importlib.import_module(module), name)
        return fn

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.params)

    def check_names(self, given, options: bool = False) -> None:
        """ParameterError unless ``given`` names every record parameter and nothing else (nor, with ``options``,
        anything but an option)."""
        allowed = self.names + (self.options if options else ())
        missing = [n for n in self.names if n not in given]
        unknown = [n for n in given if n not in allowed]
        if missing or unknown:
            raise ParameterError(f"{self.id}: " + "; ".join(
                ([f"missing parameter(s) {', '.join(missing)}"] if missing else [])
                + ([f"unknown parameter(s) {', '.join(unknown)}"] if unknown else []))
                + f" (parameters: {', '.join(allowed)})")

    @property
    def curve(self) -> Callable[..., Any]:
        """The per-order RDP function (imported on first use)."""
        fn = _LOADED.get(self.rdp)
        if fn is None:
            module, _, name = self.rdp.partition(":")
            fn = _LOADED[self.rdp] = getattr(importlib.import_module(module), name)
        return fn


_LOADED: dict[str, Callable[..., Any]] = {}


def _entries(*mechanisms: Mechanism) -> dict[str, Mechanism]:
    return {m.id: m for m in mechanisms}


MECHANISMS: dict[str, Mechanism] = _entries(
    Mechanism(
        "base.sgm_rdp", (("q", SAMPLING_RATE), ("sigma", NOISE)), "dpspec.fast.base.sgm:sgm_rdp", ("direction",),
        "Poisson-subsampled Gaussian (a DP-SGD step), Mironov, Talwar & Zhang 2019 (arXiv 1908.10530); q = 1 is "
        "the Gaussian mechanism. Opacus' history (σ, q, steps) is a view of these records.",
        pld="dpspec.fast.mechanisms:sgm_pairs"),
    Mechanism(
        "base.gaussian_rdp", (("sigma", NOISE),), "dpspec.fast.base.gaussian:gaussian_rdp", (),
        "Gaussian mechanism α/(2σ²), Mironov 2017 Prop. 7 (shown in Opacus' history as (σ, 1.0, steps)).",
        pld="dpspec.fast.mechanisms:gaussian_pairs"),
    Mechanism(
        "base.laplace_rdp", (("b", NOISE),), "dpspec.fast.base.laplace:laplace_rdp", (),
        "Laplace mechanism with scale b, Mironov 2017 Prop. 6.",
        pld="dpspec.fast.mechanisms:laplace_pairs"),
    Mechanism(
        "ptr.thm4_3", (("sigma1", NOISE), ("sigma2", NOISE), ("b", NOISE), ("delta0", DELTA0)),
        "dpspec.fast.ptr.bounds:ptr_rdp", (),
        "Generalised PTR (seed 001 Algorithm 1, Theorem 4.3; σ2 = τσ1, Δ̂ released)."),
    Mechanism(
        "ptr.thm4_4", (("q", Q_RATE), ("sigma1", NOISE), ("sigma2", NOISE), ("b", NOISE), ("delta0", DELTA0)),
        "dpspec.fast.mechanisms:ptr_subsampled_tightest", (),
        "Poisson-subsampled PTR (seed 001 Algorithm 2). Named by Theorem 4.4, the theorem about this mechanism; "
        "accounted per order by the tightest VALID bound: min(Theorem 4.4 where (C1)–(C4) hold, the [ZW19] Thm 6 "
        "black-box bound fed with Theorem 4.3 = catalogue ptr.zw19_upper, valid everywhere). So this curve is "
        "ptr.zw19_upper outside (C1)–(C4), where the catalogue's ptr.thm4_4 itself raises ConditionError."),
    Mechanism(
        "objpert.thm4_3_2", (("sigma", _objpert.P_SIGMA.domain), ("lam", _objpert.P_LAM.domain),
                             ("beta", _objpert.P_BETA.domain), ("L", _objpert.P_L.domain)),
        "dpspec.fast.objpert.glm_bounds:thm4_3_2", (),
        "Objective perturbation of a GLM (seed 003 Thm 4.3.2; needs λ > β); tight: the dominating pair of Lemma "
        "C.4.6 (corrected, erratum objpert.E4_3), the same pair for add and remove.",
        pld="dpspec.fast.objpert.pairs:objpert_pair"),
    Mechanism(
        "objpert.thm4_4_1", (("sigma", _objpert.P_SIGMA.domain), ("sigma_out", _objpert.P_SIGMA_OUT.domain),
                             ("lam", _objpert.P_LAM.domain), ("beta", _objpert.P_BETA.domain),
                             ("C", _objpert.P_CLIP.domain), ("tau", _objpert.P_TAU.domain)),
        "dpspec.fast.objpert.amp:amp_rdp", (),
        "Algorithm 7 (approximate minima perturbation with gradient clipping, seed 003 Thm 4.4.1; needs λ > β); "
        "tight: the Lemma C.4.6 pair × N(2τ/λ, σ_out²) (Thm C.4.1).",
        pld="dpspec.fast.objpert.pairs:amp_pair"),
)


# Sampling without replacement and the replace-one relation (reference/base/subsampling_wor.py, issue 14): the
# record's mechanism is the RDP statement; the tight method composes ONE symmetric pair per step (the order of a
# replace-one pair may change from step to step; fast/base/pld_pairs_wor.py).
# Every other mechanism of the table is add/remove; an Accountant composes one relation (a mix has no single
# guarantee: fast/accountant.py refuses it).
REPLACE_ONE = frozenset({"base.sgm_wor_rdp", "base.sgm_replace_one_rdp"})
MECHANISMS.update(_entries(
    Mechanism(
        "base.sgm_wor_rdp", (("m", _WOR_BATCH), ("n", _WOR_DATASET), ("sigma", NOISE)),
        "dpspec.fast.base.subsampling_wor:sgm_wor_rdp_curve", (),
        "Gaussian step on a batch of m of n records drawn without replacement, replace-one neighbours (per-record "
        "clipping norm 1, so a replacement moves the sum by <= 2). RDP: Wang, Balle & Kasiviswanathan 2019 (arXiv "
        "1808.00087) Thm 9 (+inf above alpha = 1e4); tight: the symmetric pair C_gamma(f) of Dong, Roth & Su 2022 "
        "Thm 4.2, gamma = m/n.",
        pld="dpspec.fast.base.pld_pairs_wor:wor_pairs"),
    Mechanism(
        "base.sgm_replace_one_rdp", (("q", SAMPLING_RATE), ("sigma", NOISE)),
        "dpspec.fast.base.subsampling_wor:sgm_replace_one_rdp", (),
        "Poisson-subsampled Gaussian step under replace-one neighbours (per-record clipping norm 1). RDP: the weak "
        "triangle inequality through N(0, sigma^2) (Mironov 2017 Prop. 11) with MTZ19's curve, an upper bound; "
        "tight: the symmetric pair ((1-q)N(0)+qN(1), (1-q)N(0)+qN(-1)) (Zhu, Dong & Wang 2022; dp-accounting's "
        "REPLACE pair).",
        pld="dpspec.fast.base.pld_pairs_wor:replace_one_pairs"),
))


def ptr_subsampled_tightest(alpha, q, sigma1, sigma2, b, delta0):
    """min(Theorem 4.4 where (C1)–(C4) hold, the [ZW19] black-box bound): the tightest valid bound per order."""
    import torch

    from .ptr.bounds import ptr_subsampled_rdp, ptr_zw19_upper

    value, valid = ptr_subsampled_rdp(alpha, q, sigma1, sigma2, b, delta0)
    upper = ptr_zw19_upper(alpha, q, sigma1, sigma2, b, delta0)
    return torch.where(valid, torch.minimum(value, upper), upper)


def sgm_pairs(q, sigma):
    """Both directions' dominating pairs of a Poisson-subsampled Gaussian step (fast/base/pld_pairs.py)."""
    from .base.pld_pairs import sgm_pair

    if q == 1:
        return {"remove": sgm_pair(1.0, sigma, "remove")}  # the Gaussian: both directions coincide
    return {"remove": sgm_pair(q, sigma, "remove"), "add": sgm_pair(q, sigma, "add")}


def gaussian_pairs(sigma):
    """The Gaussian mechanism's dominating pair (both directions coincide)."""
    return sgm_pairs(1.0, sigma)


def laplace_pairs(b):
    """The Laplace mechanism's dominating pair (both directions coincide)."""
    from .base.pld_pairs import laplace_pair

    return {"remove": laplace_pair(1.0, b, "remove")}


def supports(mechanism_id: str) -> bool:
    """Whether the fast path can account ``mechanism_id`` (a catalogue id)."""
    return mechanism_id in MECHANISMS


def get(mechanism_id: str) -> Mechanism:
    """The table entry of ``mechanism_id``; ParameterError naming it and the supported ids when absent."""
    try:
        return MECHANISMS[mechanism_id]
    except (KeyError, TypeError):
        raise ParameterError(
            f"{mechanism_id!r} cannot be accounted by the fast path: no entry in dpspec.fast.mechanisms.MECHANISMS "
            f"(supported: {', '.join(sorted(MECHANISMS))})") from None
