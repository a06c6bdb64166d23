"""dpspec.fast.Accountant: composition vs the mpmath reference, known vectors, the Opacus-familiar interface and
adapter, agreement with Opacus' RDPAccountant and dp-accounting's RdpAccountant, noise calibration, bad input.

Vectors: /work/shared/notes/peer-accountants.md §1.5 (V7, V12). Peers are compared at the same orders to 1e-9
relative where they are right; where one is wrong (B1: Opacus' fractional-order series; B3: dp-accounting's
absolute-value series) the test asserts against the mpmath reference instead.
"""
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

from dpspec.fast.accountant import OPACUS_ALPHAS, Accountant, calibrate_sigma, sgm_epsilon
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError, ParameterError
from _helpers import reference_value, relative_error

catalogue.load_all()


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # the SGM quadrature is many small elementwise kernels: on a shared 2-core machine intra-op threads only
    # contend (measured 10-20x slower); one thread, restored afterwards
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def ref(statement_id, **p):
    return reference_value(statement_id, as_float=True, **p)


rel = relative_error


# ---------------------------------------------------------------------------------------------------------------
# known vectors

def test_v12_headline_setting():
    # V12 (q=0.01, σ=1, T=10^4, δ=1e-5): ε(α=4.1) = 6.71273829755 (Opacus' grid point); α* = 4.135065099,
    # ε* = 6.71227176253 (continuous search)
    acc = Accountant(method="rdp").sgm(q=0.01, sigma=1.0, steps=10_000)
    eps, alpha = acc.get_privacy_spent(delta=1e-5, alphas=OPACUS_ALPHAS)
    assert alpha == pytest.approx(4.1) and rel(eps, 6.71273829755) < 1e-11
    eps, alpha = acc.get_privacy_spent(delta=1e-5)
    assert rel(eps, 6.71227176253) < 1e-11 and abs(alpha - 4.135065099) < 1e-4


@pytest.mark.parametrize("alpha, log_a", [(58.9, 2.102050711014788), (59.05, 2.113461520701088),
                                          (59.3, 2.132555647913206)])
def test_v7_where_opacus_is_wrong(alpha, log_a):
    # V7 (q=0.4, σ=12): log A = (α−1)ε(α) > 0 (mpmath reference; tests/base/test_sgm.py pins it against base.sgm_rdp);
    # Opacus 1.6.0 returns ≈ −30 here (bug B1), so the check is against the reference, not the peer.
    acc = Accountant(method="rdp").sgm(q=0.4, sigma=12.0, steps=3)
    assert rel(float(acc.rdp(alpha)), 3 * log_a / (alpha - 1)) < 1e-10


# ---------------------------------------------------------------------------------------------------------------
# composition vs the reference

def test_mixed_composition_matches_reference():
    acc = Accountant(method="rdp")
    acc.sgm(q=torch.tensor([0.01, 0.02, 0.01], dtype=torch.float64),
            sigma=torch.tensor([1.0, 0.9, 1.0], dtype=torch.float64), steps=torch.tensor([5, 7, 3]))
    acc.gaussian(sigma=3.0, steps=2).laplace(b=4.0, steps=3)
    alphas = torch.tensor([1.5, 4.0, 17.0])
    got = acc.rdp(alphas)
    for i, a in enumerate(alphas.tolist()):
        want = (8 * ref("base.sgm_rdp", alpha=a, q=0.01, sigma=1.0) + 7 * ref("base.sgm_rdp", alpha=a, q=0.02, sigma=0.9)
                + 2 * ref("base.gaussian_rdp", alpha=a, sigma=3.0) + 3 * ref("base.laplace_rdp", alpha=a, b=4.0))
        assert rel(float(got[i]), want) < 1e-10


@settings(max_examples=4, deadline=None)
@given(alpha=st.floats(1 + 1e-6, 1e4), log_q=st.floats(math.log(1e-8), 0.0), sigma=st.floats(0.3, 50.0),
       steps=st.integers(1, 10**6))
