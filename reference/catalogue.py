"""The statement catalogue: one entry per checkable statement of the seeds and per outside result they use.

The catalogue is data. An entry (:class:`Statement`) names its source, what it bounds (``kind``), whether it
is an upper bound, exact, or a lower bound (``claim``), its parameters with their domains, the theorem's own
conditions, the mpmath reference evaluator, the dotted path of the torch evaluator (if any), the witness
pairs that let the conformance harness sample the privacy loss, and the variants (printed vs corrected forms
of errata). The command line, the conformance harness, the docs table and the tests all walk it.

Adding a statement = calling :func:`register` once, in the module that holds its evaluator; modules of
``dpspec.reference`` (sub-packages included) are discovered by :func:`load_all` (the registry mechanism of
:mod:`.registry`, shared with the errata and proof checks), so nothing else changes.

Witness pairs (:class:`Witness`) are registered the same way with :func:`register_witness`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from mpmath import mp

from .domains import Choice, ConditionSpec, Curve, Param, Points
from .errors import ConditionError, ParameterError
from .precision import DEFAULT_DPS, jsonable, to_mpf
from .registry import Registry

KINDS = {
    "rdp": "RDP curve ε(α)",
    "profile": "privacy profile δ(ε)",
    "eps_delta": "an (ε, δ) guarantee (ε for a given δ, or δ for a given ε)",
    "tradeoff": "trade-off function f(α) (f-DP)",
    "gdp": "a Gaussian-DP parameter μ",
    "pdp": "per-instance / data-dependent privacy loss",
    "sensitivity": "a sensitivity or combinatorial fact",
    "utility": "a utility or convergence bound",
    "calibration": "a noise calibration (the noise needed for a target guarantee)",
    "identity": "an exact identity between two quantities (checked, not a bound)",
}
CLAIMS = ("upper", "exact", "lower")
# What a statement's value is (``Value.returns``), and which returns each kind admits. The conformance harness reads
# this declaration; it never guesses from parameter names.
RETURNS = {
    "rdp_eps": "ε(α) of an RDP curve, at the order named by the axis parameter",
    "delta": "δ at the ε named by the axis parameter (a privacy profile δ(ε))",
    "eps": "ε of an (ε, δ) guarantee, at the δ named by the axis parameter",
    "eps_delta": "an (ε, δ) pair (a tuple of two numbers)",
    "pure_eps": "ε of an (ε, 0) guarantee",
    "beta": "the type-II error β = f(α) of a trade-off function, at the type-I error named by the axis parameter",
    "mu": "a Gaussian-DP parameter μ",
    "noise": "a noise scale calibrated for a target guarantee",
    "loss": "a per-instance (ex-post) privacy loss",
    "number": "a number without a privacy meaning of its own (sensitivity, utility, identity)",
}
KIND_RETURNS = {
    "rdp": ("rdp_eps",),
    "profile": ("delta",),
    "eps_delta": ("eps", "delta", "eps_delta", "pure_eps"),
    "tradeoff": ("beta",),
    "gdp": ("mu",),
    "pdp": ("loss",),
    "sensitivity": ("number",),
    "utility": ("number",),
    "calibration": ("noise",),
    "identity": ("number",),
}
AXIS_RETURNS = ("rdp_eps", "delta", "eps", "beta")  # values claimed at a point named by a parameter
NEIGHBOURING = ("add_remove", "replace_one", "any", "n/a")
DIRECTIONS = ("both", "P||Q", "Q||P", "n/a")


@dataclass(frozen=True)
class Source:
    """Where a statement comes from: a seed file and its printed number, or an outside paper."""

    seed: str  # seed file name (e.g. "001_c3b5d7d7fc0e2c16.txt") or "outside"
    number: str  # as printed, e.g. "Theorem 4.3", "Prop. 3 (Mironov 2017)"
    purpose: str  # one line
    citation: str = ""  # the paper, for outside results

    def short(self) -> str:
        where = self.citation if self.seed == "outside" else self.seed
        return f"{where}, {self.number}"


@dataclass(frozen=True)
class Condition(ConditionSpec):
    """One of a theorem's own conditions, as a predicate on the (validated, mpf) parameters. Name and text come
    from the text's dependency-free ``spec.py`` (a :class:`ConditionSpec`), so the fast path raises the same words."""

    holds: Callable[[Mapping[str, Any]], bool]

    @classmethod
    def of(cls, spec: ConditionSpec, holds: Callable[[Mapping[str, Any]], bool]) -> "Condition":
        return cls(spec.name, spec.text, holds)


