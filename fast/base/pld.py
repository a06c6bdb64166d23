"""Tight accounting: privacy loss distributions (PLDs) with a rigorous two-sided discretisation, composed by FFT.

For a dominating pair (P, Q) of one step (fast/base/pld_pairs.py) with privacy loss L = log(dP/dQ) under P, the
privacy profile is delta(eps) = E_P[(1 - e^{eps - L})_+] = P(L > eps) - e^eps Q(L > eps); composition adds
independent losses. ``discretise`` puts one step's PLD on the lattice eps_k = k*step in two ways:

* side "upper" — the pessimistic PLD of Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect the dots: tighter
  discrete approximations of privacy loss distributions", PETS 2022 (arXiv 2207.04380v1, §3): each loss bucket
  (eps_k, eps_{k+1}] is split into atoms at its two ends keeping its P- and Q-mass, so the discrete delta(eps)
  interpolates the true one at every eps_k, linearly in e^eps; chords of a convex function lie above it, so the
  discrete pair dominates the true pair (a dilation), and domination survives composition (Dong, Roth & Su 2022,
  JRSS-B, Lemma C.1 / Blackwell). Losses below the grid are rounded up to its bottom; above it, to +inf.
* side "lower" — dpspec's optimistic counterpart: the chord of a segment exceeds delta by at most
  G_k = A_k C_k / (A_k + C_k) (A_k = P_k - e^{eps_k} Q_k, C_k = e^{eps_{k+1}} Q_k - P_k; the height of the triangle
  between the chord and the tangents at its ends, below which delta cannot go). Lowering every dot by
  g_k = max(G_{k-1}, G_k) puts every chord below delta; continued at the ends by tangent lines, the lowered
  polyline is the profile of a pair DOMINATED by (P, Q) — once its masses are >= 0 (negative ones, only seen in
  far tails, are pushed onto their neighbours keeping P- and Q-mass, which replaces a concave kink by its chord
  and only lowers the curve) — except for two off-grid kinks whose atoms are rounded DOWN (to -inf, dropped, and to
  the top point). Rounding losses down can only lower E[(1 - e^{eps - sum L})_+], so the composed result is a
  lower bound. Its error, like the upper side's, is second order in the step.
  (The construction and its proof are written out in docs/pld.md.)

``compose`` convolves PMFs on the common lattice by one real FFT per distinct PMF: the Fourier coefficients are
raised to their step counts (log-modulus and phase times the count) and multiplied, and one inverse FFT gives the
composition, on a window sized by a Chernoff bound on the composed loss (moment generating functions of the
discrete PMFs): the mass outside the window is bounded by ``tail``; the upper side adds it at +inf, the lower side
subtracts it (it may alias into the window). Floating-point error of the FFT path is covered by an allowance
eta per bin (ETA_FACTOR * u * (log2 N + total count) * the largest bin; the standard FFT error model, not a
proof), added to every upper mass and subtracted from every lower mass. Answers: ``delta(eps)`` and
``epsilon(delta)`` of the upper and the lower PMF; ``Sandwich`` holds both sides for both directions of add/remove
neighbours and answers intervals (max over directions on each side).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from dpspec.reference.errors import DomainError, ParameterError

from .._torch import DTYPE
from . import pld_pairs
from .pld_pairs import LossPair

UNIT_ROUNDOFF = 2.0 ** -53
ETA_FACTOR = 16.0
TAIL = 1e-30            # mass left outside one step's grid, per tail
COMPOSED_TAIL = 1e-30   # mass left outside the composed window, per tail (Chernoff bound)
MAX_BINS = 1 << 24      # one step's grid or the composed window larger than this: refuse (pass a larger step)
SIDES = ("upper", "lower")


@dataclass
class PMF:
    """A PLD on the lattice: P-mass ``masses[j]`` at loss (offset + j)*step, ``inf_mass`` at +inf and (lower side)
    ``dropped`` mass rounded down to -inf."""

    step: float
    offset: int
    masses: torch.Tensor
    inf_mass: float
    dropped: float
    side: str

    @property
    def losses(self) -> torch.Tensor:
        n = self.masses.numel()
        return (self.offset + torch.arange(n, dtype=DTYPE, device=self.masses.device)) * self.step


# ---------------------------------------------------------------------------------------------------------------
# one step: buckets and the two discretisations

def _bucket(log_up: torch.Tensor, log_down: torch.Tensor) -> torch.Tensor:
    """Masses of (t_k, t_{k+1}] from the log tails at the grid points, each from the smaller tail (no cancellation
    of two numbers near 1)."""
    up_k, up_next = log_up[:-1], log_up[1:]
    down_k, down_next = log_down[:-1], log_down[1:]
    # P(L > t_k) - P(L > t_{k+1}) = e^{up_k} (1 - e^{up_next - up_k}); likewise from the lower tail
    via_up = torch.exp(up_k) * -torch.expm1((up_next - up_k).nan_to_num(nan=-math.inf).clamp_max(0))
    via_down = torch.exp(down_next) * -torch.expm1((down_k - down_next).nan_to_num(nan=-math.inf).clamp_max(0))
    via_up = torch.where(torch.isneginf(up_k), torch.zeros_like(up_k), via_up)
    via_down = torch.where(torch.isneginf(down_next), torch.zeros_like(down_next), via_down)
    return torch.where(up_k < math.log(0.5), via_up, via_down).clamp_min(0)


def _grid(pair: LossPair, step: float, tail: float) -> tuple[int, int]:
    lo, hi = pair.support(tail)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ParameterError(f"{pair.name}: the loss support [{lo}, {hi}] is not finite at tail {tail:g}")
    k0 = math.floor(lo / step) - 1
    k1 = math.ceil(hi / step) + 1
    if k1 - k0 + 1 > MAX_BINS:
        raise ParameterError(f"{pair.name}: {k1 - k0 + 1} grid points at step {step:g} exceed {MAX_BINS}; "
                             "pass a larger grid_step")
    return k0, k1


def discretise_both(pair: LossPair, step: float, *, tail: float = TAIL,
                    device: torch.device | str | None = None) -> tuple[PMF, PMF]:
    """One step's (upper, lower) PLDs on the lattice of ``step`` (the module docstring says what each is)."""
    if not (isinstance(step, (int, float)) and 0 < step < math.inf):
        raise DomainError("grid_step", step, "a real number in (0, inf)")
    k0, k1 = _grid(pair, step, tail)
    t = torch.arange(k0, k1 + 1, dtype=DTYPE, device=device) * step
    p_up, p_down, q_up, q_down = pair.tails(t)
    P = _bucket(p_up, p_down)                                   # (n,) buckets between n+1 points
    log_Q = torch.log(_bucket(q_up, q_down))                    # Q-masses kept in log: e^{t_k} Q_k may be huge*tiny
    xQ = torch.exp(t[:-1] + log_Q)                              # e^{eps_k} Q_k
    em1 = math.expm1(step)
    A = (P - xQ).clamp_min(0)                                   # P_k - x_k Q_k >= 0
    C = (xQ * em1 - A).clamp_min(0)                             # x_{k+1} Q_k - P_k = x_k Q_k (e^step - 1) - A_k
    a = A / -math.expm1(-step)                                  # to eps_{k+1}: A x_{k+1} / (x_{k+1} - x_k)
    b = C / em1                                                 # to eps_k:     C x_k / (x_{k+1} - x_k)
    P_lo = float(torch.exp(p_down[0]))
    P_hi = float(torch.exp(p_up[-1]))
    Q_lo = float(torch.exp(q_down[0]))
    Q_hi = float(torch.exp(q_up[-1]))
    n = P.numel()
    m = torch.zeros(n + 1, dtype=DTYPE, device=t.device)
    m[:-1] += b
    m[1:] += a
    m[0] += P_lo
    # the tail above the lattice (P-mass at most ``tail``) is rounded up to +inf whole: connect-the-dots would split it
    # between the top and +inf with the mass at +inf = delta(eps_top) = P_hi - e^{eps_top} Q_hi, but that difference
    # of two nearly equal tiny numbers can round to 0, below the true delta further out (1e-84 at q = 1e-9)
    upper = PMF(step, k0, m, pair.inf_mass + P_hi, 0.0, "upper")
    lower = _lower(P, log_Q, A, C, a, b, t, step, P_lo, Q_lo, P_hi, Q_hi, pair.inf_mass, pair.minus_inf_mass, k0)
    return upper, lower