def test_sgm_curve_is_the_reference_max_direction(alpha, log_q, sigma, steps):
    # remove direction (the accountant's) = max of both directions (the reference's default), MTZ19 Thm 5
    q = math.exp(log_q)
    got = float(Accountant(method="rdp").sgm(q=q, sigma=sigma, steps=steps).rdp(alpha))
    assert rel(got, steps * ref("base.sgm_rdp", alpha=alpha, q=q, sigma=sigma)) < 1e-9


def test_schedule_equals_stepwise_recording():
    gen = torch.Generator().manual_seed(0)
    q = 0.005 + 0.015 * torch.rand(40, generator=gen, dtype=torch.float64)
    sigma = 0.8 + 0.4 * torch.rand(40, generator=gen, dtype=torch.float64)
    q[10:20], sigma[10:20] = q[10], sigma[10]  # a run of equal steps is merged
    a, b = Accountant(method="rdp").sgm(q=q, sigma=sigma), Accountant(method="rdp")
    for qq, s in zip(q.tolist(), sigma.tolist()):
        b.step(noise_multiplier=s, sample_rate=qq)
    assert a.history == b.history and len(a.history) == 31 and len(a) == 40
    assert a.get_epsilon(1e-6, alphas=[2, 3.5, 8]) == b.get_epsilon(1e-6, alphas=[2, 3.5, 8])


def test_delta_inverts_epsilon():
    acc = Accountant(method="rdp").sgm(q=0.02, sigma=1.1, steps=500).laplace(b=20.0, steps=4)
    eps = acc.epsilon(1e-6)
    d = acc.delta(eps)
    assert d <= 1e-6 * (1 + 1e-8) and d >= 1e-6 * (1 - 1e-6)
    assert acc.delta(0.0) <= 1.0 and Accountant(method="rdp").delta(1.0) == 0.0 and Accountant(method="rdp").epsilon(1e-5) == 0.0


def test_continuous_search_never_looser_than_opacus_orders():
    acc = Accountant(method="rdp").sgm(q=torch.tensor([0.001, 0.05]), sigma=torch.tensor([0.7, 2.0]), steps=torch.tensor([3000, 200]))
    for delta in (1e-3, 1e-12):
        assert acc.epsilon(delta) <= acc.epsilon(delta, alphas=OPACUS_ALPHAS)


# ---------------------------------------------------------------------------------------------------------------
# PTR steps (fast/ptr/bounds.py of helper F2)

PTR = dict(sigma1=8.0, sigma2=4.0, b=1.0, delta0=1e-8)  # ptr-rdp.md §2.10: (C1)–(C4) hold for integer α ≤ 10 at q=0.01


def test_ptr_steps_compose_the_reference():
    acc = Accountant(method="rdp").ptr(steps=3, **PTR)
    for a in (2.0, 7.5):
        assert rel(float(acc.rdp(a)), 3 * ref("ptr.thm4_3", alpha=a, **PTR)) < 1e-10


def test_subsampled_ptr_takes_the_tightest_valid_bound():
    acc = Accountant(method="rdp").ptr_subsampled(q=0.01, steps=2, **PTR)
    inside = min(ref("ptr.thm4_4", alpha=4, q=0.01, **PTR), ref("ptr.zw19_upper", alpha=4, q=0.01, **PTR))
    assert rel(float(acc.rdp(4.0)), 2 * inside) < 1e-9
    outside = ref("ptr.zw19_upper", alpha=30, q=0.01, **PTR)  # α = 30 violates (C1)–(C4): the black-box bound
    assert rel(float(acc.rdp(30.0)), 2 * outside) < 1e-9


# ---------------------------------------------------------------------------------------------------------------
# noise calibration

@pytest.mark.parametrize("q, steps", [(1.0, 10), (1.0, 1)])
def test_calibrate_sigma_is_smallest(q, steps):
    targets = torch.tensor([0.5, 2.0, 8.0])
    sigma = calibrate_sigma(targets, 1e-5, q, steps)
    assert bool((sgm_epsilon(sigma, q, steps, 1e-5) <= targets).all())
    assert bool((sgm_epsilon(sigma * (1 - 1e-6), q, steps, 1e-5) > targets).all())


