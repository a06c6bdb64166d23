"""Objective perturbation's algorithms on the torch fast path (float64, seeded ``torch.Generator``), batched over many
noise draws: seed 003 Algorithm 1 (ObjPert, chapter 2: release argmin Σ f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ,
b ~ N(0, σ²I_d); the exact minimiser by damped Newton for a whole batch of b at once) and Algorithm 7 (chapter 4:
approximate minima perturbation with the clipped loss of Thm C.6.2 — additive constants restored, erratum E4_11 —
stopped at ‖∇L^P_C(θ̃)‖ ≤ τ — by batched Newton, torch.optim.LBFGS or SAG with the periodic check of App. C.7, the
stopping rule re-verified before release — then output noise N(0, σ_out²I_d)). Mirrors reference/objpert/solver.py
(objpert_minimiser) and reference/objpert/amp_algorithms.py (alg7_amp, alg16_amp); privacy: objpert.thm4_3_1 /
objpert.thm4_3_2 (GLM) and objpert.thm4_4_1 / objpert.thm_c6_1."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from dpspec.reference.errors import DomainError, ParameterError, PrecisionError

from .._torch import DTYPE, as_tensor
from .expost import TorchGlmLoss, get_loss, split_records

_ARMIJO = 1e-4
_HALVINGS = 60


# ---------------------------------------------------------------------------------------------------------------
# the clipped GLM loss (Song et al. 2020, Lemma 5.1; seed 003 Thm C.6.2 / C.6.3)


def _logit(p):
    return torch.log(p) - torch.log1p(-p)


def breakpoints(loss: TorchGlmLoss, c: torch.Tensor, y: torch.Tensor):
    """(u_L, u_H) with f'(u_L) = −c, f'(u_H) = c (±inf for a side that needs no clipping), c = C/‖x‖ > 0 (closed forms
    as reference/objpert/clipping.py: logistic via logit, squared y ∓ c, log-cosh ±(L/β) atanh(c/L))."""
    name = loss.name
    if name in ("logistic", "logistic01"):
        y01 = (1 + y) / 2 if name == "logistic" else y
        lo_p, hi_p = y01 - c, y01 + c
        lo_ok = (lo_p > 0) & (lo_p < 1)
        hi_ok = (hi_p > 0) & (hi_p < 1)
        u_l = torch.where(lo_ok, _logit(torch.where(lo_ok, lo_p, torch.full_like(lo_p, 0.5))), -math.inf)
        u_h = torch.where(hi_ok, _logit(torch.where(hi_ok, hi_p, torch.full_like(hi_p, 0.5))), math.inf)
        return u_l, u_h
    if name == "squared":
        return y - c, y + c
    if name.startswith("logcosh"):
        lip, beta = loss.xi, loss.beta
        ok = c < lip
        u_h = torch.where(ok, (lip / beta) * torch.atanh(torch.where(ok, c / lip, torch.zeros_like(c))), math.inf)
        return -u_h, u_h
    raise ParameterError(f"no closed form for the clipping breakpoints of the loss {name!r}")


def clipped(loss, C: float, x_norm) -> TorchGlmLoss:
    """f_C of Thm C.6.2 (seed 003) for records with feature norms ``x_norm`` (n,): f_C = f on [u_L, u_H] and linear
    with slope ∓C/‖x‖ outside, continuous (the text's missing constants f(u_L), f(u_H) restored, E4_11), so
    |f_C'|·‖x‖ ≤ C and f_C'' = f''·1[u_L < u < u_H] ≤ β (Thm C.6.3). Its f, d1, d2 take (u (..., n), y (n,))."""
    base = get_loss(loss)
    xn = as_tensor(x_norm, name="x_norm").reshape(-1)
    if not (math.isfinite(C) and C > 0):
        raise DomainError("C", C, "C > 0 (finite)")
    if bool((xn <= 0).any()):
        raise DomainError("records", "a zero feature vector", "x ≠ 0 (Thm C.6.2 needs x ≠ 0)")
    c = C / xn

    def parts(u, y):
        u_l, u_h = breakpoints(base, c, y)
        return u_l, u_h, u < u_l, u > u_h

    def f(u, y):
        u_l, u_h, low, high = parts(u, y)
        fl = base.f(torch.where(torch.isfinite(u_l), u_l, torch.zeros_like(u_l)), y)
        fh = base.f(torch.where(torch.isfinite(u_h), u_h, torch.zeros_like(u_h)), y)
        mid = base.f(torch.clamp(u, min=torch.where(torch.isfinite(u_l), u_l, -math.inf),
                                 max=torch.where(torch.isfinite(u_h), u_h, math.inf)), y)
        return torch.where(low, fl - c * (u - u_l), torch.where(high, fh + c * (u - u_h), mid))

    def d1(u, y):
        return torch.clamp(base.d1(u, y), min=-c, max=c)

    def d2(u, y):
        _, _, low, high = parts(u, y)
        return torch.where(low | high, torch.zeros_like(u), base.d2(u, y))

    return TorchGlmLoss(f"clipped({base.name}, C={C!r})", f, d1, d2, base.beta, min(base.xi, C), base.labels)


# ---------------------------------------------------------------------------------------------------------------
# batched damped Newton on L^P(θ) = Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ


def _objective(X, y, loss, lam, B, theta):
    u = theta @ X.T  # (m, n)
    return loss.f(u, y).sum(-1) + lam / 2 * (theta * theta).sum(-1) + (B * theta).sum(-1)


def _gradient(X, y, loss, lam, B, theta):
    return loss.d1(theta @ X.T, y) @ X + lam * theta + B


@dataclass(frozen=True)
class NewtonResult:
    """θ (m, d), ‖∇L^P(θ)‖ (m,), the Newton iterations taken."""

    theta: torch.Tensor
    grad_norm: torch.Tensor
    iterations: int


def newton_batch(X, y, loss, lam, B, tol: float = 1e-10, max_iter: int = 100, stop_at=None) -> NewtonResult:
    """argmin_θ Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + b_kᵀθ for every row b_k of B (m, d) at once: damped Newton
    (batched Cholesky of H_k = Xᵀdiag(f''(Xθ_k))X + λI, Armijo backtracking per row) until ‖∇‖ ≤ ``tol``·(1 + ‖b_k‖)
    — or, with ``stop_at`` (Algorithm 7's τ), until ‖∇‖ ≤ τ. The problem is λ-strongly convex, so Newton with line
    search converges from θ = 0; PrecisionError if a row has not converged after ``max_iter`` iterations."""
    loss = get_loss(loss) if not isinstance(loss, TorchGlmLoss) else loss
    X, y = as_tensor(X, name="X"), as_tensor(y, name="y")
    B = as_tensor(B, like=X, name="B")
    if B.dim() == 1:
        B = B.unsqueeze(0)
    if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam > 0):
        raise DomainError("lam", lam, "(0, inf)")
    n, d = X.shape
    if B.shape[-1] != d:
        raise ParameterError(f"B has rows of {B.shape[-1]} numbers, the features {d}")
    theta = torch.zeros_like(B)
    eye = torch.eye(d, dtype=DTYPE, device=X.device)
    target = (torch.full((B.shape[0],), float(stop_at), dtype=DTYPE, device=X.device) if stop_at is not None
              else tol * (1 + torch.linalg.vector_norm(B, dim=-1)))
    for it in range(max_iter + 1):
        g = _gradient(X, y, loss, lam, B, theta)
        gn = torch.linalg.vector_norm(g, dim=-1)
        active = gn > target
        if not bool(active.any()):
            return NewtonResult(theta, gn, it)
        if it == max_iter:
            break
        w = loss.d2(theta @ X.T, y)  # (m, n)
        H = torch.einsum("mn,ni,nj->mij", w, X, X) + lam * eye
        step = -torch.cholesky_solve(g.unsqueeze(-1), torch.linalg.cholesky(H)).squeeze(-1)
        f0 = _objective(X, y, loss, lam, B, theta)
        slope = (g * step).sum(-1)
        t = torch.ones_like(f0)
        accepted = ~active
        for _ in range(_HALVINGS):
            trial = theta + t.unsqueeze(-1) * step
            ft = _objective(X, y, loss, lam, B, trial)
            # the Armijo test, with room for the rounding of f near the optimum (|f|·1e-13 there exceeds the decrease)
            ok = (ft <= f0 + _ARMIJO * t * slope + 1e-13 * f0.abs()) & ~accepted
            theta = torch.where(ok.unsqueeze(-1), trial, theta)
            accepted |= ok
            if bool(accepted.all()):
                break
            t = torch.where(accepted, t, t / 2)
    raise PrecisionError(f"newton_batch: {int(active.sum())} of {B.shape[0]} rows have ‖∇L^P‖ > target after "
                         f"{max_iter} iterations (largest {float(gn.max()):.3g})")


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 1 and Algorithm 7


