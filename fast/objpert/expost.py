"""Exact ex-post per-instance DP of objective perturbation on the torch fast path (float64), batched over many target
individuals: seed 003 chapter 2, Corollary 2.3.2 (GLM losses) — with the data-independent bounds of its terms
(Thm 2.3.3, the log-det term; Thm 2.3.4, the inner-product term) and the Gaussian mechanism's ex-post pDP (Thm A.6.1,
Cor A.6.2). Mirrors ``dpspec.reference.objpert.expost`` (``expost_loss_glm``) and ``gaussian_pdp``.

For ObjPert θ̂P = argmin J(θ; D) + bᵀθ, J = Σ_{i∈D} f(x_iᵀθ; y_i) + (λ/2)‖θ‖², and a target z = (x, y) with
s = +1 (z ∉ D, D' = D + z) or s = −1 (z ∈ D, D' = D − z) (notes objpert-pdp.md §2.C and §4.1):

    L = T1 + T2 + T3,   T1 = −log(1 + s f''(xᵀθ̂P; y)·µ),  µ = xᵀH⁻¹x,  H = ∇²J(θ̂P; D) = Σ_{i∈D} f''_i x_i x_iᵀ + λI,
                        T2 = f'(xᵀθ̂P; y)²‖x‖²/(2σ²),      T3 = s f'(xᵀθ̂P; y)·∇J(θ̂P; D)ᵀx/σ²,
    ε1 = |L| (the ex-post pDP), ε̄1 = |T1| + T2 + |T3|.

H and ∇J depend on D and θ̂P only, so one Cholesky factor of H serves every target: µ = ‖C⁻¹x‖² by one batched
triangular solve (notes objpert-pdp.md §8.1: never H⁻¹), T1 by log1p. 10⁵ targets at d = 50 take well under a second
on a CPU (benchmarks/bench_objpert.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from dpspec.reference.errors import DomainError, ParameterError
from dpspec.reference.objpert import spec

from .._torch import DTYPE, as_tensor, params

_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------------------------------------------------
# GLM losses f(u; y), f', f'' in torch (the same losses as reference/objpert/losses.py)


@dataclass(frozen=True)
class TorchGlmLoss:
    """f, f' = d1, f'' = d2 of a GLM loss in torch float64 (elementwise in u and y); ``beta`` = sup f'', ``xi`` =
    sup |f'|; ``labels`` the admissible label set (None: any |y| ≤ 1)."""

    name: str
    f: object
    d1: object
    d2: object
    beta: float
    xi: float
    labels: tuple | None = None

    def check_labels(self, y: torch.Tensor) -> torch.Tensor:
        if not bool(torch.isfinite(y).all()):
            raise DomainError("y", float(y[~torch.isfinite(y)][0]), "finite labels")
        if self.labels is not None:
            ok = torch.zeros_like(y, dtype=torch.bool)
            for v in self.labels:
                ok |= y == v
            if not bool(ok.all()):
                raise DomainError("y", float(y[~ok][0]), f"labels in {set(self.labels)} for the {self.name} loss")
        elif bool((y.abs() > 1).any()):
            raise DomainError("y", float(y[y.abs() > 1][0]), "|y| ≤ 1 (seed 003, §2.2.3)")
        return y


def _sig(u):
    return torch.sigmoid(u)


def _logcosh(L: float, beta: float) -> TorchGlmLoss:
    c = beta / L

    def f(u, y):
        a = (c * u).abs()
        return (L * L / beta) * (a + torch.log1p(torch.exp(-2 * a)) - math.log(2.0)) + 0 * y

    def d2(u, y):
        a = (c * u).abs()
        e = torch.exp(-2 * a)
        return beta * 4 * e / (1 + e) ** 2 + 0 * y  # sech²(a) = 4e^{−2a}/(1 + e^{−2a})²

    return TorchGlmLoss(f"logcosh(L={L!r}, beta={beta!r})", f, lambda u, y: L * torch.tanh(c * u) + 0 * y,
                        d2, beta, L)