@pytest.mark.slow
def test_calibrate_sigma_subsampled():
    sigma = calibrate_sigma(torch.tensor([1.0, 4.0]), 1e-5, 0.01, 1000)
    assert bool((sgm_epsilon(sigma, 0.01, 1000, 1e-5) <= torch.tensor([1.0, 4.0])).all())
    assert bool((sgm_epsilon(sigma * (1 - 1e-6), 0.01, 1000, 1e-5) > torch.tensor([1.0, 4.0])).all())


def test_calibrate_unreachable_target():
    with pytest.raises(DomainError) as err:
        calibrate_sigma(1e-4, 1e-5, 1.0, 10**6, hi=10.0)
    assert err.value.name == "target_eps" and err.value.value == pytest.approx(1e-4)


# ---------------------------------------------------------------------------------------------------------------
# interface, state, bad input

@pytest.mark.parametrize("call, name, value", [
    (lambda a: a.step(noise_multiplier=-1.0, sample_rate=0.1), "sigma", -1.0),
    (lambda a: a.step(noise_multiplier=1.0, sample_rate=1.5), "q", 1.5),
    (lambda a: a.sgm(q=torch.tensor([0.1, 0.0]), sigma=1.0), "q", 0.0),
    (lambda a: a.sgm(q=0.1, sigma=1.0, steps=2.5), "steps", 2.5),
    (lambda a: a.laplace(b=float("nan")), "b", float("nan")),
    (lambda a: a.ptr(sigma1=8.0, sigma2=4.0, b=1.0, delta0=0.7), "delta0", 0.7),
    (lambda a: a.ptr_subsampled(q=1.0, **PTR), "q", 1.0),
    (lambda a: a.get_epsilon(0.0), "delta", 0.0),
    (lambda a: a.delta(-1.0), "eps", -1.0),
    (lambda a: a.gaussian(1.0).get_epsilon(1e-5, alphas=[0.5, 2]), "alphas", 0.5),
])
def test_bad_input_names_the_value(call, name, value):
    with pytest.raises(DomainError) as err:
        call(Accountant(method="rdp"))
    assert err.value.name == name
    assert err.value.value == value or (math.isnan(value) and math.isnan(err.value.value))


BAD_ALPHAS = [[], [float("nan")], [1.0], [0.5, 2.0], [2.0, math.inf], [[2.0, 3.0], [4.0, 5.0]], "abc", 3.0,
              torch.tensor(2.0)]
BAD_DELTAS = [0, -1e-5, float("nan"), 1.5, 1.0, "1e-5", None, [1e-5], True, torch.tensor([1e-5, 1e-6])]
BAD_STEPS = [0, -1, 2.5, math.inf, True, "3", None]


@pytest.mark.parametrize("alphas", BAD_ALPHAS, ids=repr)
def test_bad_alphas_are_refused_naming_alphas(alphas):
    # main: alphas=[] raised IndexError from argmin, a 2-D list was flattened, a number raised TypeError
    acc = Accountant(method="rdp").gaussian(2.0, 3)
    for call in (lambda: acc.get_epsilon(1e-5, alphas=alphas), lambda: acc.get_privacy_spent(delta=1e-5, alphas=alphas),
                 lambda: acc.delta(1.0, alphas=alphas), lambda: Accountant(method="rdp").get_epsilon(1e-5, alphas=alphas)):
        with pytest.raises(DomainError) as err:
            call()
        assert err.value.name == "alphas"


@pytest.mark.parametrize("delta", BAD_DELTAS, ids=repr)
def test_bad_delta_is_refused_naming_delta(delta):
    # main: the string "1e-5" and True were read through float(); None and lists raised TypeError
    for acc in (Accountant(method="rdp").gaussian(2.0, 3), Accountant(method="rdp")):
        for call in (lambda: acc.get_epsilon(delta), lambda: acc.get_privacy_spent(delta=delta),
                     lambda: acc.epsilon(delta)):
            with pytest.raises(DomainError) as err:
                call()
            assert err.value.name == "delta"


@pytest.mark.parametrize("eps", [-1.0, float("nan"), math.inf, "1", None, [1.0], True, torch.tensor([1.0, 2.0])],
                         ids=repr)
