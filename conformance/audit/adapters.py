"""One adapter per peer accountant. Each adapter imports its library lazily (dpspec never needs the peers), runs
the accountant on a :class:`~.settings.Setting` exactly as a user would, and returns a :class:`Claim`: the ε it
reports at the setting's δ (and at δ/10, for the monotonicity check), and, for RDP accountants, the RDP values it
computes at its orders. Every adapter records the library, its installed version and the semantics it assumes
(neighbouring relation, direction, sampling scheme, sensitivity convention, order grid or discretisation) — from
/work/shared/notes/peer-accountants.md §1.2, §2.1–2.4, re-read against the installed sources.

An adapter whose library is missing, or whose accountant raises, is reported by the caller as an ``error`` row
with the reason, never as a crash.

Your own accountant: ``get_adapter("mymodule:obj")`` (and ``dpspec audit accountant mymodule:obj``) loads ``obj``
from ``mymodule`` (the current directory searched first). ``obj`` is either an :class:`Adapter` (every field
below; ``conversion`` names the RDP→DP conversion when ``run`` reports RDP values, so that they are checked
against the exact RDP) or a callable ``obj(setting, deltas)`` returning a :class:`Claim`, a mapping
``{δ: ε}`` over ``deltas`` or a number (ε at ``setting.delta``); a callable may carry the attributes ``is_bound``
(default True), ``semantics`` (a dict), ``conversion`` and ``declared_error`` (a tight accountant's declared error,
``{"eps": ..., "delta_rel": ..., "what": ...}``, see :class:`Adapter`).
"""
from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from .settings import Setting

DENSE_ORDERS = tuple([1 + k / 100 for k in range(1, 901)] + list(range(11, 257)))  # grid-sensitivity re-run


@dataclass
class Claim:
    """What an accountant reports for one setting. ``epsilon`` is at ``setting.delta``; ``eps_at`` maps other δ
    values to ε; ``rdp`` maps orders to the accountant's *total* (T-step) RDP; ``extra`` holds anything else
    reported (PRV lower/estimate/upper, the dense-grid ε, ...)."""

    epsilon: float
    order: float | None = None
    rdp: dict[float, float] | None = None
    eps_at: dict[float, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Adapter:
    name: str  # e.g. "opacus.rdp"
    library: str  # the distribution name, for the version
    accountant: str  # the class or function audited
    is_bound: bool  # False for approximations (GDP by CLT)
    semantics: dict[str, Any]
    run: Callable[[Setting, list[float]], Claim]
    conversion: str | None = None  # the RDP→DP conversion an RDP accountant uses (reference.CONVERSIONS, or
    #                                 "bbghs_kl": dp-accounting's, accountants.own_epsilon)
    module: str | None = None  # the library's import name, imported before the (isolated) claim runs
    version_text: str | None = None  # the version when ``library`` is not an installed distribution (own code)
    # Tight accountants (PLD, PRV): the error they declare, {"eps": additive ε error, "delta_rel": the relative δ
    # error they evaluate at (ε reported for δ·(1 − delta_rel)), "what": in words}; the audit calls a claim loose
    # only beyond it above dpspec's certified upper ε. None: not a tight method (RDP, GDP).
    declared_error: dict[str, Any] | None = None

    def version(self) -> str:
        if self.version_text is not None:
            return self.version_text
        try:
            return importlib.metadata.version(self.library)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    def claim(self, setting: Setting, deltas: list[float]) -> Claim:
        """Run the accountant (warnings and prints are captured by the caller: accountants.run_claim)."""
        return self.run(setting, deltas)


def _sem(direction: str, grid: str, **more: Any) -> dict[str, Any]:
    return {"neighbouring": "add_remove", "direction": direction, "sampling": "poisson",
            "sensitivity": "σ relative to the ℓ2 clip norm C = sensitivity of add/remove", "grid": grid, **more}


# ---------------------------------------------------------------------------------------------------------
# Opacus 1.6.0 (notes §2.1)


def _opacus_rdp(s: Setting, deltas: list[float]) -> Claim:
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis import rdp as ordp

    def run(orders):
        rdp = ordp.compute_rdp(q=s.q, noise_multiplier=s.sigma, steps=s.steps, orders=list(orders))
        return rdp, [ordp.get_privacy_spent(orders=list(orders), rdp=rdp, delta=d) for d in deltas]

    orders = tuple(s.orders or RDPAccountant.DEFAULT_ALPHAS)
    rdp, spent = run(orders)
    _, dense = run(DENSE_ORDERS)
    return Claim(float(spent[0][0]), float(spent[0][1]), dict(zip(map(float, orders), map(float, rdp))),
                 {d: float(e) for d, (e, _) in zip(deltas, spent)}, {"eps_dense_grid": float(dense[0][0])})


OPACUS_PRV_EPS_ERROR = 0.01  # PRVAccountant.get_epsilon defaults (Opacus 1.6.0 accountants/prv.py): eps_error = 0.01,
OPACUS_PRV_DELTA_REL = 1e-3  # delta_error = δ/1000; it returns eps_upper = ε(δ − delta_error) + eps_error


def _opacus_prv(s: Setting, deltas: list[float]) -> Claim:
    from opacus.accountants import PRVAccountant

    acc = PRVAccountant()
    acc.history = [(s.sigma, s.q, s.steps)]
    eps = {d: float(acc.get_epsilon(d)) for d in deltas}  # as a user calls it: the defaults above
    return Claim(eps[deltas[0]], eps_at=eps)


def _opacus_gdp(s: Setting, deltas: list[float]) -> Claim:
    from opacus.accountants import GaussianAccountant

    acc = GaussianAccountant()
    acc.history = [(s.sigma, s.q, s.steps)]
    eps = {d: float(acc.get_epsilon(d, poisson=True)) for d in deltas}
    return Claim(eps[deltas[0]], eps_at=eps)


# ---------------------------------------------------------------------------------------------------------
# dp-accounting 0.6.0 (notes §2.2)


def _sgm_event(s: Setting):
    import dp_accounting as dpa

    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(s.q, dpa.GaussianDpEvent(s.sigma)), s.steps)