@dataclass(frozen=True)
class Variant:
    """An alternative form of a statement, e.g. the ``printed`` form of an erratum."""

    reference: Callable[..., Any]
    note: str
    is_bound: bool = True  # False for printed forms that are known not to be bounds
    conditions: tuple["Condition", ...] | None = None  # None: the statement's own conditions apply


@dataclass(frozen=True)
class Value:
    """What a statement's value means: ``returns`` (a key of :data:`RETURNS`) and, for values claimed at a point,
    the ``axis`` parameter that names the point (the order α of an RDP curve, the ε of a profile, the δ at which an
    ε is claimed, the type-I error of a trade-off function)."""

    returns: str
    axis: str | None = None

    def __post_init__(self):
        if self.returns not in RETURNS:
            raise ValueError(f"returns={self.returns!r} not in {sorted(RETURNS)}")
        if (self.returns in AXIS_RETURNS) != (self.axis is not None):
            raise ValueError(f"returns={self.returns!r} " + ("needs an axis parameter" if self.axis is None
                                                              else f"takes no axis (got {self.axis!r})"))

    def describe(self) -> str:
        return RETURNS[self.returns] + (f" (axis: {self.axis})" if self.axis else "")


@dataclass(frozen=True)
class Privacy:
    """The setting a privacy statement speaks about."""

    neighbouring: str = "add_remove"  # one of NEIGHBOURING
    direction: str = "both"  # which divergence(s) are bounded: D(P‖Q), D(Q‖P) or both
    sampling: str = "none"  # "none", "poisson", "shuffle", "without_replacement", ...

    def __post_init__(self):
        if self.neighbouring not in NEIGHBOURING:
            raise ValueError(f"neighbouring={self.neighbouring!r} not in {NEIGHBOURING}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction={self.direction!r} not in {DIRECTIONS}")


@dataclass(frozen=True)
class WitnessUse:
    """A statement's use of a witness pair: the witness id and how the statement's parameters map to the
    witness's (``{"sigma": "sigma"}`` or a callable from the statement's parameters to the witness's)."""

    witness: str
    params: Mapping[str, str] | Callable[[Mapping[str, Any]], Mapping[str, Any]] = field(default_factory=dict)
    note: str = ""

    def witness_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        if callable(self.params):
            return dict(self.params(params))
        return {w: params[s] for s, w in self.params.items()}


@dataclass(frozen=True)
class Evaluation:
    """The result of evaluating a statement."""

    statement_id: str
    value: Any  # mpf (or a tuple of mpf for statements that return several numbers)
    variant: str
    dps: int
    is_bound: bool = True
    outside: tuple[str, ...] = ()  # names of failed conditions when evaluated with allow_outside=True


