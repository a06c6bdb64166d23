"""The random sub-Weibull projection of DC-DPSGD (seed 004 Algorithm 1 lines 6–8, L199–L201; notes
shared/notes/dc-dpsgd.md §4.1, §4.3) and the trace scores it defines, in torch float64.

Construction (Algorithm 1 line 6, L199: "Extract orthogonal vectors [v_1, …, v_k] from sub-Weibull distributions and
construct projection subspace with V Vᵀ = (1/k) Σ v_i v_iᵀ"; the text never says how orthogonal vectors are drawn
"from" a distribution). We follow the authors' public code (notes §4.3: ``Weibull(1.0, 1).sample([pd, k])`` then QR):

    W_{jl} = s_{jl} · λ · E_{jl}^θ,   E_{jl} ~ Exp(1) iid,   s_{jl} = ±1 fair signs (``symmetric=True``) or +1,
    V = Q of the thin QR W = QR, signs fixed by diag(R) > 0   (so Vᵀ V = I_k),

i.e. each entry is a (symmetrised) Weibull variable with scale λ and concentration 1/θ, which is sub-Weibull(θ)
(P(|W| > t) = exp(−(t/λ)^{1/θ}); Def A.1(1), L563). θ = 2 is the paper's default (G.1, L1796); the public code uses
concentration 1 (θ = 1), scale 1, no signs. ``form="orthonormal"`` returns Q (Theorem 5.2's Vᵀ V = I_k, L212:
scores in [0, 1]); ``form="averaged"`` returns Q/√k, so that V Vᵀ = (1/k) Σ q_i q_iᵀ exactly as printed on line 6
(scores in [0, 1/k]). V is public randomness, drawn afresh every step (line 6 sits inside the step loop).

Scores (lines 7–8, L200–L201): ĝ_i = g_i/‖g_i‖ and λ_i = tr(Vᵀ ĝ_i ĝ_iᵀ V) = ‖Vᵀ ĝ_i‖². A zero gradient has no
direction (line 7 divides by 0); we define ĝ_i = 0 there (score 0), and say so here rather than return NaN.
"""
from __future__ import annotations

import torch

from dpspec.reference.dc import spec
from dpspec.reference.errors import ParameterError

DTYPE = torch.float64


def check_k(k, d) -> tuple[int, int]:
    """(k, d) as ints: each an integer ≥ 1 (DomainError naming it) and k ≤ d (ParameterError naming both: k
    orthonormal columns do not fit in R^d; spec.K_AT_MOST_D, Algorithm 1 line 6, L199)."""
    k = spec.COUNT.check("k", k)
    d = spec.DIMENSION.check("d", d)
    if k > d:
        raise ParameterError(f"k = {k} > d = {d}: the projection needs {spec.K_AT_MOST_D.describe()}")
    return k, d


def subweibull_matrix(d: int, k: int, theta: float = 2.0, generator: torch.Generator | None = None, *,
                      scale: float = 1.0, symmetric: bool = True, device=None) -> torch.Tensor:
    """A (d, k) float64 matrix of iid entries s·λ·E^θ, E ~ Exp(1) (inverse CDF: E = −log U, U ~ U(0, 1]), s a fair
    sign when ``symmetric`` (else +1): Weibull(scale λ, concentration 1/θ), sub-Weibull(θ) (seed 004 Def A.1(1),
    L563; Algorithm 1 line 6, L199). Draws U first, then the signs, with ``generator``. θ > 0 and λ > 0 (DomainError
    naming them), k ≤ d (ParameterError)."""
    theta = float(spec.THETA.check("theta", theta))
    scale = float(spec.POSITIVE.check("scale", scale))
    k, d = check_k(k, d)
    u = 1.0 - torch.rand((d, k), generator=generator, dtype=DTYPE, device=device)  # in (0, 1]
    w = scale * torch.pow(-torch.log(u), theta)
    if symmetric:
        s = torch.randint(0, 2, (d, k), generator=generator, device=device).to(DTYPE) * 2.0 - 1.0
        w = w * s
    return w


def orthonormalise(w: torch.Tensor, form: str = "orthonormal") -> torch.Tensor:
    """Q of the thin QR of ``w`` (d, k), column signs fixed so that diag(R) > 0 (then Q is a function of w alone:
    numpy and torch agree to rounding), divided by √k when ``form="averaged"`` (Algorithm 1 line 6 as printed:
    V Vᵀ = (1/k) Σ q_i q_iᵀ). A rank-deficient w (probability 0 for continuous entries) is refused."""
    form = spec.PROJECTION_FORM.check("form", form)
    q, r = torch.linalg.qr(w.to(DTYPE), mode="reduced")
    diag = torch.diagonal(r)
    if not bool((diag.abs() > 0).all()) or not bool(torch.isfinite(q).all()):
        raise ParameterError("the sub-Weibull matrix is rank-deficient or not finite; cannot orthonormalise it")
    q = q * torch.sign(diag)
    return q / q.shape[1] ** 0.5 if form == "averaged" else q


def projection(d: int, k: int = 200, theta: float = 2.0, generator: torch.Generator | None = None, *,
               form: str = "orthonormal", scale: float = 1.0, symmetric: bool = True, device=None) -> torch.Tensor:
    """A fresh public projection V (d, k) (seed 004 Algorithm 1 line 6, L199; construction in the module docstring):
    orthonormalise(subweibull_matrix(d, k, θ, generator, scale, symmetric), form). Defaults: k = 200, θ = 2 (G.1,
    L1796), orthonormal columns. Bad input: θ ≤ 0, k < 1, k > d — one error each, naming the value."""
    return orthonormalise(subweibull_matrix(d, k, theta, generator, scale=scale, symmetric=symmetric, device=device),
                          form)


def directions(rows: torch.Tensor) -> torch.Tensor:
    """ĝ_i = g_i/‖g_i‖ per row (Algorithm 1 line 7, L200); a zero row stays 0 (its direction is undefined; score 0)."""
    norms = torch.linalg.vector_norm(rows, dim=1, keepdim=True)
    return torch.where(norms > 0, rows / torch.where(norms > 0, norms, torch.ones_like(norms)), torch.zeros_like(rows))


def trace_scores(V: torch.Tensor, dirs: torch.Tensor) -> torch.Tensor:
    """λ_i = tr(Vᵀ u_i u_iᵀ V) = ‖Vᵀ u_i‖² for each row u_i of ``dirs`` (B, d) (Algorithm 1 line 8, L201)."""
    if V.shape[0] != dirs.shape[1]:
        raise ParameterError(f"projection V has {V.shape[0]} rows but the directions have {dirs.shape[1]} coordinates")
    return (dirs.to(V.dtype) @ V).pow(2).sum(dim=1)