def _dpa_rdp(s: Setting, deltas: list[float]) -> Claim:
    import dp_accounting as dpa

    def run(orders):
        acc = dpa.rdp.RdpAccountant(list(orders) if orders else None)
        acc.compose(_sgm_event(s))
        return acc, [acc.get_epsilon_and_optimal_order(d) for d in deltas]

    acc, spent = run(s.orders)
    _, dense = run(DENSE_ORDERS)
    return Claim(float(spent[0][0]), float(spent[0][1]), dict(zip(map(float, acc.orders), map(float, acc.rdp))),
                 {d: float(e) for d, (e, _) in zip(deltas, spent)}, {"eps_dense_grid": float(dense[0][0])})


DPA_PLD_VDI = 1e-4  # PLDAccountant's default value_discretization_interval (dp-accounting 0.6.0)


def _dpa_pld(s: Setting, deltas: list[float]) -> Claim:
    import dp_accounting as dpa

    acc = dpa.pld.PLDAccountant(value_discretization_interval=DPA_PLD_VDI)
    acc.compose(_sgm_event(s))
    eps = {d: float(acc.get_epsilon(d)) for d in deltas}
    return Claim(eps[deltas[0]], eps_at=eps)


# ---------------------------------------------------------------------------------------------------------
# autodp 0.2.3.1 (notes §2.3): the RDP path only (its phi/AFA path is broken in the PyPI release, B11–B13)

AUTODP_ORDERS = (1.5, 2.0, 3.0, 4.0, 5.0, 8.0, 16.0, 32.0, 64.0)


def _autodp_noisysgd(s: Setting, deltas: list[float]) -> Claim:
    from autodp.mechanism_zoo import NoisySGD_Mechanism

    mech = NoisySGD_Mechanism(prob=s.q, sigma=s.sigma, niter=s.steps, name="audit")
    eps = {d: float(mech.get_approxDP(d)) for d in deltas}
    rdp = {a: float(mech.RenyiDP(a)) for a in AUTODP_ORDERS}
    return Claim(eps[deltas[0]], rdp=rdp, eps_at=eps)