LOSSES: dict[str, TorchGlmLoss] = {
    "logistic": TorchGlmLoss(
        "logistic", lambda u, y: torch.nn.functional.softplus(-y * u), lambda u, y: -y * _sig(-y * u),
        lambda u, y: _sig(u) * _sig(-u) + 0 * y, 0.25, 1.0, (-1.0, 1.0)),
    "logistic01": TorchGlmLoss(
        "logistic01", lambda u, y: torch.nn.functional.softplus(u) - y * u, lambda u, y: _sig(u) - y,
        lambda u, y: _sig(u) * _sig(-u) + 0 * y, 0.25, 1.0, (0.0, 1.0)),
    "squared": TorchGlmLoss(
        "squared", lambda u, y: (u - y) ** 2 / 2, lambda u, y: u - y, lambda u, y: torch.ones_like(u) + 0 * y,
        1.0, math.inf, None),
    "logcosh": _logcosh(1.0, 1.0),
}


def logcosh(L: float = 1.0, beta: float = 1.0) -> TorchGlmLoss:
    """The log-cosh loss (L²/β) log cosh(βu/L) (y ignored; seed 003 ch. 4, notes objpert-rdp.md §3 M1')."""
    if not (math.isfinite(L) and L > 0):
        raise DomainError("L", L, "L > 0 (finite)")
    if not (math.isfinite(beta) and beta > 0):
        raise DomainError("beta", beta, "β > 0 (finite)")
    return _logcosh(float(L), float(beta))


def get_loss(loss) -> TorchGlmLoss:
    """A :class:`TorchGlmLoss` from a name of :data:`LOSSES`, or the object itself."""
    if isinstance(loss, TorchGlmLoss):
        return loss
    if isinstance(loss, str) and loss in LOSSES:
        return LOSSES[loss]
    raise DomainError("loss", loss, f"one of {', '.join(LOSSES)} (or a TorchGlmLoss)")


# ---------------------------------------------------------------------------------------------------------------
# data