def _generator(generator) -> torch.Generator:
    """``generator`` itself, a generator seeded with the integer given, or (None) one seeded from the operating
    system's entropy (a privacy mechanism must not reuse a fixed default seed)."""
    if isinstance(generator, torch.Generator):
        return generator
    g = torch.Generator()
    if generator is None:
        g.seed()
    else:
        g.manual_seed(int(generator))
    return g


def _normal(shape, scale, gen, like):
    return scale * torch.randn(shape, generator=gen, dtype=DTYPE).to(like.device)


def objpert_release(records, loss, lam, sigma, count: int = 1, generator=None, tol: float = 1e-10) -> dict:
    """Algorithm 1 (seed 003 ch. 2; Kifer et al. 2012) ``count`` times: b_k ~ N(0, σ²I_d) from ``generator`` (a
    torch.Generator or a seed) and θ̂P_k = argmin J(θ; D) + b_kᵀθ, all by one :func:`newton_batch`. Returns
    {"theta": (count, d), "b": (count, d), "grad_norm": (count,)}."""
    X, y = split_records(records)
    loss = get_loss(loss)
    loss.check_labels(y)
    if not (math.isfinite(sigma) and sigma > 0):
        raise DomainError("sigma", sigma, "(0, inf)")
    gen = _generator(generator)
    B = _normal((int(count), X.shape[1]), sigma, gen, X)
    res = newton_batch(X, y, loss, float(lam), B, tol=tol)
    return {"theta": res.theta, "b": B, "grad_norm": res.grad_norm}


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 7's solvers: any optimiser may be used (seed 003 Algorithm 7 step 4; notes objpert-rdp.md §4 A2, A8),
# provided the returned θ̃ satisfies ‖∇L^P_C(θ̃)‖ ≤ τ; every solver's answer is re-verified by alg7_amp.