def discretise(pair: LossPair, step: float, side: str = "upper", *, tail: float = TAIL,
               device: torch.device | str | None = None) -> PMF:
    """One side of :func:`discretise_both`."""
    if side not in SIDES:
        raise DomainError("side", side, "'upper' or 'lower'")
    return discretise_both(pair, step, tail=tail, device=device)[SIDES.index(side)]


def _lower(P, log_Q, A, C, a, b, t, step, P_lo, Q_lo, P_hi, Q_hi, P_inf, Q_minf, k0) -> PMF:
    """The lower PMF (module docstring; docs/pld.md).

    phi = max(1 - x, P_inf, piece), where piece is the polyline through the lowered dots (x_k, v_k),
    v_k = delta(x_k) - g_k, g_k = max(G_{k-1}, G_k), continued by the tangent lines of delta through the end dots
    (slopes -Q(L > t_0) and -Q(L > t_n)); every part is <= delta, so phi <= delta. The lower curve is the greatest
    convex minorant h of phi: convex, h(0) = 1, h >= max(1 - x, P_inf), so the profile of a pair dominated by
    (P, Q). Its kinks at the dots are the masses; its off-grid kinks (crossings of the pieces, the tangents' ends)
    are atoms rounded DOWN to the dot below (dropped below the grid). Where the polyline is convex and above both
    lines (almost everywhere) h = phi and the kinks have the closed forms below; elsewhere (edges of the loss
    support, concave kinks) h is computed as the lower convex hull of phi's vertices on a window."""
    n = P.numel()
    em1, e = math.expm1(step), math.exp(step)
    dev = t.device
    # tails at the dots: S = above (incl. +inf for P), L = at or below
    rev = lambda z: torch.flip(torch.cumsum(torch.flip(z, (0,)), 0), (0,))  # noqa: E731
    SP = torch.cat([rev(P), P.new_zeros(1)]) + P_hi + P_inf
    log_SQ = torch.flip(torch.logcumsumexp(torch.flip(log_Q, (0,)), 0), (0,))
    log_SQ = torch.logaddexp(torch.cat([log_SQ, log_SQ.new_full((1,), -math.inf)]),
                             torch.full_like(t, math.log(Q_hi) if Q_hi > 0 else -math.inf))
    LP = torch.cat([P.new_zeros(1), torch.cumsum(P, 0)]) + P_lo
    log_LQ = torch.logcumsumexp(torch.cat([log_Q.new_full((1,), -math.inf), log_Q]), 0)
    log_LQ = torch.logaddexp(log_LQ, torch.full_like(t, math.log(Q_lo) if Q_lo > 0 else -math.inf))
    G = torch.where(A + C > 0, A * C / (A + C).clamp_min(1e-320), torch.zeros_like(A))
    g = torch.zeros(n + 1, dtype=DTYPE, device=dev)
    g[:-1] = G
    g[1:] = torch.maximum(g[1:], G)
    # closed-form kinks: dot 0 (left tangent -> chord 0), interior dots, dot n (chord n-1 -> right tangent)
    kink = torch.zeros(n + 1, dtype=DTYPE, device=dev)
    kink[:n] += b
    kink[1:] += a
    kink[:n] -= (g[1:] - g[:-1]) / em1
    kink[1:] += e * (g[1:] - g[:-1]) / em1
    xSQ = torch.exp(t + log_SQ)
    d = torch.exp(t + log_LQ) + torch.exp(t) * Q_minf - LP - g   # v_k - (1 - x_k)
    above_level = (SP - P_inf) - xSQ - g                          # v_k - P_inf
    v = torch.where(above_level < 0.25, P_inf + above_level, -torch.expm1(t) + d)
    left_atom = float(LP[0] + g[0])                                # tangent at dot 0 meets 1 - x: dropped
    right_atom = float(SP[-1] - P_inf - g[-1])                     # tangent at dot n meets P_inf: to dot n
    clean = (d >= 0) & (above_level >= 0) & (kink >= 0)
    masses = kink.clone()
    masses[-1] += max(right_atom, 0.0)
    dropped = max(left_atom, 0.0)
    if not bool(clean.all()):
        # x_k s_k: the chords' slopes times x_k (stable): -x_k Q(L > t_{k+1}) - (A_k + g_{k+1} - g_k)/(e^step - 1)
        xs = -torch.exp(t[:-1] + log_SQ[1:]) - (A + g[1:] - g[:-1]) / em1
        # the same slopes of v - (1 - x) (i.e. s_k + 1): x_k (1 - Q(L > t_{k+1})) - (A_k + g_{k+1} - g_k)/(e^step - 1)
        xs_d = torch.exp(t[:-1] + torch.logaddexp(log_LQ[1:], torch.full_like(log_LQ[1:], math.log(Q_minf)
                                                                                    if Q_minf > 0 else -math.inf))) \
            - (A + g[1:] - g[:-1]) / em1
        masses, dropped = _repair(masses, dropped, clean, t, v, d, above_level, xs, xs_d, log_SQ, P_inf, step)
    return PMF(step, k0, masses, P_inf, dropped, "lower")