def split_records(records, name: str = "records", d: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, y) from an (n, d+1) array of rows (x, y) (the ``records`` / ``target`` convention of reference/objpert/
    spec.py); DomainError for non-finite values, ‖x‖ > 1 (+1e-12), or a width other than d + 1."""
    R = as_tensor(records, name=name)
    if R.dim() == 1:
        R = R.unsqueeze(0)
    if R.dim() != 2 or R.shape[1] < 2:
        raise DomainError(name, tuple(R.shape), "an (n, d + 1) array of rows (x, y), d ≥ 1")
    if d is not None and R.shape[1] != d + 1:
        raise DomainError(name, tuple(R.shape), f"rows of d + 1 = {d + 1} numbers")
    if not bool(torch.isfinite(R).all()):
        raise DomainError(name, "a non-finite entry", "finite numbers")
    X, y = R[:, :-1], R[:, -1]
    norms = torch.linalg.vector_norm(X, dim=1)
    if bool((norms > 1 + 1e-12).any()):
        raise DomainError(name, float(norms.max()), "‖x‖ ≤ 1 for every record (seed 003, §2.2.3)")
    return X, y


def _member_sign(member, m: int, like: torch.Tensor) -> torch.Tensor:
    """s per target: +1 for "out" (z ∉ D), −1 for "in" (z ∈ D); ``member`` a string or a sequence/bool tensor
    (True = in)."""
    if isinstance(member, str):
        if member not in ("out", "in"):
            raise DomainError("member", member, "'out' or 'in'")
        return torch.full((m,), -1.0 if member == "in" else 1.0, dtype=DTYPE, device=like.device)
    if isinstance(member, torch.Tensor) and member.dtype == torch.bool:
        inside = member.to(like.device)
    else:
        vals = list(member)
        if any(v not in ("out", "in", True, False) for v in vals):
            raise DomainError("member", vals, "'out'/'in' (or booleans: True = in) per target")
        inside = torch.tensor([v in ("in", True) for v in vals], device=like.device)
    if inside.shape != (m,):
        raise ParameterError(f"member: {tuple(inside.shape)} values for {m} targets")
    return torch.where(inside, -1.0, 1.0).to(DTYPE)


# ---------------------------------------------------------------------------------------------------------------
# Corollary 2.3.2, batched


def _gradient_terms(f1, xnorm2, s_gx, sigma):
    """(T2, T3, T2 + T3) with T2 = f'²‖x‖²/(2σ²), T3 = s f'·∇Jᵀx/σ², formed without inf − inf: the sum as
    (f'/σ)(m/σ)·[(f'‖x‖²/2 + s∇Jᵀx)/m], m = max(|f'|‖x‖², |∇Jᵀx|), so a tiny σ (1e-200) gives ±inf, not NaN."""
    t2 = (f1 / sigma) ** 2 * xnorm2 / 2
    t3 = (f1 / sigma) * (s_gx / sigma)
    m = torch.maximum(f1.abs() * xnorm2, s_gx.abs())
    mm = torch.where(m > 0, m, torch.ones_like(m))
    b = (f1 * (xnorm2 / mm) / 2 + s_gx / mm)
    total = torch.where((b == 0) | (f1 == 0), torch.zeros_like(b), (f1 / sigma) * (mm / sigma) * b)
    return t2, t3, torch.where(torch.isfinite(total) | ~torch.isfinite(t2 + t3), total, t2 + t3)


@dataclass(frozen=True)
class ExPost:
    """The ex-post pDP of many targets (each an (m,) tensor): the signed log ratio L = log p_D(θ̂P)/p_{D'}(θ̂P), its
    absolute value ε1 = |L|, the terms T1, T2, T3, and µ = xᵀH⁻¹x."""

    signed: torch.Tensor
    eps1: torch.Tensor
    t1: torch.Tensor
    t2: torch.Tensor
    t3: torch.Tensor
    mu: torch.Tensor

    @property
    def eps1bar(self) -> torch.Tensor:
        """ε̄1 = |T1| + T2 + |T3| (notes objpert-pdp.md E10: the quantity the report's upper bound can hold for)."""
        return self.t1.abs() + self.t2 + self.t3.abs()


@dataclass(frozen=True)
class Factor:
    """What every target shares: the Cholesky factor C of H = ∇²J(θ̂P; D) (H = CCᵀ), g = ∇J(θ̂P; D) (= −b at the
    exact minimiser), θ̂P, λ, σ and the loss."""

    chol: torch.Tensor
    grad: torch.Tensor
    theta: torch.Tensor
    lam: float
    sigma: float
    loss: TorchGlmLoss


def factor(X, y, theta, lam, sigma, loss="logistic") -> Factor:
    """One Cholesky factorisation of H = Σ_i f''(x_iᵀθ; y_i) x_i x_iᵀ + λI and the gradient ∇J(θ; D) = Σ_i f'_i x_i +
    λθ (seed 003 Cor 2.3.2; r = 0). X (n, d), y (n,), θ (d,)."""
    loss = get_loss(loss)
    X, y, theta = (as_tensor(v, name=n) for v, n in ((X, "X"), (y, "y"), (theta, "theta")))
    theta = theta.reshape(-1)
    if X.dim() != 2 or X.shape[1] != theta.numel() or y.shape != (X.shape[0],):
        raise ParameterError(f"shapes X {tuple(X.shape)}, y {tuple(y.shape)}, theta {tuple(theta.shape)} do not fit "
                             "(n, d), (n,), (d,)")
    if not bool(torch.isfinite(theta).all()):
        raise DomainError("theta", "a non-finite entry", "finite numbers")
    lam_t, sigma_t = params(lam=(lam, spec.P_LAM.domain), sigma=(sigma, spec.P_SIGMA.domain))
    loss.check_labels(y)
    u = X @ theta
    H = (X.T * loss.d2(u, y)) @ X
    H = H + float(lam_t) * torch.eye(X.shape[1], dtype=DTYPE, device=X.device)
    C, info = torch.linalg.cholesky_ex(H)
    if int(info) != 0:  # pragma: no cover - H ⪰ λI > 0 for convex losses
        raise ParameterError(f"H = ∇²J(θ̂P; D) is not positive definite (Cholesky failed at column {int(info)})")
    g = X.T @ loss.d1(u, y) + float(lam_t) * theta
    return Factor(C, g, theta, float(lam_t), float(sigma_t), loss)


def expost_batch(fac: Factor, target_x, target_y, member="out") -> ExPost:
    """Corollary 2.3.2 for m targets at once (target_x (m, d), target_y (m,)): one batched triangular solve against
    the shared Cholesky factor (module docstring). ``member``: "out", "in", or one value per target."""
    Xt = as_tensor(target_x, like=fac.chol, name="target_x")
    if Xt.dim() == 1:
        Xt = Xt.unsqueeze(0)
    yt = as_tensor(target_y, like=fac.chol, name="target_y").reshape(-1)
    if Xt.shape[1] != fac.theta.numel() or yt.shape != (Xt.shape[0],):
        raise ParameterError(f"targets {tuple(Xt.shape)}, labels {tuple(yt.shape)} do not fit (m, d = "
                             f"{fac.theta.numel()}), (m,)")
    fac.loss.check_labels(yt)
    s = _member_sign(member, Xt.shape[0], Xt)
    u = Xt @ fac.theta
    f1, f2 = fac.loss.d1(u, yt), fac.loss.d2(u, yt)
    w = torch.linalg.solve_triangular(fac.chol, Xt.T, upper=False)  # C⁻¹x for every target: (d, m)
    mu = (w * w).sum(0)
    a = s * f2 * mu
    t1 = -torch.log1p(a)  # z ∈ D: a = −f''µ_D > −1 (Sherman–Morrison); a = −1 only by rounding: +inf, not NaN
    t1 = torch.where(a <= -1, torch.full_like(t1, math.inf), t1)
    t2, t3, gauss = _gradient_terms(f1, (Xt * Xt).sum(1), s * (Xt @ fac.grad), fac.sigma)
    signed = t1 + gauss
    return ExPost(signed, signed.abs(), t1, t2, t3, mu)


def expost_loss_glm(X, y, target_x, target_y, theta, lam, sigma, loss="logistic", member="out") -> ExPost:
    """Corollary 2.3.2 (seed 003) for the targets (target_x (m, d) or (d,), target_y): :func:`factor` then
    :func:`expost_batch` — the batched counterpart of the reference's expost_loss_glm."""
    return expost_batch(factor(X, y, theta, lam, sigma, loss), target_x, target_y, member)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 2.3.3, Theorem 2.3.4, Theorem A.6.1, Corollary A.6.2 (closed forms)


def logdet_bound(eigs, lam, tight: bool = False) -> torch.Tensor:
    """−Σ_j log(1 − λ_j/λ) (seed 003 Thm 2.3.3, needs λ > λ_j), or with ``tight`` Σ_j log(1 + λ_j/λ) (erratum E5,
    valid for every λ > 0); eigs (..., k) summed over the last axis, lam broadcasting against (...)."""
    e = as_tensor(eigs, name="eigs")
    lam_t = as_tensor(lam, like=e, name="lam")
    r = e / lam_t.unsqueeze(-1)
    return (torch.log1p(r) if tight else -torch.log1p(-r)).sum(-1)


def inner_product_bound(grad_norm, sigma, rho, form: str = "phi", grad_l1=None, d=None) -> torch.Tensor:
    """The (1 − ρ)-quantile bound of |∇J(θ̂P; D)ᵀ∇ℓ(θ̂P; z)| (seed 003 Thm 2.3.4, GLM form per z): σ‖∇ℓ‖Φ⁻¹(1 − ρ/2)
    (``form="phi"``, exact for fixed z), σ‖∇ℓ‖√(2 log(2/ρ)) (``"sqrt"``, printed), or σ‖∇ℓ‖₁√(2 log(2d/ρ))
    (``"l1"``, uniform over z; needs ``grad_l1`` and ``d``). Φ⁻¹(1 − ρ/2) = −Φ⁻¹(ρ/2) keeps ρ down to 1e-300."""
    g, s, r = params(grad_norm=(grad_norm, spec.NONNEGATIVE), sigma=(sigma, spec.POSITIVE),
                     rho=(rho, spec.FAILURE))
    if form == "phi":
        return s * g * -torch.special.ndtri(r / 2)
    if form == "sqrt":
        return s * g * torch.sqrt(2 * (math.log(2.0) - torch.log(r)))
    if form == "l1":
        if grad_l1 is None or d is None:
            raise ParameterError("form='l1' needs grad_l1 (‖∇ℓ‖₁) and d")
        g1 = as_tensor(grad_l1, like=g, name="grad_l1")
        return s * g1 * torch.sqrt(2 * (math.log(2.0 * d) - torch.log(r)))
    raise DomainError("form", form, "'phi', 'sqrt' or 'l1'")


def gaussian_expost(o, q_d, delta_vec, sigma) -> torch.Tensor:
    """|‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ²|: the ex-post pDP of the Gaussian mechanism at output o (seed 003 Thm A.6.1),
    rows of o, Q(D), Δ broadcasting (last axis = the dimension)."""
    o, q, dv = (as_tensor(v, name=n) for v, n in ((o, "o"), (q_d, "q_d"), (delta_vec, "delta_vec")))
    (s,) = params(sigma=(sigma, spec.POSITIVE))
    r = dv / s
    return ((r * r).sum(-1) / 2 - (r * (o - q) / s).sum(-1)).abs()


# ---------------------------------------------------------------------------------------------------------------
# Catalogue-facing evaluators (the statements' parameters: one target row; the reference's checks and conditions)

_MAX_REFERENCE_DIM = spec.MAX_REFERENCE_DIM_C
_NORM_SLACK = 1e-12


def _row(name: str, a, cols: int | None = None) -> torch.Tensor:
    """One row of finite reals (a column vector is read as a row), as the reference's _row / _grad read it."""
    t = as_tensor(a, name=name)
    if t.dim() == 2 and t.shape[0] != 1 and t.shape[1] == 1:
        t = t.T
    t = t.reshape(1, -1) if t.dim() == 1 else t
    if t.dim() != 2 or t.shape[0] != 1 or t.shape[1] < 1 or not bool(torch.isfinite(t).all()):
        raise DomainError(name, f"array of shape {tuple(t.shape)}", "one row of finite reals (a vector of R^d)")
    if cols is not None and t.shape[1] != cols:
        raise ParameterError(f"{name}: expected one row of {cols} numbers, got shape {tuple(t.shape)}")
    return t[0]


def _glm_inputs(records, target, theta, loss):
    """(X, y, x, y_z, θ, loss) with the reference's checks (reference/objpert/expost.py glm_inputs): θ one row,
    d ≤ MAX_REFERENCE_DIM (the catalogue form; :func:`expost_loss_glm` has no limit), ‖x‖ ≤ 1 (+1e-12), labels."""
    loss = get_loss(loss)
    th = as_tensor(theta, name="theta")
    th = th.reshape(1, -1) if th.dim() == 1 else th
    if th.dim() != 2 or th.shape[0] != 1 or th.shape[1] < 1:
        raise ParameterError(f"theta: expected one row θ̂P ∈ R^d (d ≥ 1), got shape {tuple(th.shape)}")
    if not bool(torch.isfinite(th).all()):
        raise DomainError("theta", "a non-finite entry", "an array of finite reals")
    d = th.shape[1]
    if d > _MAX_REFERENCE_DIM:
        raise DomainError("theta", f"θ of dimension {d}", f"d ≤ {_MAX_REFERENCE_DIM} for the mpmath reference (use "
                          "expost_loss_glm for larger d)")
    z = as_tensor(target, name="target")
    z = z.reshape(1, -1) if z.dim() == 1 else z
    if z.dim() != 2 or not bool(torch.isfinite(z).all()):
        raise DomainError("target", f"array of shape {tuple(z.shape)}", "an array of finite reals")
    if z.shape != (1, d + 1):
        raise ParameterError(f"target: expected one row (x, y) of {d + 1} numbers, got shape {tuple(z.shape)}")
    R = as_tensor(records, name="records")
    if R.numel() == 0:
        R = R.reshape(0, d + 1)
    R = R.reshape(1, -1) if R.dim() == 1 else R
    if R.dim() != 2 or not bool(torch.isfinite(R).all()):
        raise DomainError("records", f"array of shape {tuple(R.shape)}", "an array of finite reals")
    if R.shape[1] != d + 1 and R.shape[0] > 0:
        raise ParameterError(f"records: expected rows of {d + 1} numbers, got shape {tuple(R.shape)}")
    X, y = R[:, :d], R[:, d]
    for name, F in (("records", X), ("target", z[:, :d])):
        norms = torch.linalg.vector_norm(F, dim=1)
        if bool((norms > 1 + _NORM_SLACK).any()):
            raise DomainError(name, f"a row with ‖x‖ = {float(norms.max()):.17g}", "‖x‖ ≤ 1 (seed 003 §2.2.3)")
    loss.check_labels(y)
    loss.check_labels(z[:, d])
    return X, y, z[:, :d], z[:, d], th[0], loss


def _points(name, a) -> torch.Tensor:
    """The Points domain (reference/domains.py): an (m, d) array of finite reals (m = 0 allowed; a 1-d array is m
    points of R^1, a column), as a float64 tensor; DomainError otherwise (the domain's refusal)."""
    t = as_tensor(a, name=name)
    if t.dim() == 1:
        t = t.reshape(-1, 1)
    if t.dim() != 2 or not bool(torch.isfinite(t).all()):
        raise DomainError(name, f"array of shape {tuple(t.shape)}", "an (m, d) array of finite reals")
    return t


# The statements' data requirements (spec section C; the reference's predicates in reference/objpert/expost.py),
# each defined on any (m, d) arrays independently of the others, so both paths name the same failed conditions.


def shapes_ok(R: torch.Tensor, z: torch.Tensor, th: torch.Tensor) -> bool:
    """spec.EXPOST_SHAPES_C: theta (1, d), d ≥ 1; target (1, d + 1); records (n, d + 1) or empty (n = 0)."""
    if th.shape[0] != 1 or th.shape[1] < 1:
        return False
    d = th.shape[1]
    return tuple(z.shape) == (1, d + 1) and (R.shape[0] == 0 or R.shape[1] == d + 1)


def features_ok(R: torch.Tensor, z: torch.Tensor) -> bool:
    """spec.FEATURES_IN_BALL_C: ‖x‖ ≤ 1 + 1e-12 for every row of target and records, x = all columns but the last."""
    for a in (z, R):
        if a.shape[0] and a.shape[1] > 1 and bool((torch.linalg.vector_norm(a[:, :-1], dim=1) > 1 + _NORM_SLACK).any()):
            return False
    return True


def labels_ok(R: torch.Tensor, z: torch.Tensor, loss: TorchGlmLoss) -> bool:
    """spec.LABELS_FOR_LOSS_C: the last column of target and records holds labels the loss admits."""
    parts = [a[:, -1] for a in (z, R) if a.shape[0] and a.shape[1]]
    y = torch.cat(parts) if parts else torch.zeros(0, dtype=DTYPE)
    if loss.labels is not None:
        ok = torch.zeros_like(y, dtype=torch.bool)
        for v in loss.labels:
            ok |= y == v
        return bool(ok.all())
    return bool((y.abs() <= 1).all())


def in_records(R: torch.Tensor, z: torch.Tensor, member: str) -> bool:
    """spec.TARGET_IN_RECORDS_C: member = out, or the target is one row equal to some record."""
    if member != "in":
        return True
    return z.shape[0] == 1 and R.shape[0] > 0 and R.shape[1] == z.shape[1] and bool((R == z).all(1).any())


def row_vector(t: torch.Tensor) -> torch.Tensor | None:
    """One vector of R^d (d ≥ 1) from a Points tensor: one row, or one column read as a row; None otherwise."""
    if t.shape[0] != 1 and t.shape[1] == 1:
        t = t.T
    return t[0] if t.shape[0] == 1 and t.shape[1] >= 1 else None


def _expost_statement(sid, records, target, theta, lam, sigma, loss, member, allow_outside, general):
    from .._torch import refuse_outside

    R, z, th = (_points(name, a) for name, a in (("records", records), ("target", target), ("theta", theta)))
    params(lam=(lam, spec.P_LAM_C.domain), sigma=(sigma, spec.P_SIGMA_C.domain))
    if member not in ("out", "in"):
        raise DomainError("member", member, "one of {out, in}")
    if not (isinstance(loss, str) and loss in LOSSES):
        raise DomainError("loss", loss, f"one of {', '.join(LOSSES)}")
    # the statement's conditions come before the evaluator's own checks (as Statement.evaluate orders them)
    refuse_outside(sid, [(spec.EXPOST_SHAPES_C, shapes_ok(R, z, th)),
                         (spec.EXPOST_DIM_C, th.shape[1] <= _MAX_REFERENCE_DIM),
                         (spec.FEATURES_IN_BALL_C, features_ok(R, z)),
                         (spec.LABELS_FOR_LOSS_C, labels_ok(R, z, LOSSES[loss])),
                         (spec.TARGET_IN_RECORDS_C, in_records(R, z, member))], allow_outside)
    X, y, x, yz, th, loss = _glm_inputs(R, z, th, loss)
    fac = factor(X, y, th, lam, sigma, loss)
    out = expost_general(fac, x, yz, member) if general else expost_batch(fac, x, yz, member)
    return out.eps1[0], out.signed[0]


def cor2_3_2(records, target, theta, lam, sigma, loss="logistic", member="out", signed: bool = False,
             allow_outside: bool = False) -> torch.Tensor:
    """``objpert.cor2_3_2``: ε1 = |L| of seed 003 Cor 2.3.2 for one target row (``signed``: L itself, the variant);
    condition target_in_records for member = "in"."""
    eps1, L = _expost_statement("objpert.cor2_3_2", records, target, theta, lam, sigma, loss, member, allow_outside,
                                general=False)
    return L if signed else eps1


def expost_general(fac: Factor, target_x, target_y, member="out") -> ExPost:
    """Theorem 2.3.1 (seed 003; the log-determinant form, notes objpert-pdp.md §2.C) for GLM targets, computed by
    determinants instead of the leverage score: T1 = −(log det(H + s f''xxᵀ) − log det H), batched slogdet (O(md³);
    a cross-check of :func:`expost_batch`, not the fast route)."""
    Xt = as_tensor(target_x, like=fac.chol, name="target_x")
    Xt = Xt.unsqueeze(0) if Xt.dim() == 1 else Xt
    yt = as_tensor(target_y, like=fac.chol, name="target_y").reshape(-1)
    s = _member_sign(member, Xt.shape[0], Xt)
    u = Xt @ fac.theta
    f1, f2 = fac.loss.d1(u, yt), fac.loss.d2(u, yt)
    H = fac.chol @ fac.chol.T
    G = (s * f2)[:, None, None] * Xt[:, :, None] * Xt[:, None, :]
    sign, logdet = torch.linalg.slogdet(H + G)
    base = 2 * torch.log(torch.diagonal(fac.chol)).sum()
    t1 = torch.where(sign > 0, -(logdet - base), torch.full_like(logdet, math.inf))
    t2, t3, gauss = _gradient_terms(f1, (Xt * Xt).sum(1), s * (Xt @ fac.grad), fac.sigma)
    w = torch.linalg.solve_triangular(fac.chol, Xt.T, upper=False)
    signed = t1 + gauss
    return ExPost(signed, signed.abs(), t1, t2, t3, (w * w).sum(0))


def thm2_3_1(records, target, theta, lam, sigma, loss="logistic", member="out", signed: bool = False,
             allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm2_3_1``: ε1 of seed 003 Thm 2.3.1 (the log-determinant route, :func:`expost_general`)."""
    eps1, L = _expost_statement("objpert.thm2_3_1", records, target, theta, lam, sigma, loss, member, allow_outside,
                                general=True)
    return L if signed else eps1


def _eigs(eigs) -> torch.Tensor:
    e = as_tensor(eigs, name="eigs").reshape(-1)
    bad = ~(torch.isfinite(e) & (e >= 0))
    if bool(bad.any()):
        raise DomainError("eigs", float(e[bad][0]), "eigenvalues λ_j ≥ 0 of a convex loss's Hessian (finite)")
    return e


def thm2_3_3(eigs, lam, tight: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm2_3_3``: −Σ_j log(1 − λ_j/λ) (seed 003 Thm 2.3.3, conditions eigs_nonnegative and
    eigs_below_lambda), or with ``tight`` the variant Σ_j log(1 + λ_j/λ) (erratum E5; condition eigs_nonnegative)."""
    from .._torch import refuse_outside

    e = _points("eigs", eigs).reshape(-1)
    (lam_t,) = params(lam=(lam, spec.P_LAM_C.domain))
    checks = [(spec.EIGS_NONNEGATIVE_C, bool((e >= 0).all()))]
    if not tight:
        checks.append((spec.EIGS_BELOW_LAMBDA_C, bool((e < lam_t).all())))
    refuse_outside("objpert.thm2_3_3", checks, allow_outside)
    e = _eigs(e)
    if tight:
        return torch.log1p(e / lam_t).sum()
    if bool((e >= lam_t).any()):
        raise DomainError("lam", float(lam_t), f"λ > max λ_j = {float(e.max())} (the printed bound is infinite "
                          "otherwise)")
    return (-torch.log1p(-e / lam_t)).sum()  # +0 (not −0) at λ_j = 0


def thm2_3_4(grad, sigma, rho, form: str = "sqrt", allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm2_3_4``: σ‖∇ℓ‖√(2 log(2/ρ)) (seed 003 Thm 2.3.4, GLM form; ``form="phi"``: σ‖∇ℓ‖Φ⁻¹(1 − ρ/2),
    ``"l1"``: σ‖∇ℓ‖₁√(2 log(2d/ρ))) for one gradient row (condition grad_row). The norms are taken of ∇ℓ/max|∇ℓ|
    (no overflow of the squares at entries near 1e308)."""
    from .._torch import refuse_outside

    g_pts = _points("grad", grad)
    s, r = params(sigma=(sigma, spec.P_SIGMA_C.domain), rho=(rho, spec.P_RHO_C.domain))
    g = row_vector(g_pts)
    refuse_outside("objpert.thm2_3_4", [(spec.GRAD_ROW_C, g is not None)], allow_outside)
    g = _row("grad", g_pts)
    m = g.abs().max()
    m = m if float(m) > 0 else torch.ones_like(m)
    if form == "l1":
        return s * torch.sqrt(2 * (math.log(2.0 * g.numel()) - torch.log(r))) * (m * (g / m).abs().sum())
    return inner_product_bound(m * torch.linalg.vector_norm(g / m), s, r, form=form)


def thm_a6_1(o, q_d, delta_vec, sigma, signed: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm_a6_1``: |‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ²| (seed 003 Thm A.6.1; ``signed``: without |·|);
    condition gauss_vectors (one vector each, one dimension)."""
    from .._torch import refuse_outside

    pts = [_points(name, a) for name, a in (("o", o), ("q_d", q_d), ("delta_vec", delta_vec))]
    params(sigma=(sigma, spec.P_SIGMA_C.domain))  # the statement's domains first, then its condition
    rows = [row_vector(t) for t in pts]
    ok = all(v is not None for v in rows) and len({v.numel() for v in rows}) == 1
    refuse_outside("objpert.thm_a6_1", [(spec.GAUSS_VECTORS_C, ok)], allow_outside)
    o_, q_, d_ = _row("o", pts[0]), _row("q_d", pts[1]), _row("delta_vec", pts[2])
    if not o_.numel() == q_.numel() == d_.numel():
        raise ParameterError(f"gaussian_expost: o, q_d, delta_vec must have the same dimension, got {o_.numel()}, "
                             f"{q_.numel()}, {d_.numel()}")
    (s,) = params(sigma=(sigma, spec.P_SIGMA_C.domain))
    # L = [‖Δ‖²/2 − Δᵀ(o − Q(D))]/σ² scaled by m = max|entries| (no inf − inf for tiny σ or huge entries)
    m = torch.maximum(d_.abs().max(), (o_ - q_).abs().max())
    if not bool(torch.isfinite(m)):
        m = torch.maximum(d_.abs().max(), torch.maximum(o_.abs().max(), q_.abs().max()))
    mm = m if float(m) > 0 else torch.ones_like(m)
    dn, en = d_ / mm, o_ / mm - q_ / mm
    core = (dn * dn).sum() / 2 - (dn * en).sum()
    L = torch.zeros_like(core) if float(core) == 0 else core * (mm / s) * (mm / s)
    return L if signed else L.abs()


def cor_a6_2(Delta, sigma, delta, form: str = "phi") -> torch.Tensor:
    """``objpert.cor_a6_2``: ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1 − δ)/σ (seed 003 Cor A.6.2, pDP); ``form``: "sqrt" (√(2 log(1/δ))),
    "expost" (Φ⁻¹(1 − δ/2)), "expost_sqrt" (√(2 log(2/δ)))."""
    D, s, dl = params(Delta=(Delta, spec.P_DELTA_NORM_C.domain), sigma=(sigma, spec.P_SIGMA_C.domain),
                      delta=(delta, spec.P_DELTA.domain))
    S = D / s
    quantile = {"phi": lambda: -torch.special.ndtri(dl), "sqrt": lambda: torch.sqrt(-2 * torch.log(dl)),
                "expost": lambda: -torch.special.ndtri(dl / 2),
                "expost_sqrt": lambda: torch.sqrt(2 * (math.log(2.0) - torch.log(dl)))}
    if form not in quantile:
        raise DomainError("form", form, f"one of {', '.join(quantile)}")
    return S * S / 2 + S * quantile[form]()