SOLVERS = ("newton", "lbfgs", "sag")


def perturbed_gradient(X, y, loss, lam, B, theta) -> torch.Tensor:
    """∇L^P(θ_k) = Σ_i f'(x_iᵀθ_k; y_i) x_i + λθ_k + b_k for every row k of θ, B (m, d) (seed 003 Algorithm 7
    step 3; the reference's amp_algorithms.perturbed_gradient, batched)."""
    return _gradient(X, y, loss, lam, B, theta)


@dataclass(frozen=True)
class SolverResult:
    """θ̃ (m, d), the verified ‖∇L^P(θ̃)‖ (m,), and the work done (L-BFGS: iterations over all rows; SAG: incremental
    gradient evaluations summed over rows, a multiple of n; Newton: iterations)."""

    theta: torch.Tensor
    grad_norm: torch.Tensor
    work: int


def lbfgs_until(X, y, loss, lam, B, tau: float, max_rounds: int = 200, history: int = 20) -> SolverResult:
    """L-BFGS (``torch.optim.LBFGS``, strong-Wolfe line search; the solver of the thesis' experiments, seed 003 Sec.
    4.5) on L^P(θ) = Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + b_kᵀθ, all rows k of B at once (their objectives are
    separable, so L-BFGS on the sum minimises each), gradients in closed form (no autograd). After each call of
    ``step`` (at most 50 inner iterations) the per-row gradient norm is checked; the run stops when every row has
    ‖∇L^P‖ ≤ τ, and raises PrecisionError after ``max_rounds`` calls."""
    B = B.unsqueeze(0) if B.dim() == 1 else B
    m, d = B.shape
    theta = torch.zeros_like(B, requires_grad=True)
    # the inner stop max|∂| ≤ τ/(2√(md)) implies every row's norm ≤ τ/2
    opt = torch.optim.LBFGS([theta], lr=1.0, max_iter=50, history_size=history, line_search_fn="strong_wolfe",
                            tolerance_grad=tau / (2 * math.sqrt(m * d)), tolerance_change=0.0)

    def closure():
        with torch.no_grad():
            theta.grad = _gradient(X, y, loss, lam, B, theta)
            return _objective(X, y, loss, lam, B, theta).sum()

    done = 0
    for _ in range(max_rounds):
        opt.step(closure)
        with torch.no_grad():
            gn = torch.linalg.vector_norm(_gradient(X, y, loss, lam, B, theta), dim=-1)
        done = int(opt.state[theta].get("n_iter", 0))
        if bool((gn <= tau).all()):
            return SolverResult(theta.detach().clone(), gn, done)
        if not bool(torch.isfinite(theta).all()):
            break
    raise PrecisionError(f"lbfgs_until: {int((gn > tau).sum())} of {m} rows have ‖∇L^P‖ > τ = {tau:g} after "
                         f"{done} L-BFGS iterations (largest {float(gn.max()):.3g})")