def test_bad_eps_is_refused_naming_eps(eps):
    for acc in (Accountant(method="rdp").gaussian(2.0, 3), Accountant(method="rdp")):
        with pytest.raises(DomainError) as err:
            acc.delta(eps)
        assert err.value.name == "eps"


@pytest.mark.parametrize("steps", BAD_STEPS, ids=repr)
def test_bad_steps_are_refused_naming_steps(steps):
    # main: steps=True was recorded as one step on the scalar path
    for call, name in ((lambda a: a.gaussian(2.0, steps), "steps"), (lambda a: a.sgm(0.01, 1.0, steps), "steps"),
                       (lambda a: a.compose("base.laplace_rdp", count=steps, b=1.0), "count")):
        acc = Accountant(method="rdp")
        with pytest.raises(DomainError) as err:
            call(acc)
        assert err.value.name == name and len(acc) == 0


def test_state_dict_round_trip():
    acc = Accountant(method="rdp").sgm(q=0.01, sigma=1.0, steps=10).laplace(b=2.0).ptr(**PTR)
    other = Accountant(method="rdp")
    other.load_state_dict(acc.state_dict())
    assert other.state_dict() == acc.state_dict() and len(other) == 12 and Accountant.mechanism() == "dpspec"
    with pytest.raises(ParameterError):
        other.load_state_dict({"history": [], "mechanism": "prv"})
    with pytest.raises(ParameterError):
        other.load_state_dict({})
    with pytest.raises(DomainError):
        Accountant(direction="add")


# ---------------------------------------------------------------------------------------------------------------
# records and the mechanism table (fast/mechanisms.py)

# one example per table entry: a new entry without an example here fails test_every_table_entry_is_composable
EXAMPLES = {
    "base.sgm_rdp": dict(q=0.01, sigma=1.0),
    "base.gaussian_rdp": dict(sigma=2.0),
    "base.laplace_rdp": dict(b=3.0),
    "ptr.thm4_3": PTR,
    "ptr.thm4_4": dict(q=0.01, **PTR),
    "objpert.thm4_3_2": dict(sigma=5.0, lam=20.0, beta=1.0, L=1.0),
    "objpert.thm4_4_1": dict(sigma=6.8285, sigma_out=0.15, lam=4.1161, beta=0.5, C=2 ** 0.5, tau=0.01),
    "base.sgm_wor_rdp": dict(m=64, n=60_000, sigma=1.0),
    "base.sgm_replace_one_rdp": dict(q=0.01, sigma=1.0),
}


def test_every_table_entry_is_composable_and_is_the_rdp_curve():
    from dpspec.fast.conversion import rdp_curve
    from dpspec.fast.mechanisms import MECHANISMS

    assert set(EXAMPLES) == set(MECHANISMS)
    alphas = torch.tensor([1.5, 4.0, 30.0], dtype=torch.float64)
    for mechanism_id, p in EXAMPLES.items():
        acc = Accountant(method="rdp").compose(mechanism_id, count=3, **p)
        assert acc.supports(mechanism_id) and acc.records == ((mechanism_id, tuple(p.values()), 3),)
        want = 3 * rdp_curve(mechanism_id, **p)(alphas)
        assert torch.allclose(acc.rdp(alphas), want, rtol=1e-13, atol=0), mechanism_id


def test_named_methods_are_records():
    acc = Accountant(method="rdp").sgm(q=0.01, sigma=1.0, steps=2).gaussian(sigma=3.0).laplace(b=4.0, steps=5)
    acc.ptr(steps=2, **PTR).ptr_subsampled(q=0.02, **PTR)
    assert acc.records == (("base.sgm_rdp", (0.01, 1.0), 2), ("base.sgm_rdp", (1.0, 3.0), 1),
                           ("base.laplace_rdp", (4.0,), 5), ("ptr.thm4_3", (8.0, 4.0, 1.0, 1e-8), 2),
                           ("ptr.thm4_4", (0.02, 8.0, 4.0, 1.0, 1e-8), 1))
    assert len(acc) == 11 and acc.history == [(1.0, 0.01, 2), (3.0, 1.0, 1)]
    assert acc.laplace_history == [(4.0, 5)] and acc.ptr_history == [(8.0, 4.0, 1.0, 1e-8, 2)]
    assert acc.ptr_subsampled_history == [(0.02, 8.0, 4.0, 1.0, 1e-8, 1)]
    # tensors broadcast to one record per element (merged where equal), as the named methods do
    t = Accountant(method="rdp").compose("base.sgm_rdp", count=torch.tensor([1, 2, 3]), q=0.01,
                             sigma=torch.tensor([1.0, 1.0, 2.0], dtype=torch.float64))
    assert t.records == (("base.sgm_rdp", (0.01, 1.0), 3), ("base.sgm_rdp", (0.01, 2.0), 3))


