"""The catalogue spine: binding, domains, conditions, self-check, discovery."""
import math

import mpmath
import pytest

from dpspec.reference import catalogue
from dpspec.reference.domains import Integer, Real
from dpspec.reference.errors import ConditionError, DomainError, ParameterError, PrecisionError, UnknownStatementError
from dpspec.reference.precision import self_checked


def test_every_statement_has_a_unique_id_a_source_and_an_example_that_evaluates_or_is_marked():
    ids = [s.id for s in catalogue.statements()]
    assert len(ids) == len(set(ids))
    for s in catalogue.statements():
        assert s.source.number and s.source.purpose, s.id
        assert s.source.seed == "outside" and s.source.citation or s.source.seed.endswith(".txt"), s.id


def test_unknown_id_raises_a_clear_error():
    with pytest.raises(UnknownStatementError, match="unknown statement id"):
        catalogue.get("base.nope")


@pytest.mark.parametrize("bad", [{"alpha": 1, "sigma": 1}, {"alpha": 2, "sigma": 0}, {"alpha": 2, "sigma": -1},
                                 {"alpha": float("nan"), "sigma": 1}, {"alpha": 2, "sigma": float("inf")}])
def test_out_of_domain_values_raise_domain_error_naming_the_parameter(bad):
    with pytest.raises(DomainError) as info:
        catalogue.get("base.gaussian_rdp").evaluate(**bad)
    assert info.value.name in bad


def test_missing_and_unknown_parameters_raise():
    st = catalogue.get("base.gaussian_rdp")
    with pytest.raises(ParameterError, match="missing parameter sigma"):
        st.evaluate(alpha=2)
    with pytest.raises(ParameterError, match="unknown parameter"):
        st.evaluate(alpha=2, sigma=1, q=0.1)
    with pytest.raises(ParameterError, match="not a number"):
        st.evaluate(alpha="two", sigma=1)


def test_strings_are_parsed_as_decimals_at_full_precision():
    v = catalogue.get("base.gaussian_rdp").evaluate(alpha="3", sigma="0.1", dps=60).value
    with mpmath.workdps(60):
        assert v == mpmath.mpf(3) / (2 * mpmath.mpf("0.1") ** 2)


def test_self_check_raises_when_two_precisions_disagree():
    @self_checked
    def precision_dependent(x):
        return mpmath.mpf(mpmath.mp.dps)  # changes with the working precision

    with pytest.raises(PrecisionError):
        precision_dependent(1)


def test_self_check_raises_on_nan():
    @self_checked
    def nan(x):
        return mpmath.mpf("nan")

    with pytest.raises(PrecisionError):
        nan(1)


def test_domains_describe_and_reject():
    d = Real(0, 1, lo_open=True, hi_open=False)
    assert d.describe() == "(0, 1]"
    assert d.contains(1) and not d.contains(0) and not d.contains(math.nan) and not d.contains(math.inf)
    assert Integer(1).contains(3) and not Integer(1).contains(2.5) and not Integer(1).contains(0)


def test_curve_binds_other_parameters():
    f = catalogue.curve("base.gaussian_rdp", sigma=2)
    assert f(3) == mpmath.mpf(3) / 8
    with pytest.raises(DomainError):
        catalogue.curve("base.gaussian_rdp", sigma=-2)


def test_points_domain_parses_json_and_rejects_ragged_or_nonfinite():
    from dpspec.reference.domains import Points

    arr = Points().check("points", "[[0.1, 0.2], [1, 0]]")
    assert arr.shape == (2, 2)
    assert Points().check("points", [0.5, 0.7]).shape == (2, 1)
    for bad in ("[[0.1, 0.2], [1]]", [[float("nan"), 0]], "not json"):
        with pytest.raises(DomainError):
            Points().check("points", bad)


def test_variant_conditions_replace_the_statement_conditions():
    st = catalogue.get("ptr.thm5_1")
    one_point = [[0.1, 0.2]]
    # m = F = 1: adding one point of norm R keeps x_(1) in the trimmed sum, so LS^(0) = ||x_(1)|| (erratum E16)
    assert abs(st.evaluate(points=one_point, F=1, r=0, R=1).value - mpmath.sqrt(mpmath.mpf("0.05"))) < 1e-15
    with pytest.raises(ConditionError):
        st.evaluate(points=one_point, F=1, r=0, R=1, variant="printed")
    three = [[0.1, 0.2], [0.5, 0.1], [0.9, 0.3]]
    assert st.evaluate(points=three, F=1, r=0, R=1).value == st.evaluate(points=three, F=1, r=0, R=1,
                                                                       variant="printed").value