def sag_until(X, y, loss, lam, b, tau: float, generator=None, c=None, max_epochs: int = 10**5) -> SolverResult:
    """SAG (Schmidt, Le Roux & Bach 2017) with the periodic full-gradient check of seed 003 App. C.7 (Thm C.7.1;
    notes objpert-rdp.md §4 A8), as reference/objpert/amp_algorithms.py ``sag_with_check``: f = Σ_i f_i,
    f_i(θ) = ℓ_i(θ) + λ‖θ‖²/(2n) + bᵀθ/n, step 1/(16 L_max), L_max = β·max‖x_i‖² + λ/n, memory 0 at the start,
    indices uniform from ``generator``; before each block of n incremental steps the full gradient is checked and
    the run stops when ‖∇f‖ ≤ τ. ``loss`` is the UNclipped GLM loss; ``c`` (n,) the clip levels C/‖x_i‖ (f_C' =
    clamp(f', ±c_i), Thm C.6.2) or None (no clipping). One b (d,) at a time; ``work`` counts incremental gradient
    evaluations (the checks' full gradients are not counted, as in the reference)."""
    gen = _generator(generator)
    n, d = X.shape
    b = b.reshape(-1)
    l_max = loss.beta * float((X * X).sum(-1).max()) + lam / n
    step = 1.0 / (16.0 * l_max)
    full = loss if c is None else _clamped(loss, c)
    theta = torch.zeros(d, dtype=DTYPE, device=X.device)
    memory = torch.zeros((n, d), dtype=DTYPE, device=X.device)
    total = torch.zeros(d, dtype=DTYPE, device=X.device)
    lo = None if c is None else (-c).tolist()
    hi = None if c is None else c.tolist()
    evals = 0
    for _ in range(max_epochs):
        gn = torch.linalg.vector_norm(_gradient(X, y, full, lam, b.unsqueeze(0), theta.unsqueeze(0)), dim=-1)
        if float(gn[0]) <= tau:
            return SolverResult(theta.unsqueeze(0), gn, evals)
        for i in torch.randint(0, n, (n,), generator=gen).tolist():
            xi = X[i]
            f1 = loss.d1(xi @ theta, y[i])
            if c is not None:
                f1 = torch.clamp(f1, lo[i], hi[i])
            g = f1 * xi + (lam * theta + b) / n
            total += g - memory[i]
            memory[i] = g
            theta = theta - (step / n) * total  # Schmidt et al.: x ← x − (α/n)Σ_i y_i, α = 1/(16 L_max)
        evals += n
    raise PrecisionError(f"sag_until: no ‖∇f‖ ≤ τ = {tau:g} within {max_epochs} epochs (last {float(gn[0]):.3g})")


def _clamped(loss: TorchGlmLoss, c: torch.Tensor) -> TorchGlmLoss:
    """f with f' clamped to [−c, c] — only d1 is used (the gradient of the clipped loss, Thm C.6.2)."""
    return TorchGlmLoss(f"clamped({loss.name})", loss.f, lambda u, y: torch.clamp(loss.d1(u, y), min=-c, max=c),
                        loss.d2, loss.beta, loss.xi, loss.labels)


def _approximate(X, y, closs, base, c, lam, B, tau, solver, gen) -> SolverResult:
    if solver == "newton":
        res = newton_batch(X, y, closs, lam, B, stop_at=tau)
        return SolverResult(res.theta, res.grad_norm, res.iterations)
    if solver == "lbfgs":
        return lbfgs_until(X, y, closs, lam, B, tau)
    if solver == "sag":
        rows = [sag_until(X, y, base, lam, B[k], tau, gen, c) for k in range(B.shape[0])]
        return SolverResult(torch.cat([r.theta for r in rows]), torch.cat([r.grad_norm for r in rows]),
                            sum(r.work for r in rows))
    raise ParameterError(f"solver: expected one of {SOLVERS}, got {solver!r}")