def test_supports_and_what_cannot_be_accounted():
    from dpspec.fast import accountant, mechanisms

    acc = Accountant(method="rdp")
    assert acc.supports("base.sgm_rdp") and mechanisms.supports("ptr.thm4_4") and accountant.supports("ptr.thm4_3")
    assert not acc.supports("ptr.zw19_upper") and not mechanisms.supports("sgm")
    assert acc.supports(acc.sgm(0.1, 1.0).records[0])
    with pytest.raises(ParameterError, match=r"'base.rr_rdp' cannot be accounted.*supported: base.gaussian_rdp"):
        acc.compose("base.rr_rdp", eps=1.0)
    with pytest.raises(ParameterError, match="missing parameter.*sigma"):
        acc.compose("base.sgm_rdp", q=0.1)
    with pytest.raises(ParameterError, match="unknown parameter.*tau"):
        acc.compose("ptr.thm4_3", tau=0.5, **PTR)
    with pytest.raises(DomainError) as err:
        acc.compose("base.laplace_rdp", count=0, b=1.0)
    assert err.value.name == "count"
    assert len(acc) == 1  # nothing recorded by the failed calls


def test_merge_semantics():
    acc = Accountant(method="rdp")
    for _ in range(3):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)  # runs merge, as Opacus' RDPAccountant.step
    acc.step(noise_multiplier=1.0, sample_rate=0.02)
    acc.step(noise_multiplier=1.0, sample_rate=0.02)
    assert acc.history == [(1.0, 0.01, 3), (1.0, 0.02, 2)]
    # a record merges with the last record of ITS mechanism (other mechanisms in between do not split a run)
    acc.laplace(b=2.0).step(noise_multiplier=1.0, sample_rate=0.02)
    acc.laplace(b=2.0, steps=4)
    assert acc.records[-2:] == (("base.sgm_rdp", (0.02, 1.0), 3), ("base.laplace_rdp", (2.0,), 5))
    # Python numbers and 0-d tensors give the same record; ints are stored as floats
    acc.step(noise_multiplier=torch.tensor(1.0, dtype=torch.float64), sample_rate=0.02)
    acc.sgm(q=0.02, sigma=1)
    assert acc.history[-1] == (1.0, 0.02, 5) and len(acc) == 13


def test_history_is_a_view_and_assigning_it_replaces_the_sgm_records():
    acc = Accountant(method="rdp").sgm(q=0.01, sigma=1.0, steps=5).laplace(b=2.0).compose("base.gaussian_rdp", sigma=3.0)
    assert acc.history == [(1.0, 0.01, 5), (3.0, 1.0, 1)]
    runs = [(1.0, 0.01, 300), (0.9, 0.02, 100), (1.0, 0.01, 50)]
    acc.history = runs  # as Opacus' get_noise_multiplier: stored as given (no merging), other mechanisms kept
    assert acc.history == runs and acc.laplace_history == [(2.0, 1)] and len(acc) == 451
    acc.step(noise_multiplier=1.0, sample_rate=0.01)  # merges with the last SGM run
    assert acc.history[-1] == (1.0, 0.01, 51)
    with pytest.raises(DomainError) as err:
        acc.history = [(1.0, 0.01, 3), (-1.0, 0.01, 3)]
    assert err.value.name == "sigma" and acc.history == [(1.0, 0.01, 300), (0.9, 0.02, 100), (1.0, 0.01, 51)]
    acc.ptr_subsampled_history = [(0.02, *PTR.values(), 4)]  # the pre-record attributes stay assignable
    assert acc.records[-1] == ("ptr.thm4_4", (0.02, 8.0, 4.0, 1.0, 1e-8), 4)