@dataclass(frozen=True)
class Statement:
    id: str
    source: Source
    kind: str
    claim: str
    params: tuple[Param, ...]
    reference: Callable[..., Any]
    value: Value | None = None  # required: what the value means (None only to keep keyword order; checked below)
    summary: str = ""  # the statement in one line of clean math
    conditions: tuple[Condition, ...] = ()
    fast: str | None = None  # "module:function" of the torch evaluator (resolved lazily)
    witnesses: tuple[WitnessUse, ...] = ()
    variants: Mapping[str, Variant] = field(default_factory=dict)
    default_variant: str = "default"
    privacy: Privacy | None = None
    monotone: Mapping[str, int] = field(default_factory=dict)  # +1 non-decreasing, -1 non-increasing in a param
    properties: tuple[Callable[..., Any], ...] = ()  # extra checks: f(statement, params) -> None or raise
    tolerance: float = 1e-10  # relative tolerance of the fast path against the reference
    abs_tolerance: float = 0.0  # plus this absolute tolerance (fast paths with an absolute error floor, e.g. FFTs)
    extension: bool = False  # a dpspec extension beyond the texts (with its own derivation note)
    note: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind={self.kind!r} not in {sorted(KINDS)}")
        if self.claim not in CLAIMS:
            raise ValueError(f"{self.id}: claim={self.claim!r} not in {CLAIMS}")
        if self.value is None:
            raise ValueError(f"{self.id}: declare what the value is (value=Value(returns, axis))")
        if self.value.returns not in KIND_RETURNS[self.kind]:
            raise ValueError(f"{self.id}: a '{self.kind}' statement returns one of {KIND_RETURNS[self.kind]}, "
                             f"not {self.value.returns!r}")
        if self.value.axis is not None and self.value.axis not in self.param_names:
            raise ValueError(f"{self.id}: axis {self.value.axis!r} is not a parameter ({', '.join(self.param_names)})")
        if self.default_variant in self.variants:
            raise ValueError(f"{self.id}: the default variant is `reference`, not an entry of `variants`")

    # -- parameters -----------------------------------------------------------------------------------
    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def variant_names(self) -> tuple[str, ...]:
        return (self.default_variant, *self.variants)

    def bind(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Check names and domains; numbers become mpf at the current precision (strings parsed as decimals)."""
        unknown = sorted(set(params) - set(self.param_names))
        if unknown:
            raise ParameterError(
                f"{self.id}: unknown parameter(s) {', '.join(unknown)}; expected {', '.join(self.param_names)}"
            )
        bound: dict[str, Any] = {}
        for p in self.params:
            if p.name in params:
                raw = params[p.name]
            elif p.required:
                raise ParameterError(f"{self.id}: missing parameter {p.name} ({p.describe()})")
            else:
                raw = p.default
            if isinstance(p.domain, (Curve, Choice, Points)):
                value = raw
            else:
                try:
                    value = to_mpf(raw) if not isinstance(raw, bool) else raw
                except (TypeError, ValueError):
                    raise ParameterError(f"{self.id}: {p.name}={raw!r} is not a number") from None
            bound[p.name] = p.domain.check(p.name, value)
        return bound

    def failed_conditions(self, bound: Mapping[str, Any]) -> list[str]:
        return [f"{c.name}: {c.text}" for c in self.conditions if not c.holds(bound)]

    # -- evaluation -----------------------------------------------------------------------------------
    def evaluate(self, *, dps: int = DEFAULT_DPS, variant: str | None = None, allow_outside: bool = False,
                 **params: Any) -> Evaluation:
        """Evaluate the reference at ``dps`` digits (self-checked at two precisions)."""
        variant = variant or self.default_variant
        conditions = self.conditions
        if variant == self.default_variant:
            fn, is_bound = self.reference, True
        elif variant in self.variants:
            v = self.variants[variant]
            fn, is_bound = v.reference, v.is_bound
            conditions = self.conditions if v.conditions is None else v.conditions
        else:
            raise ParameterError(f"{self.id}: unknown variant {variant!r}; known: {', '.join(self.variant_names)}")
        with mp.workdps(dps):
            bound = self.bind(params)
            failed = [f"{c.name}: {c.text}" for c in conditions if not c.holds(bound)]
            if failed and not allow_outside:
                raise ConditionError(self.id, failed)
            value = fn(**bound)
        return Evaluation(self.id, value, variant, dps, is_bound=is_bound and not failed, outside=tuple(failed))

    def __call__(self, **params: Any):
        """The default variant's value (mpf) at the current mp precision, conditions enforced."""
        return self.evaluate(dps=mp.dps, **params).value

    def fast_function(self) -> Callable[..., Any] | None:
        """The torch evaluator, imported on demand (the reference never imports torch itself)."""
        if self.fast is None:
            return None
        module, _, name = self.fast.partition(":")
        return getattr(importlib.import_module(module), name)

    def example_params(self) -> dict[str, Any]:
        return {p.name: p.example for p in self.params if p.example is not None}

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": {"seed": self.source.seed, "number": self.source.number, "purpose": self.source.purpose,
                       "citation": self.source.citation},
            "kind": self.kind,
            "claim": self.claim,
            "value": {"returns": self.value.returns, "axis": self.value.axis, "meaning": self.value.describe()},
            "summary": self.summary,
            "params": [{"name": p.name, "domain": p.domain.describe(), "doc": p.doc,
                        "default": None if p.required else jsonable(p.default),
                        "example": jsonable(p.example)} for p in self.params],
            "conditions": [{"name": c.name, "text": c.text} for c in self.conditions],
            "has_fast": self.fast is not None,
            "fast": self.fast,
            "witnesses": [w.witness for w in self.witnesses],
            "variants": list(self.variant_names),
            "default_variant": self.default_variant,
            "privacy": None if self.privacy is None else {
                "neighbouring": self.privacy.neighbouring, "direction": self.privacy.direction,
                "sampling": self.privacy.sampling},
            "extension": self.extension,
        }