MARGIN = 4


def _windows(bad: list[int], n: int) -> list[list[int]]:
    out: list[list[int]] = []
    for k in bad:
        lo, hi = max(0, k - MARGIN), min(n, k + MARGIN)
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def _lower_hull(px, py):
    """Indices of the lower convex hull of points sorted by x (monotone chain)."""
    hull: list[int] = []
    for i in range(len(px)):
        while len(hull) >= 2:
            i1, i2 = hull[-2], hull[-1]
            # keep i2 only if it lies strictly below the segment i1 -> i
            cross = (px[i2] - px[i1]) * (py[i] - py[i1]) - (py[i2] - py[i1]) * (px[i] - px[i1])
            if cross <= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def _repair(masses, dropped, clean, t, v, d, above_level, xs, xs_d, log_SQ, P_inf, step):
    """Replace the masses on windows around unclean dots by the kinks of the lower convex hull of phi's vertices
    there (see _lower); a window grows until the hull meets the untouched polyline convexly at its ends, and if it
    has not after 60 widenings it becomes the whole lattice: there the hull is the greatest convex minorant of phi
    itself (no ends to meet), the same construction, so still <= delta.

    The hull is computed in the coordinate y = phi - (1 - x) near the bottom of the profile (where phi is close to
    1 - x and its differences would be lost next to 1 - x: where x is small, or wherever phi is nearer 1 - x than
    P_inf on the whole window), y = phi - P_inf near the top, y = phi elsewhere: subtracting a line changes neither
    the hull nor its kinks."""
    import numpy as np

    n = v.numel() - 1
    tt = t.cpu().numpy()
    shift = float(tt[-1])
    scale = math.exp(shift)
    xsc = np.exp(tt - shift)                       # x scaled by e^{-t_n}; kinks x (slope jumps) are invariant
    vv, dd, ee = v.cpu().numpy(), d.cpu().numpy(), above_level.cpu().numpy()
    slope_v = xs.cpu().numpy() / xsc[:-1]          # chord slopes in scaled x
    slope_d = xs_d.cpu().numpy() / xsc[:-1]        # chord slopes of v - (1 - x) in scaled x
    m = masses.cpu().numpy().copy()
    sq = np.exp(log_SQ.cpu().numpy())
    one_minus_x = -np.expm1(tt)
    bad = np.nonzero(~clean.cpu().numpy())[0].tolist()
    for lo, hi in _windows(bad, n):
        for attempt in range(61):
            if attempt == 60:                    # not closed: the whole lattice (no ends to meet, so it closes)
                lo, hi = 0, n
            # phi - (1 - x) where phi is nearer 1 - x than P_inf on the whole window (not only where x is small:
            # at large sigma the support is narrow around 0, and the bottom of the profile, phi = 1 - x + tiny, has
            # v ~ 0.06; in y = v its kinks are below the rounding of v and the hull's end test is decided by noise)
            near_bottom = vv[lo:hi + 1].min() >= 0.5 or dd[lo:hi + 1].max() <= ee[lo:hi + 1].min()
            rep = "d" if near_bottom and hi < n else ("e" if vv[lo:hi + 1].max() <= 0.5 else "v")
            if rep == "d":      # y = phi - (1 - x)
                line = lambda x: 0.0  # noqa: E731
                level = lambda x: P_inf - 1 + x * scale  # noqa: E731
                ydot = lambda k: max(dd[k], 0.0, P_inf - one_minus_x[k])  # noqa: E731
                slope_out = slope_d
                start_y = 0.0
            elif rep == "e":    # y = phi - P_inf
                line = lambda x: 1 - x * scale - P_inf  # noqa: E731
                level = lambda x: 0.0  # noqa: E731
                ydot = lambda k: max(ee[k], one_minus_x[k] - P_inf, 0.0)  # noqa: E731
                slope_out = slope_v
                start_y = 1 - P_inf
            else:
                line = lambda x: 1 - x * scale  # noqa: E731
                level = lambda x: P_inf  # noqa: E731
                ydot = lambda k: max(vv[k], one_minus_x[k], P_inf)  # noqa: E731
                slope_out = slope_v
                start_y = 1.0
            px, py, where = [], [], []          # where: dot index, or -1 for an off-grid vertex
            if lo == 0:
                px.append(0.0); py.append(start_y); where.append(-1)
                if dd[0] > 0 and sq[0] < 1:      # the left tangent meets 1 - x below x_0
                    xc = (1 - vv[0] - sq[0] * np.exp(tt[0])) / (1 - sq[0])
                    px.append(xc / scale); py.append(line(xc / scale)); where.append(-1)
            for k in range(lo, hi + 1):
                if k > lo:                      # crossings of the chord k-1 -> k with 1 - x and with P_inf
                    for s0, s1, at in ((dd[k - 1], dd[k], line), (ee[k - 1], ee[k], level)):
                        if (s0 > 0) != (s1 > 0) and s0 != s1:
                            lam = s0 / (s0 - s1)
                            x = xsc[k - 1] + lam * (xsc[k] - xsc[k - 1])
                            px.append(x); py.append(at(x)); where.append(-1)
                px.append(xsc[k]); py.append(ydot(k)); where.append(k)
            if hi == n:                          # the right tangent down to P_inf, then flat
                if ee[n] > 0 and sq[n] > 0:
                    xz = xsc[n] + ee[n] / (sq[n] * scale)
                    px.append(xz); py.append(level(xz)); where.append(-1)
                far = 2 * max(px[-1], xsc[n]) + 1.0
                px.append(far); py.append(level(far)); where.append(-1)
            order = np.argsort(np.asarray(px), kind="stable")
            px = [px[i] for i in order]; py = [py[i] for i in order]; where = [where[i] for i in order]
            h = _lower_hull(px, py)
            hx = np.asarray([px[i] for i in h]); hy = np.asarray([py[i] for i in h])
            hs = np.diff(hy) / np.diff(hx)       # hull slopes (scaled x)
            ok = True
            if lo > 0:                           # must start at dot lo and bend up from the chord before it
                ok &= where[h[0]] == lo and hs[0] >= slope_out[lo - 1]
            if hi < n:
                ok &= where[h[-1]] == hi and hs[-1] <= slope_out[hi]
            if ok or (lo == 0 and hi == n):
                break
            lo, hi = max(0, lo - 4 * MARGIN), min(n, hi + 4 * MARGIN)
        new = np.zeros(hi - lo + 1)
        drop_here = 0.0
        for j, i in enumerate(h):
            before = hs[j - 1] if j > 0 else (slope_out[lo - 1] if lo > 0 else None)
            after = hs[j] if j < len(hs) else (slope_out[hi] if hi < n else None)
            if before is None or after is None:
                continue                          # the point (0, 1), or the far end of the flat ray
            mass = px[i] * (after - before)
            k = where[i]
            if k < 0:                             # off-grid: round down to the dot below
                below = np.searchsorted(xsc, px[i], side="right") - 1
                if below < lo:
                    if lo == 0:
                        drop_here += mass
                        continue
                    below = lo
                k = min(below, hi)
            new[k - lo] += mass
        if lo == 0:
            dropped = drop_here
        m[lo:hi + 1] = np.maximum(new, 0.0)
    return torch.from_numpy(m).to(masses.device), max(dropped, 0.0)