def test_loads_the_pre_record_state_dict():
    old = {"history": [(1.0, 0.01, 10), (3.0, 1.0, 2)], "laplace_history": [(2.0, 1)],
           "ptr_history": [(8.0, 4.0, 1.0, 1e-8, 3)], "ptr_subsampled_history": [(0.01, 8.0, 4.0, 1.0, 1e-8, 2)],
           "mechanism": "dpspec"}
    acc = Accountant(method="rdp")
    acc.load_state_dict(old)
    want = Accountant(method="rdp").sgm(q=0.01, sigma=1.0, steps=10).gaussian(sigma=3.0, steps=2).laplace(b=2.0)
    want.ptr(steps=3, **PTR).ptr_subsampled(q=0.01, steps=2, **PTR)
    assert acc.records == want.records and len(acc) == 18
    alphas = torch.tensor([2.0, 5.5])
    assert torch.equal(acc.rdp(alphas), want.rdp(alphas))
    # the new state dict stores records as plain tuples (loadable with torch.load(weights_only=True))
    import io

    state = want.state_dict()
    assert set(state) == {"records", "mechanism"} and type(state["records"][0]) is tuple
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    back = Accountant(method="rdp")
    back.load_state_dict(torch.load(buffer, weights_only=True))
    assert back.records == want.records
    with pytest.raises(ParameterError, match="cannot be accounted"):
        back.load_state_dict({"records": [("base.rr_rdp", (1.0,), 1)], "mechanism": "dpspec"})
    with pytest.raises(DomainError):
        back.load_state_dict({"records": [("base.laplace_rdp", (-1.0,), 1)], "mechanism": "dpspec"})
    assert back.records == want.records  # a failed load changes nothing


def test_many_distinct_tuples_compose_across_chunks(monkeypatch):
    # > 100 distinct (σ, q) pairs, evaluated in chunks that do not divide the number of pairs: every pair counts
    from dpspec.fast import accountant
    from dpspec.fast.base.laplace import laplace_rdp
    from dpspec.fast.base.sgm import sgm_rdp

    gen = torch.Generator().manual_seed(1)
    sigma = (0.7 + torch.rand(137, generator=gen, dtype=torch.float64)).tolist()
    q = (0.001 + 0.05 * torch.rand(137, generator=gen, dtype=torch.float64)).tolist()
    steps = torch.randint(1, 50, (137,), generator=gen).tolist()
    acc = Accountant(method="rdp")
    for s, qq, n in zip(sigma, q, steps):
        acc.sgm(q=qq, sigma=s, steps=n).laplace(b=5.0 + s)
    acc.sgm(q=q[0], sigma=sigma[0], steps=2)  # a repeated pair: grouped with the first
    alphas = torch.tensor([1.5, 2.0, 3.0, 8.0, 33.0], dtype=torch.float64)
    want = 2 * sgm_rdp(alphas, q[0], sigma[0], direction="remove")
    for s, qq, n in zip(sigma, q, steps):  # one by one
        want = want + n * sgm_rdp(alphas, qq, s, direction="remove") + laplace_rdp(alphas, 5.0 + s)
    monkeypatch.setattr(accountant, "CHUNK", 7 * alphas.numel())  # chunks of 7 tuples: 137 = 19·7 + 4
    assert torch.allclose(acc.rdp(alphas), want, rtol=1e-12, atol=0)
    monkeypatch.undo()
    assert torch.allclose(acc.rdp(alphas), want, rtol=1e-12, atol=0)
    delta = 1e-5
    got = acc.get_epsilon(delta, alphas=alphas.tolist())
    assert got == pytest.approx(float(torch.min(want + torch.log1p(-1 / alphas)
                                                - (math.log(delta) + torch.log(alphas)) / (alphas - 1))), rel=1e-12)


@pytest.mark.slow  # a fresh interpreter (~4 s of CPU); in the default suite tests/spine/test_layout.py::
# test_import_dpspec_fast_loads_neither_mpmath_nor_sympy_and_specs_load_no_third_party_package imports every module
# of dpspec.fast (mechanisms and accountant included) in a fresh interpreter and fails if mpmath was loaded
def test_the_accountant_imports_no_mpmath():
    import subprocess
    import sys

    code = "import sys, dpspec.fast.mechanisms, dpspec.fast.accountant; print('mpmath' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