@dataclass(frozen=True)
class Witness:
    """A neighbouring pair (P, Q) of output distributions, so the privacy loss L = log p(o) − log q(o),
    o ~ P, can be sampled. ``sample``, ``log_p`` and ``log_q`` are numpy-vectorised; outputs are arrays of
    shape (n,) or (n, k). ``dominating`` says whether the pair is a worst case for the statements that use
    it (then Monte Carlo estimates the exact quantity, otherwise a lower bound on it).
    ``log_moment(alpha, **params)``, when given, is the exact log E_Q[(p/q)^α] in mpmath, computed from the pair
    itself (quadrature of its densities or a closed form derived from them), never through a statement's reference
    evaluator, so that the exact conformance check compares two independent routes (issue 12).
    ``strata``, when given, returns [(probability, sampler)] for stratified sampling of rare branches.
    ``tilt_family(**params)``, when given, returns the pair's importance-sampling family for conformance/tilting.py
    as a plain dict (``{"family": "gaussian_mixture", ...}`` or ``{"family": "bounded_loss", ...}``), or None at
    parameters where no family describes the pair exactly."""

    id: str
    description: str
    params: tuple[Param, ...]
    sample: Callable[..., Any]  # sample(rng: numpy.random.Generator, n: int, **params) -> array
    log_p: Callable[..., Any]
    log_q: Callable[..., Any]
    source: str = ""
    dominating: bool = True
    log_moment: Callable[..., Any] | None = None
    strata: Callable[..., Any] | None = None
    note: str = ""
    tilt_family: Callable[..., dict | None] | None = None

    def privacy_loss(self, o, **params):
        return self.log_p(o, **params) - self.log_q(o, **params)


# The two registries of the catalogue (dpspec.reference.registry); entries register from dpspec.reference modules.
STATEMENTS: Registry[Statement] = Registry("statement", ("dpspec.reference",), "`dpspec list` shows the catalogue")
WITNESSES: Registry[Witness] = Registry("witness", ("dpspec.reference",),
                                        "`dpspec list` names each statement's witness pairs")


def register(statement: Statement) -> Statement:
    return STATEMENTS.register(statement)


def register_witness(witness: Witness) -> Witness:
    return WITNESSES.register(witness)


def load_all() -> None:
    """Import every module of dpspec.reference (sub-packages included) so that all entries register."""
    STATEMENTS.load()


def get(statement_id: str) -> Statement:
    return STATEMENTS.get(statement_id)


def get_witness(witness_id: str) -> Witness:
    return WITNESSES.get(witness_id)


def statements() -> list[Statement]:
    return STATEMENTS.items()


def witnesses() -> list[Witness]:
    return WITNESSES.items()


def curve(statement_id: str, **params: Any) -> Callable[[Any], Any]:
    """Bind the parameters of an RDP curve or a trade-off function other than its axis (the order α, or the
    type-I error α): returns α ↦ value (mpf, at the current precision, conditions enforced). Used for
    ``base.rdp_to_dp curve=base.sgm_rdp q=... sigma=...``."""
    st = get(statement_id)
    if st.value.returns not in ("rdp_eps", "beta"):
        raise ParameterError(f"{statement_id} is not a curve (an RDP curve or a trade-off function); its value is "
                             f"{st.value.describe()}")
    axis = st.value.axis
    if axis in params:
        raise ParameterError(f"{axis} must not be given when a statement is used as a curve")
    axis_param = next(p for p in st.params if p.name == axis)
    probe = axis_param.example if axis_param.example is not None else 2
    st.bind({**params, axis: probe})  # validate the bound parameters now, with a clear error
    fn = lambda alpha: st.evaluate(dps=mp.dps, **{axis: alpha}, **params).value
    fn.__name__ = statement_id
    fn.statement_id, fn.params = statement_id, dict(params)
    return fn