def _split_bounded(records, x_bound: float):
    """(X, y) as :func:`split_records`, but with ‖x‖ ≤ ``x_bound`` (the thesis' experiments append a bias to unit
    rows: ‖x‖ = √2; the accounting then uses β = sup f''·x_bound², notes objpert-rdp.md §6 E20)."""
    if not (isinstance(x_bound, (int, float)) and math.isfinite(x_bound) and x_bound > 0):
        raise DomainError("x_bound", x_bound, "(0, inf)")
    R = as_tensor(records, name="records")
    if R.dim() != 2 or R.shape[1] < 2:
        raise DomainError("records", tuple(R.shape), "an (n, d + 1) array of rows (x, y), d ≥ 1")
    if not bool(torch.isfinite(R).all()):
        raise DomainError("records", "a non-finite entry", "finite numbers")
    X, y = R[:, :-1], R[:, -1]
    norms = torch.linalg.vector_norm(X, dim=1)
    if bool((norms > x_bound * (1 + 1e-12)).any()):
        raise DomainError("records", float(norms.max()), f"‖x‖ ≤ x_bound = {x_bound!r} for every record")
    return X, y


def _check_positive(**values):
    for name, v in values.items():
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise DomainError(name, v, "(0, inf)")


def alg7_amp(records, loss, lam, sigma, sigma_out, tau, C, count: int = 1, generator=None, solver: str = "newton",
             x_bound: float = 1.0) -> dict:
    """Algorithm 7 (seed 003, line 3669; notes objpert-rdp.md §4 A2) ``count`` times: clip each record's loss at C
    (:func:`clipped`, Song et al.'s f_C with ‖x_i‖, Thm C.6.2 with E4_11's constants), draw b ~ N(0, σ²I_d) from
    ``generator`` (a torch.Generator, a seed, or None: fresh entropy), find θ̃ with ‖∇L^P_C(θ̃)‖ ≤ τ by ``solver``
    ("newton": batched damped Newton; "lbfgs": torch.optim.LBFGS, the thesis' choice; "sag": SAG with the periodic
    check of App. C.7), VERIFY ‖∇L^P_C(θ̃)‖ ≤ τ in float64 (PrecisionError otherwise: nothing is released), and
    release θ̃ + N(0, σ_out²I_d). Rows may have ‖x‖ ≤ ``x_bound``; the privacy of the release is objpert.thm4_4_1
    (``fast.objpert.amp.amp_rdp``; ``fast.objpert.calibration.amp_epsilon``) at C, λ and β = sup f''·x_bound²
    (returned as "beta"), for λ > β. Returns {"output", "theta_tilde", "b", "grad_norm", "work", "solver", "beta",
    "C"} (tensors with one row per run, on the records' device)."""
    X, y = _split_bounded(records, x_bound)
    base = get_loss(loss)
    base.check_labels(y)
    _check_positive(lam=lam, sigma=sigma, sigma_out=sigma_out, tau=tau, C=C)
    if solver not in SOLVERS:
        raise ParameterError(f"solver: expected one of {SOLVERS}, got {solver!r}")
    norms = torch.linalg.vector_norm(X, dim=1)
    closs = clipped(base, float(C), norms)
    gen = _generator(generator)
    B = _normal((int(count), X.shape[1]), sigma, gen, X)
    res = _approximate(X, y, closs, base, float(C) / norms, float(lam), B, float(tau), solver, gen)
    gn = torch.linalg.vector_norm(_gradient(X, y, closs, float(lam), B, res.theta), dim=-1)
    if not bool((gn <= tau).all()):  # Algorithm 7's privacy needs the stopping rule: refuse to release otherwise
        raise PrecisionError(f"alg7_amp: the {solver} solver returned ‖∇L^P_C(θ̃)‖ = {float(gn.max()):.6g} > τ = "
                             f"{tau:g}; nothing released")
    out = res.theta + _normal(tuple(res.theta.shape), sigma_out, gen, X)
    return {"output": out, "theta_tilde": res.theta, "b": B, "grad_norm": gn, "work": res.work, "solver": solver,
            "beta": base.beta * float(x_bound) ** 2, "C": float(C)}


def alg16_amp(records, loss, lam, sigma, sigma_out, tau, count: int = 1, generator=None) -> dict:
    """Algorithm 16 (AMP, Iyengar et al. 2019; seed 003 line 9890): :func:`alg7_amp` without clipping (the loss must
    be L-Lipschitz). RDP: objpert.thm_c6_1."""
    X, y = split_records(records)
    base = get_loss(loss)
    base.check_labels(y)
    gen = _generator(generator)
    B = _normal((int(count), X.shape[1]), sigma, gen, X)
    res = newton_batch(X, y, base, float(lam), B, stop_at=float(tau))
    out = res.theta + _normal(tuple(res.theta.shape), sigma_out, gen, X)
    return {"output": out, "theta_tilde": res.theta, "b": B, "grad_norm": res.grad_norm}