# ---------------------------------------------------------------------------------------------------------------
# peers (same orders; 1e-9 relative where the peer is right)

HETERO = [(1.0, 0.01, 300), (0.9, 0.02, 100), (1.3, 0.005, 1000), (1.0, 0.01, 50)]


@pytest.mark.peers
def test_step_and_epsilon_as_opacus():
    accountants = pytest.importorskip("opacus.accountants")
    ours, theirs = Accountant(method="rdp"), accountants.RDPAccountant()
    for s, q in [(1.0, 0.01), (1.0, 0.01), (1.2, 0.01), (1.2, 0.02), (1.2, 0.02), (1.0, 0.01)]:
        ours.step(noise_multiplier=s, sample_rate=q)
        theirs.step(noise_multiplier=s, sample_rate=q)
    assert ours.history == theirs.history
    ours.history = list(HETERO)
    theirs.history = list(HETERO)
    for delta in (1e-3, 1e-5, 1e-9):
        e_ours, a_ours = ours.get_privacy_spent(delta=delta, alphas=OPACUS_ALPHAS)
        e_theirs, a_theirs = theirs.get_privacy_spent(delta=delta)
        assert a_ours == a_theirs and rel(e_ours, e_theirs) < 1e-9
    assert ours.get_epsilon(1e-5) <= theirs.get_epsilon(1e-5) * (1 + 1e-9)  # continuous search: never looser
    assert rel(ours.get_epsilon(1e-5, alphas=[2, 5.5, 32]), theirs.get_epsilon(1e-5, alphas=[2, 5.5, 32])) < 1e-9


@pytest.mark.peers
def test_epsilon_as_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import rdp

    def theirs(orders):
        acc = rdp.RdpAccountant(orders=list(orders))
        for s, q, n in HETERO:
            acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), n)
        return acc

    ours = Accountant(method="rdp")
    ours.history = list(HETERO)
    integers = list(range(2, 64))  # exact binomial sums on both sides
    for delta in (1e-3, 1e-9):
        assert rel(ours.get_epsilon(delta, alphas=integers), theirs(integers).get_epsilon(delta)) < 1e-9
    # At fractional orders dp-accounting sums the absolute values of the series (B3): an upper bound, looser
    # than the exact value. Ours is checked against the mpmath reference there instead.
    assert theirs([2.5]).get_epsilon(1e-5) >= ours.get_epsilon(1e-5, alphas=[2.5]) * (1 - 1e-12)
    want = sum(n * ref("base.sgm_rdp", alpha=2.5, q=q, sigma=s) for s, q, n in HETERO)
    assert rel(float(ours.rdp(2.5)), want) < 1e-10


@pytest.mark.peers
def test_privacy_engine_with_the_adapter():
    pytest.importorskip("opacus")
    import warnings

    from opacus import PrivacyEngine
    from opacus.accountants import RDPAccountant

    from dpspec.fast.opacus_compat import OpacusAccountant

    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(64, 3), torch.randint(0, 2, (64,)))
    model = torch.nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine(accountant="dpspec")
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            data_loader=torch.utils.data.DataLoader(data, batch_size=16), noise_multiplier=1.0, max_grad_norm=1.0)
        for (x, y), _ in zip(loader, range(2)):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    assert isinstance(engine.accountant, OpacusAccountant) and len(engine.accountant) == 2
    assert engine.accountant.history == [(1.0, 0.25, 2)]
    opacus_rdp = RDPAccountant()
    opacus_rdp.history = list(engine.accountant.history)
    eps = engine.get_epsilon(1e-5)
    assert 0 < eps <= opacus_rdp.get_epsilon(1e-5) * (1 + 1e-9)
    # an Opacus RDPAccountant checkpoint loads into the adapter
    restored = OpacusAccountant()
    restored.load_state_dict(opacus_rdp.state_dict())
    assert restored.get_epsilon(1e-5) == eps