# ---------------------------------------------------------------------------------------------------------------
# composition

def _fast_len(n: int) -> int:
    """The smallest 2^a, 3*2^a or 5*2^a >= n."""
    best = 1 << max(0, (n - 1).bit_length())
    for f in (3, 5):
        k = 1 << max(0, math.ceil(math.log2(max(n / f, 1))))
        if f * k >= n:
            best = min(best, f * k)
    return best


PLAIN_SPAN = 600.0  # Composed._upper_dots: a plain cumulative sum of S_Q where the lattice spans less (no underflow)
TINY_MASS = 1e-250  # ... and no positive mass is below this
MGF_MARGIN = 1e-9  # added to each part's log MGF bound (covers the float rounding of its matrix product)
_LAMBDAS = tuple(10.0 ** (e / 2) for e in range(-8, 9))  # tilts in loss units, 1e-4 … 1e4 (2 per decade)


def _aligned(parts: list[tuple[PMF, int]]):
    """The parts' masses on one common lattice: a [parts × L] tensor whose column k is the loss (k0 + k)·step, k0 the
    smallest offset; with k0, the counts and the step (one batched pass for ``_window``)."""
    device = parts[0][0].masses.device
    k0 = min(p.offset for p, _ in parts)
    L = max(p.offset + p.masses.numel() for p, _ in parts) - k0
    M = torch.zeros(len(parts), L, dtype=DTYPE, device=device)
    for row, (p, _) in enumerate(parts):
        M[row, p.offset - k0:p.offset - k0 + p.masses.numel()] = p.masses
    counts = torch.tensor([float(c) for _, c in parts], dtype=DTYPE, device=device)
    return M, k0, counts, parts[0][0].step