def _autodp_general(s: Setting, deltas: list[float]) -> Claim:
    from autodp import rdp_acct, rdp_bank

    acc = rdp_acct.anaRDPacct()
    gaussian = lambda a: rdp_bank.RDP_gaussian({"sigma": s.sigma}, a)
    acc.compose_poisson_subsampled_mechanisms1(gaussian, s.q, coeff=s.steps)
    eps = {d: float(acc.get_eps(d)) for d in deltas}
    rdp = dict(zip(AUTODP_ORDERS, map(float, acc.get_rdp(list(AUTODP_ORDERS)))))
    return Claim(eps[deltas[0]], rdp=rdp, eps_at=eps)


# ---------------------------------------------------------------------------------------------------------
# prv_accountant 0.2.0 (notes §2.4)

PRV_EPS_ERROR = 0.1


def _prv_accountant(s: Setting, deltas: list[float]) -> Claim:
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    out, bounds = {}, {}
    for d in deltas:
        acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=s.sigma,
                                                                     sampling_probability=s.q)],
                            max_self_compositions=[s.steps], eps_error=PRV_EPS_ERROR, delta_error=d / 1000)
        lo, est, up = acc.compute_epsilon(delta=d, num_self_compositions=[s.steps])
        out[d], bounds[d] = float(up), (float(lo), float(est), float(up))
    return Claim(out[deltas[0]], eps_at=out, extra={"lower_estimate_upper": bounds[deltas[0]]})


def _prv_error(eps_error: float, delta_rel: float) -> dict[str, Any]:
    """A PRV accountant reports eps_upper = ε̂(δ − delta_error) + eps_error, where the estimate ε̂ is within
    eps_error of the truth (Gopi, Lee & Wutschitz 2021, Thm 5.5: its (lower, upper) are 2·eps_error apart): so its
    answer may exceed the true ε(δ·(1 − delta_rel)) by up to 2·eps_error within its own declaration (measured: the
    small-ε rows of Opacus' msr_values table exceed it by eps_error + 1e-5 … 4e-5)."""
    return {"eps": 2 * eps_error, "delta_rel": delta_rel,
            "what": f"PRV: ε̂(δ·(1 − {delta_rel:g})) + eps_error, ε̂ within eps_error = {eps_error:g} of the truth "
                    f"(Gopi, Lee & Wutschitz 2021), so up to 2·eps_error = {2 * eps_error:g} above it"}