def _log_mgfs(M: torch.Tensor, losses: torch.Tensor, centres: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """[parts × tilts] upper bounds on log Σ_k M[p, k] e^{lam (losses[k] − centres[p])}, all of one sign of lam, as
    one matrix product: with a = the largest loss (lam > 0) or the smallest (lam < 0), every e^{lam (l_k − a)} is
    <= 1 (no overflow); terms that underflow are each below 2^-1074, so L·2^-1074·(1 + 1) is added for them; the
    product's rounding (relative ≲ L·2^-53, L the number of losses) is covered by max(MGF_MARGIN, 2·L·2^-53)
    added to the log (MGF_MARGIN alone stops covering it above L ≈ 9·10⁶; MAX_BINS allows 2^24)."""
    a = losses[-1] if float(lam[0]) > 0 else losses[0]
    E = torch.exp(lam.unsqueeze(0) * (losses - a).unsqueeze(1))               # [L × tilts], entries in [0, 1]
    S = M @ E + losses.numel() * 2.0 ** -1073
    margin = max(MGF_MARGIN, 2.0 * losses.numel() * 2.0 ** -53)
    return lam.unsqueeze(0) * (a - centres).unsqueeze(1) + torch.log(S) + margin


def _window(parts: list[tuple[PMF, int]], tail: float) -> tuple[float, float]:
    """(lo, hi): a composed-loss window outside which the composed measure has at most ``tail`` on each side
    (Chernoff: P(S − c >= u) <= E[e^{lam (S − c)}] e^{-lam u} for every lam > 0, and the mirror; c = Σ count·(mean of
    the part), the MGF of the composition = the product of the parts' MGFs to their counts). Each part's MGF is
    computed exactly at every tilt of _LAMBDAS, all parts at once (``_log_mgfs``: one matrix product), and the best
    tilt per side is used. (A bound that placed blocks of bins at a block end, as before, is cheaper per part, but
    its slack lam·(block width) is multiplied by the step count: at the headline, 10⁴ steps, it widened the
    composed window from about [-9, 13] to [-50, 61], five times the bins.)"""
    M, k0, counts, step = _aligned(parts)
    device = M.device
    lam = torch.tensor(_LAMBDAS, dtype=DTYPE, device=device)
    losses = (k0 + torch.arange(M.shape[1], dtype=DTYPE, device=device)) * step
    total = M.sum(1)
    centres = torch.where(total > 0, (M @ losses) / total.clamp_min(1e-300), torch.zeros_like(total))
    centre_total = float(counts @ centres)
    log_tail = math.log(tail)
    up = counts @ _log_mgfs(M, losses, centres, lam)
    down = counts @ _log_mgfs(M, losses, centres, -lam)
    hi = centre_total + float(torch.min((up - log_tail) / lam))
    lo = centre_total - float(torch.min((down - log_tail) / lam))
    return lo, hi


@dataclass
class Composed:
    """A composed PLD on the lattice (one side): P-mass ``masses[j]`` at loss (offset + j)*step, ``inf_mass`` at
    +inf, ``slack`` (upper side: 0; lower side: mass that may have aliased into the window, subtracted from every
    delta), ``eta`` the floating-point allowance per bin already applied to ``masses``."""

    step: float
    offset: int
    masses: torch.Tensor
    inf_mass: float
    side: str
    slack: float = 0.0
    eta: float = 0.0
    bins: int = field(default=0)

    @property
    def losses(self) -> torch.Tensor:
        return (self.offset + torch.arange(self.masses.numel(), dtype=DTYPE, device=self.masses.device)) * self.step

    def _tails(self):
        """(S_P, log S_Q) with S_P[j] = sum_{i >= j} m_i, log S_Q[j] = log sum_{i >= j} m_i e^{-l_i}; index n: 0
        (computed once)."""
        cached = self.__dict__.get("_tails_cache")
        if cached is not None:
            return cached
        self.__dict__["_tails_cache"] = self._compute_tails()
        return self.__dict__["_tails_cache"]

    def _compute_tails(self):
        m = self.masses
        sp = torch.flip(torch.cumsum(torch.flip(m, (0,)), 0), (0,))
        logq = torch.log(m) - self.losses
        lsq = torch.flip(torch.logcumsumexp(torch.flip(logq, (0,)), 0), (0,))
        zero = torch.zeros(1, dtype=DTYPE, device=m.device)
        return torch.cat([sp, zero]), torch.cat([lsq, zero - math.inf])

    def delta(self, eps) -> torch.Tensor:
        """delta(eps) of this side, for a tensor (or number) of eps (any real)."""
        eps = torch.as_tensor(eps, dtype=DTYPE, device=self.masses.device)
        sp, lsq = self._tails()
        l = self.losses
        # the first index with l_j > eps
        j = torch.searchsorted(l, eps.reshape(-1), right=True)
        value = sp[j] - torch.exp(eps.reshape(-1) + lsq[j]).nan_to_num(nan=0.0)
        value = value + self.inf_mass - self.slack
        return value.clamp(0, 1).reshape(eps.shape)

    def epsilon(self, delta: float) -> float:
        """The smallest eps >= 0 with delta(eps) <= ``delta`` (inf when the mass at +inf alone exceeds it)."""
        target = delta - self.inf_mass + self.slack
        if target <= 0:
            return math.inf
        l, sp, lsq, d, below = self._upper_dots()
        ok = torch.nonzero(d <= target, as_tuple=True)[0]
        if ok.numel() == 0:  # pragma: no cover - d at the last point is 0
            return math.inf
        j = int(ok[0])
        # on [l_{j-1}, l_j] (on (-inf, l_0] for j = 0), delta = S_P[j] - e^eps S_Q[j]: solve it for target
        rest = float(sp[j]) - target
        eps = math.log(rest) - float(lsq[j]) if rest > 0 else -math.inf
        eps = min(eps, float(l[j]))
        if j > 0:
            eps = max(eps, float(l[j - 1]))
        elif below:  # the part starts at l = -step: the lattice point below it is l - step < 0, so eps < 0 here
            eps = max(eps, float(l[0]) - self.step)
        return max(eps, 0.0)

    def _upper_dots(self):
        """(l, S_P, log S_Q, d, cut) as in ``_tails``/``_dots`` but on the part of the lattice with l >= -step only
        (``cut``: whether a part below was left out): an eps >= 0 is decided there, since S_P[j] and S_Q[j] sum
        over i >= j only. S_Q is a plain cumulative sum of m_i e^{-(l_i - l_0)} (scaled by e^{-l_0}) where the
        part spans less than PLAIN_SPAN in loss and no positive mass is below TINY_MASS (nothing overflows; a term
        near the span limit may underflow, which only lowers S_Q: conservative on the upper side, and on the lower
        side it moves δ by less than n·e^{PLAIN_SPAN}·2^-1075 ≈ n·1e-63), else the log-space sum of ``_tails``
        (computed once)."""
        cached = self.__dict__.get("_upper_cache")
        if cached is not None:
            return cached
        start = max(0, -1 - self.offset)
        if start >= self.masses.numel():  # every finite loss lies below -step: read the whole lattice
            start = 0
        cut = start > 0
        m = self.masses[start:]
        l = (self.offset + start + torch.arange(m.numel(), dtype=DTYPE, device=m.device)) * self.step
        zero = m.new_zeros(1)
        sp = torch.cat([torch.flip(torch.cumsum(torch.flip(m, (0,)), 0), (0,)), zero])
        span = float(l[-1] - l[0]) if m.numel() else 0.0
        positive = m[m > 0]
        if span < PLAIN_SPAN and (positive.numel() == 0 or float(positive.min()) >= TINY_MASS):
            sq = torch.flip(torch.cumsum(torch.flip(m * torch.exp(-(l - l[0])), (0,)), 0), (0,))
            lsq = torch.cat([torch.log(sq) - l[0], zero - math.inf])
        else:
            full_sp, full_lsq = self._tails()
            sp, lsq = full_sp[start:], full_lsq[start:]
        d = sp[1:] - torch.exp(l + lsq[1:]).nan_to_num(nan=0.0)
        cached = self.__dict__["_upper_cache"] = (l, sp, lsq, d, cut)
        return cached

    def _dots(self):
        """(l_j, the finite part of delta at l_j = S_P[j+1] − e^{l_j} S_Q[j+1], S_Q[j+1]) at the lattice points
        (computed once; ``epsilon`` and ``tradeoff`` read them)."""
        cached = self.__dict__.get("_dots_cache")
        if cached is None:
            sp, lsq = self._tails()
            l = self.losses
            d = sp[1:] - torch.exp(l + lsq[1:]).nan_to_num(nan=0.0)
            cached = self.__dict__["_dots_cache"] = (l, d, torch.exp(lsq[1:]))
        return cached

    def tradeoff(self, alpha) -> torch.Tensor:
        """The trade-off curve f(α) = sup_ε max(0, 1 − δ(ε) − e^ε α) of this side's profile (Dong, Roth & Su 2022,
        Prop. 2.12: a family of (ε, δ(ε)) guarantees and its trade-off function). From the upper PMF (a
        dominating pair) a lower bound on the true f, from the lower PMF an upper bound. The sup over ε of a
        concave function of e^ε is at the lattice point where Q(L > l) crosses α."""
        alpha = torch.as_tensor(alpha, dtype=DTYPE, device=self.masses.device)
        l, d, sq_next = self._dots()
        d = (d + self.inf_mass - self.slack).clamp(0, 1)
        # sq_next is non-increasing; j* = the first j with Q(L > l_j) <= α
        j = torch.searchsorted(-sq_next, -alpha.reshape(-1), right=False).clamp_max(l.numel() - 1)
        best = 1 - d[j] - torch.exp(l[j]) * alpha.reshape(-1)
        j1 = (j - 1).clamp_min(0)  # the neighbour on the other side of the crossing (the max is at one of them)
        best = torch.maximum(best, 1 - d[j1] - torch.exp(l[j1]) * alpha.reshape(-1))
        floor = (1 - float(self.masses.sum()) - self.inf_mass + self.slack) if self.side == "lower" else 0.0
        f = torch.maximum(best, torch.full_like(best, max(floor, 0.0)))
        return torch.minimum(f.clamp_min(0), 1 - alpha.reshape(-1)).reshape(alpha.shape)

    def gdp_mu(self, alpha_range: tuple[float, float] = (1e-6, 1 - 1e-6)) -> float:
        """sup Φ⁻¹(1 − α) − Φ⁻¹(f(α)) over the vertices of this side's trade-off curve with α in ``alpha_range``:
        from the upper PMF the smallest μ with G_μ <= (its f) <= the true f on that range — a GDP parameter the
        composition satisfies there (inf when its f reaches 0 inside the range: the lattice's truncation cannot
        certify more) — and from the lower PMF a lower bound on the best such μ (Dong, Roth & Su 2022, Def. 2.7;
        G_μ is convex and f piecewise linear, so the vertices and the range's ends decide)."""
        a_lo, a_hi = alpha_range
        _, _, sq_next = self._dots()
        inside = (sq_next > a_lo) & (sq_next < a_hi)
        alpha = torch.cat([sq_next[inside], torch.tensor([a_lo, a_hi], dtype=DTYPE, device=sq_next.device)])
        f = self.tradeoff(alpha)
        if bool((f <= 0).any()):
            return math.inf
        z = torch.special.ndtri(1 - alpha) - torch.special.ndtri(f)
        return max(0.0, float(z.max()))


def _integer_powers_product(F: torch.Tensor, counts: list[int]) -> torch.Tensor:
    """prod_i F[i]^counts[i] for complex rows and integer counts >= 1: the rows of equal count are multiplied first
    (a plain product: 100 distinct σ × 100 steps each need one complex log and exp, not 100), then each product is
    raised to its count as exp(c log P) (c an integer, so the branch of the complex log does not matter; binary
    exponentiation was measured slower here: its large complex temporaries cost more than one complex log). A
    product of moduli <= 1 that underflows to 0 stands for a coefficient below 1e-300, far under the FFT allowance."""
    out = None
    for c in sorted(set(counts)):
        rows = [i for i, n in enumerate(counts) if n == c]
        P = F[rows[0]] if len(rows) == 1 else F[rows].prod(0)
        if c != 1:
            P = torch.exp(c * torch.log(P))
        out = P if out is None else out * P
    return out


def compose(parts: list[tuple[PMF, int]], *, tail: float = COMPOSED_TAIL) -> Composed:
    """The composition of ``count`` copies of each PMF (one side, one lattice step) by FFT."""
    if not parts:
        raise ParameterError("nothing to compose")
    step, side = parts[0][0].step, parts[0][0].side
    if any(p.step != step or p.side != side for p, _ in parts):
        raise ParameterError("PMFs of one composition must share the lattice step and the side")
    device = parts[0][0].masses.device
    base = sum(c * p.offset for p, c in parts)
    support = sum(c * (p.masses.numel() - 1) for p, c in parts) + 1
    total_count = sum(c for _, c in parts)
    lo, hi = _window(parts, tail)
    j_lo = max(0, math.floor(lo / step) - base)
    j_hi = min(support - 1, math.ceil(hi / step) - base)
    exact_window = j_lo == 0 and j_hi == support - 1
    width = j_hi - j_lo + 1
    if width > MAX_BINS:
        raise ParameterError(f"the composed PLD needs {width} bins at step {step:g} (more than {MAX_BINS}); "
                             "pass a larger grid_step")
    if len(parts) == 1 and parts[0][1] == 1:
        p = parts[0][0]
        out = p.masses[j_lo:j_hi + 1].clone()
        eta = 0.0
    else:
        N = _fast_len(width)
        spectrum = None
        chunk = max(1, (1 << 24) // N)  # PMFs transformed together (memory: chunk x N doubles)
        for i in range(0, len(parts), chunk):
            block = parts[i:i + chunk]
            a = torch.zeros(len(block), N, dtype=DTYPE, device=device)
            for row, (p, _) in enumerate(block):
                if p.masses.numel() <= N:
                    a[row, :p.masses.numel()] = p.masses
                else:  # a lattice longer than the window: fold it (the aliased mass is within the tail bound)
                    a[row].index_add_(0, torch.arange(p.masses.numel(), device=device) % N, p.masses)
            F = torch.fft.rfft(a, n=N, dim=1)
            del a
            part = _integer_powers_product(F, [c for _, c in block])
            spectrum = part if spectrum is None else spectrum * part
        full = torch.fft.irfft(spectrum, n=N)
        out = torch.roll(full, -(j_lo % N))[:width]
        eta = ETA_FACTOR * UNIT_ROUNDOFF * (math.log2(N) + total_count) * float(full.abs().max())
    # P(some step's loss is +inf) = 1 - prod (1 - m_inf)^c, formed in log space (tiny masses must not round away)
    inf_any = -math.expm1(sum(c * math.log1p(-p.inf_mass) for p, c in parts))
    tail_total = 0.0 if exact_window else tail
    if side == "upper":
        masses = (out + eta).clamp_min(0)
        return Composed(step, base + j_lo, masses, min(1.0, inf_any + tail_total), "upper", 0.0, eta, width)
    drop_any = -math.expm1(sum(c * math.log1p(-p.dropped) for p, c in parts))
    masses = (out - eta).clamp_min(0)
    return Composed(step, base + j_lo, masses, max(0.0, inf_any - drop_any), "lower",
                    2 * tail_total, eta, width)


# ---------------------------------------------------------------------------------------------------------------
# both sides, both directions

@dataclass
class Sandwich:
    """Upper and lower composed PLDs for each direction ("remove", "add"); answers are maxima over directions."""

    upper: dict[str, Composed]
    lower: dict[str, Composed]
    step: float

    def delta_interval(self, eps: float) -> tuple[float, float]:
        lo = max(float(c.delta(eps)) for c in self.lower.values())
        hi = max(float(c.delta(eps)) for c in self.upper.values())
        return lo, max(lo, hi)

    def epsilon_interval(self, delta: float) -> tuple[float, float]:
        lo = max(c.epsilon(delta) for c in self.lower.values())
        hi = max(c.epsilon(delta) for c in self.upper.values())
        return lo, max(lo, hi)

    def tradeoff_interval(self, alpha) -> tuple[torch.Tensor, torch.Tensor]:
        """(lower, upper) bounds on the composition's trade-off curve at ``alpha`` (min over directions)."""
        lo = torch.stack([c.tradeoff(alpha) for c in self.upper.values()]).min(0).values
        hi = torch.stack([c.tradeoff(alpha) for c in self.lower.values()]).min(0).values
        return lo, torch.maximum(lo, hi)

    def gdp_mu_interval(self, alpha_range: tuple[float, float] = (1e-6, 1 - 1e-6)) -> tuple[float, float]:
        """(lower, upper): the best μ with G_μ <= the composition's trade-off curve on ``alpha_range`` lies between
        (max over directions); upper = inf when the lattice cannot certify one."""
        lo = max(c.gdp_mu(alpha_range) for c in self.lower.values())
        hi = max(c.gdp_mu(alpha_range) for c in self.upper.values())
        return lo, max(lo, hi)


def directions_of(groups: list[tuple[dict[str, LossPair], int]]) -> list[str]:
    """The directions present in ``groups``."""
    return sorted({d for pairs, _ in groups for d in pairs})


def compose_direction(groups: list[tuple[dict[str, LossPair], int]], step: float, direction: str, *,
                      device: torch.device | str | None = None, cache: dict | None = None,
                      tail: float = COMPOSED_TAIL) -> tuple[Composed, Composed]:
    """(upper, lower) composition of ``groups`` = [({direction: pair}, count), ...] in one direction (a group
    whose pair is the same in both directions may give it once, under either key); ``cache`` (id of a pair → its
    two PMFs) shares discretisations between directions. ``tail``: the mass the composed window may leave out on
    each side; each step's lattice leaves out at most tail/(10·T) per side (T the total count), so that the
    per-step tails, which the window's Chernoff bound sees, stay below what the composition may leave out."""
    cache = {} if cache is None else cache
    total = sum(count for _, count in groups)
    step_tail = max(tail / (10 * total), 1e-300)
    ups, lows = [], []
    for pairs, count in groups:
        pair = pairs.get(direction) or next(iter(pairs.values()))
        key = (id(pair), step, step_tail)
        if key not in cache:
            cache[key] = discretise_both(pair, step, tail=step_tail, device=device)
        up, low = cache[key]
        ups.append((up, count))
        lows.append((low, count))
    return compose(ups, tail=tail), compose(lows, tail=tail)


def sandwich(groups: list[tuple[dict[str, LossPair], int]], step: float, *,
             device: torch.device | str | None = None) -> Sandwich:
    """Compose ``groups`` = [({direction: pair}, count), ...] on the lattice of ``step``: both sides, every
    direction present."""
    upper, lower, cache = {}, {}, {}
    for d in directions_of(groups):
        upper[d], lower[d] = compose_direction(groups, step, d, device=device, cache=cache)
    return Sandwich(upper, lower, step)


def sgm_pld(q: float, sigma: float, steps: int, *, direction: str = "max", grid_step: float = 1e-3,
            device: torch.device | str | None = None) -> Sandwich:
    """The sandwich of ``steps`` Poisson-subsampled Gaussian steps (q = 1: the Gaussian mechanism)."""
    dirs = ("remove", "add") if direction == "max" else (direction,)
    pairs = {d: pld_pairs.sgm_pair(q, sigma, d) for d in dirs}
    return sandwich([(pairs, int(steps))], grid_step, device=device)


# ---------------------------------------------------------------------------------------------------------------
# catalogue-facing evaluators (elementwise over broadcast inputs; each element is one composition)

GRID_STEP = 0.125  # the catalogue evaluators' default lattice step (the accountant chooses its own, see there)


def _sgm_elementwise(fn, value, value_name, value_domain, q, sigma, steps, grid_step):
    from dpspec.reference.base.spec import PLD_GRID_STEP, PLD_NOISE, PLD_STEPS
    from dpspec.reference.domains import SAMPLING_RATE

    from .._torch import params

    v, qq, s, n, g = params(**{value_name: (value, value_domain)}, q=(q, SAMPLING_RATE), sigma=(sigma, PLD_NOISE),
                            steps=(steps, PLD_STEPS), grid_step=(grid_step, PLD_GRID_STEP))
    out = torch.empty_like(v)
    flat = out.reshape(-1)
    rows = zip(*(t.reshape(-1).tolist() for t in (v, qq, s, n, g)))
    for i, (vi, qi, si, ni, gi) in enumerate(rows):
        flat[i] = fn(_sgm_cached(qi, si, int(ni), gi), vi)
    return out


_CACHE: dict[tuple, Sandwich] = {}


def _sgm_cached(q: float, sigma: float, steps: int, step: float) -> Sandwich:
    key = (q, sigma, steps, step)
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = sgm_pld(q, sigma, steps, grid_step=step)
    return _CACHE[key]


def pld_sgm_delta(eps, q, sigma, steps, grid_step=GRID_STEP) -> torch.Tensor:
    """Upper delta(eps) of ``steps`` Poisson-subsampled Gaussian steps (both directions, max): the connect-the-dots
    PLD at ``grid_step`` composed by FFT (a certified upper bound, up to the FFT allowance)."""
    from dpspec.reference.domains import EPS
    return _sgm_elementwise(lambda s, e: s.delta_interval(e)[1], eps, "eps", EPS, q, sigma, steps, grid_step)


def pld_sgm_delta_lower(eps, q, sigma, steps, grid_step=GRID_STEP) -> torch.Tensor:
    """Lower delta(eps) (the lower PLD's), the companion of :func:`pld_sgm_delta`."""
    from dpspec.reference.domains import EPS
    return _sgm_elementwise(lambda s, e: s.delta_interval(e)[0], eps, "eps", EPS, q, sigma, steps, grid_step)


def pld_sgm_epsilon(delta, q, sigma, steps, grid_step=GRID_STEP) -> torch.Tensor:
    """Upper eps(delta) (inf when it cannot be certified), the inverse of :func:`pld_sgm_delta`."""
    from dpspec.reference.base.spec import PLD_DELTA
    return _sgm_elementwise(lambda s, d: s.epsilon_interval(d)[1], delta, "delta", PLD_DELTA, q, sigma, steps,
                            grid_step)


def pld_sgm_epsilon_lower(delta, q, sigma, steps, grid_step=GRID_STEP) -> torch.Tensor:
    """Lower eps(delta), the companion of :func:`pld_sgm_epsilon`."""
    from dpspec.reference.base.spec import PLD_DELTA
    return _sgm_elementwise(lambda s, d: s.epsilon_interval(d)[0], delta, "delta", PLD_DELTA, q, sigma, steps,
                            grid_step)