PLD_ERROR = {"eps": DPA_PLD_VDI, "delta_rel": 0.0,
             "what": f"value_discretization_interval = {DPA_PLD_VDI:g} (pessimistic connect-the-dots PLD; taken as "
                     "its ε error: measured 3e-5 at the headline setting, notes §1.1 rows 6–7)"}


ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Adapter("opacus.rdp", "opacus", "opacus.accountants.RDPAccountant (analysis.rdp.compute_rdp)", True,
            _sem("both (MTZ19 remove direction, which dominates)", "DEFAULT_ALPHAS 1.1…10.9 step 0.1, 12…63",
                 conversion="Balle et al. 2020 Thm 21, no KL fallback, no clamp"), _opacus_rdp, "bbghs", "opacus"),
    Adapter("opacus.prv", "opacus", "opacus.accountants.PRVAccountant", True,
            _sem("remove only (PoissonSubsampledGaussianPRV)", "eps_error=0.01, delta_error=δ/1000",
                 reports="eps_upper"), _opacus_prv, module="opacus",
            declared_error=_prv_error(OPACUS_PRV_EPS_ERROR, OPACUS_PRV_DELTA_REL)),
    Adapter("opacus.gdp", "opacus", "opacus.accountants.GaussianAccountant (poisson=True)", False,
            _sem("n/a (CLT: μ = q√(T(e^{1/σ²}−1)))", "none", approximation="GDP central limit theorem, "
                 "Bu, Dong, Long & Su 2020; not a bound"), _opacus_gdp, module="opacus"),
    Adapter("dp_accounting.rdp", "dp-accounting", "dp_accounting.rdp.RdpAccountant", True,
            _sem("both (max)", "default orders 1.1…10.9, 11…63, 128, 256, 512, 1024",
                 conversion="CKS20 Prop. 12 + KL fallback, ε clamped ≥ 0"), _dpa_rdp, "bbghs_kl", "dp_accounting"),
    Adapter("dp_accounting.pld", "dp-accounting", "dp_accounting.pld.PLDAccountant", True,
            _sem("both (add and remove PMFs, max)", "value_discretization_interval=1e-4, pessimistic"),
            _dpa_pld, module="dp_accounting", declared_error=PLD_ERROR),
    Adapter("autodp.rdp", "autodp", "autodp.mechanism_zoo.NoisySGD_Mechanism", True,
            _sem("remove (Zhu–Wang 2019 tight Poisson bound)", "integer α exact, fractional by CGF interpolation; α optimised "
                 "internally (no order reported: the reference is the best of the orders 1.5…64 compared)",
                 conversion="BBGHS"), _autodp_noisysgd, "bbghs", "autodp"),
    Adapter("autodp.general_poisson", "autodp",
            "autodp.rdp_acct.anaRDPacct.compose_poisson_subsampled_mechanisms1", True,
            _sem("both (mechanism-agnostic Zhu–Wang 2019 general Poisson bound)", "α optimised continuously",
                 conversion="Mironov 2017 Prop. 3"), _autodp_general, "mironov", "autodp"),
    Adapter("prv_accountant", "prv-accountant", "prv_accountant.PRVAccountant", True,
            _sem("remove only (PoissonSubsampledGaussianMechanism)",
                 f"eps_error={PRV_EPS_ERROR}, delta_error=δ/1000", reports="eps_upper"), _prv_accountant,
            module="prv_accountant", declared_error=_prv_error(PRV_EPS_ERROR, 1e-3)),
)}


def get_adapter(name: str) -> Adapter:
    """A registered adapter by name, or your own as ``module:object`` (module docstring)."""
    if ":" in name:
        return load_adapter(name)
    try:
        return ADAPTERS[name]
    except KeyError:
        raise KeyError(f"unknown accountant {name!r}; known: {', '.join(ADAPTERS)}, or MODULE:OBJECT for your "
                       "own") from None


def _claim_of(spec: str, fn: Callable) -> Callable[[Setting, list[float]], Claim]:
    def run(setting: Setting, deltas: list[float]) -> Claim:
        out = fn(setting, deltas)
        if isinstance(out, Claim):
            return out
        if isinstance(out, Mapping):
            eps_at = {float(d): float(e) for d, e in out.items()}
            if float(deltas[0]) not in eps_at:
                raise TypeError(f"{spec} returned a mapping without δ = {deltas[0]:g} (the setting's δ)")
            return Claim(eps_at[float(deltas[0])], eps_at=eps_at)
        if not isinstance(out, bool) and hasattr(out, "__float__"):  # int, float, numpy/torch scalars, mpf
            eps = float(out)
            return Claim(eps, eps_at={deltas[0]: eps})
        raise TypeError(f"{spec} returned {type(out).__name__}; expected a Claim, a mapping {{δ: ε}} or a number")

    return run


def load_adapter(spec: str) -> Adapter:
    """Your own accountant from ``module:object`` (module docstring)."""
    from .loading import load_object

    obj = load_object(spec, "OBJECT")
    if isinstance(obj, Adapter):
        return obj
    if not callable(obj):
        raise TypeError(f"{spec} is neither an Adapter nor a callable (setting, deltas) -> Claim | {{δ: ε}} | ε")
    module = spec.partition(":")[0].strip()
    version = getattr(sys.modules.get(module), "__version__", None)
    semantics = getattr(obj, "semantics", None)
    is_bound = getattr(obj, "is_bound", True)
    declared = getattr(obj, "declared_error", None)
    return Adapter(spec, module.split(".")[0], spec, bool(is_bound),
                   dict(semantics) if isinstance(semantics, Mapping) else {"declared": "by the caller's own code"},
                   _claim_of(spec, obj), getattr(obj, "conversion", None),
                   version_text=str(version) if version is not None else "own code",
                   declared_error=dict(declared) if isinstance(declared, Mapping) else None)

