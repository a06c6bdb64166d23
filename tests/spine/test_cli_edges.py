"""The command line at its edges: integer parameters on the fast path, --fast with --dps / --allow-outside, usage
errors and long refusals as one line, --out that is a file, globs that match nothing, torch's thread policy; and the
compact number formatting of reference/errors.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import mpmath
import pytest
from typer.testing import CliRunner

from dpspec.conformance import cli
from dpspec.conformance.cli import app
from dpspec.reference.errors import DomainError, format_value

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def one_error_line(r, needle: str) -> str:
    """The result is exit 2 with exactly one non-empty line, ``error: ...`` containing ``needle``."""
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert r.exit_code == 2, r.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.output
    assert "Traceback" not in r.output and "╭" not in r.output and "Usage:" not in r.output
    return lines[0]


# ---------------------------------------------------------------------------------------------------------------
# 1. --fast: integer parameters, --dps, --allow-outside

THM5_2 = ["n=100", "F=10", "R=1", "beta=1", "lam_sc=1", "sigma_g=0.1", "sigma1=0.1", "sigma2=5", "eta_B=1e-5"]


@pytest.mark.parametrize("args, needle", [
    (["base.basic_composition", "eps=0.1", "delta=1e-6", "k=inf"], "k=inf"),
    (["base.gdp_group", "g=2.5", "mu=1"], "g=2.5"),
    (["base.rdp_to_dp", "curve=base.gaussian_rdp", "sigma=1", "delta=1e-5", "steps=inf"], "steps=inf"),
    (["ptr.thm5_2", *THM5_2, "d=inf"], "d=inf"),
])
def test_fast_refuses_non_integers_for_integer_parameters_naming_them(args, needle):
    line = one_error_line(run("eval", *args, "--fast"), needle)
    assert "integers" in line


@pytest.mark.parametrize("args, needle", [
    (["base.gdp_group", "g=1e400", "mu=1"], "g=1e400: beyond the float64 range"),  # not read as g = inf
    (["base.gdp_group", "g=2", "mu=1e-400"], "mu=1e-400: below the float64 range"),  # not read as mu = 0
    (["base.rdp_to_dp", "curve=base.sgm_rdp", "q=1e-400", "sigma=1", "delta=1e-5", "steps=1"], "q=1e-400"),
])
def test_fast_refuses_numbers_float64_cannot_hold_as_typed(args, needle):
    one_error_line(run("eval", *args, "--fast"), needle)


def test_fast_refuses_dps():
    one_error_line(run("eval", "base.gdp_group", "g=2", "mu=1", "--fast", "--dps", "30"),
                   "--dps applies to the reference only")


def test_fast_allow_outside_evaluates_and_marks_not_a_bound_like_the_reference():
    point = ["ptr.thm4_2", "b=1", "sigma1=1", "delta0=1e-8", "delta=1e-6"]  # ε_N = √(2 ln 1.25e6) ≈ 5.3 ≥ 1
    one_error_line(run("eval", *point, "--fast"), "outside the statement's own conditions")
    fast = run("eval", *point, "--fast", "--allow-outside", "--json")
    ref = run("eval", *point, "--allow-outside", "--json")
    assert fast.exit_code == 0 and ref.exit_code == 0, fast.output + ref.output
    f, r = json.loads(fast.output), json.loads(ref.output)
    assert f["is_bound"] is False and r["is_bound"] is False
    assert f["outside_conditions"] == r["outside_conditions"] and f["outside_conditions"]
    assert abs(float(f["value"]) - float(r["value"])) <= 1e-10 * abs(float(r["value"]))  # ptr.thm4_2 tolerance
    assert "NOT A BOUND" in run("eval", *point, "--fast", "--allow-outside").output


# ---------------------------------------------------------------------------------------------------------------
# 2. usage errors: one line, exit 2, no box


@pytest.mark.parametrize("args, needle", [
    (("eval", "base.gaussian_rdp", "alpha=2", "sigma=1", "--bogus"), "--bogus"),
    (("eval",), "Missing argument"),
    (("eval", "base.gaussian_rdp", "alpha=2", "sigma=1", "--dps", "abc"), "--dps"),
    (("eval", "base.gaussian_rdp", "alpha=2", "sigma=1", "--dps", "5"), "--dps"),
    (("no-such-command",), "no-such-command"),
    (("audit", "accountant"), "Missing argument"),
])
def test_usage_errors_are_one_line_exit_2(args, needle):
    one_error_line(run(*args), needle)


def test_help_and_no_arguments_still_print_the_help():
    assert run("--help").exit_code == 0 and "eval" in run("--help").output
    bare = run()
    assert bare.exit_code == 2 and "Usage" in bare.output


# ---------------------------------------------------------------------------------------------------------------
# 3. long refusals, compact numbers


def test_a_refusal_with_a_huge_value_is_one_short_line():
    huge = "x" * 5000
    for args in (("eval", "base.sgm_rdp", "alpha=8", "q=0.01", "sigma=1", f"direction={huge}"),
                 ("eval", "base.gaussian_rdp", "alpha=2", "sigma=1", f"{huge}=3")):
        line = one_error_line(run(*args), "xxxx")
        assert len(line) <= len("error: ") + cli.MAX_ERROR_CHARS + 40
    assert cli.one_line("a\nb   c") == "a b c"
    cut = cli.one_line("y" * 1000, limit=50)
    assert cut.startswith("y" * 50) and "[1000 characters]" in cut


def test_domain_error_formats_numbers_compactly_and_keeps_name_value_domain():
    with mpmath.workdps(50):
        third = mpmath.mpf(1) / 3
        huge = mpmath.mpf("-1.23456789012345678901234567890e5000")
    assert str(DomainError("sigma", third, "(0, inf)")) == "sigma=0.3333333333333333 is outside its domain (0, inf)"
    assert format_value(huge) == "-1.2345679e+5000"  # the exponent survives (a cut string would drop it)
    assert format_value(10**5000) == "1.0000000e+5000"  # no int -> str digit-limit error
    assert format_value(mpmath.mpf("nan")) == "nan" and format_value(float("inf")) == "inf"
    long_text = str(DomainError("direction", "z" * 3000, "one of {max, remove, add}"))
    assert "(3000 characters)" in long_text and long_text.endswith("one of {max, remove, add}")
    assert len(long_text) < 200


# ---------------------------------------------------------------------------------------------------------------
# 4. figures --out that is a file; 6. globs that match nothing


def test_figures_out_that_is_a_file_is_one_line(tmp_path):
    target = tmp_path / "a_file"
    target.write_text("")
    one_error_line(run("figures", "ptr", "--out", str(target), "--quick"), "not a directory")
    one_error_line(run("figures", "ptr", "--out", str(target / "sub"), "--quick"), "Not a directory")


@pytest.mark.parametrize("args, needle", [
    (("list", "--only", "zzz*"), "no statement matches 'zzz*'"),
    (("list", "--only", "zzz*", "--json"), "no statement matches 'zzz*'"),
    (("errata", "--only", "nomatch*"), "no erratum matches 'nomatch*'"),
    (("show", "zzz*"), "no id matches 'zzz*'"),
])
def test_a_glob_that_matches_nothing_is_an_error(args, needle):
    one_error_line(run(*args), needle)


# ---------------------------------------------------------------------------------------------------------------
# 10. torch thread policy of the command line (subprocesses: torch's setting is per process)

_POLICY = """
import atexit, sys
pre = {pre!r}
if pre:
    import torch
    before = torch.get_num_threads()
    import dpspec.fast  # the library alone changes nothing
    assert torch.get_num_threads() == before, (before, torch.get_num_threads())
atexit.register(lambda: print("threads", sys.modules["torch"].get_num_threads()))
sys.argv = ["dpspec", "eval", "base.gdp_group", "g=2", "mu=1", "--fast"]
from dpspec.conformance.cli import main
main()
"""


@pytest.mark.parametrize("env_threads, preimported, expected", [(None, False, 1), ("3", True, 3)])
def test_main_sets_torch_threads_from_dpspec_torch_threads(env_threads, preimported, expected):
    env = {k: v for k, v in os.environ.items() if k != cli.TORCH_THREADS_ENV}
    env["OMP_NUM_THREADS"] = "2"  # torch's own default would then be 2 threads, not the policy's 1
    if env_threads is not None:
        env[cli.TORCH_THREADS_ENV] = env_threads
    out = subprocess.run([sys.executable, "-c", _POLICY.format(pre=preimported)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "base.gdp_group [default] = " in out.stdout and f"threads {expected}" in out.stdout, out.stdout


def test_bad_dpspec_torch_threads_is_refused(monkeypatch):
    monkeypatch.setenv(cli.TORCH_THREADS_ENV, "0")
    with pytest.raises(DomainError, match="DPSPEC_TORCH_THREADS=0"):
        cli.torch_threads()
    monkeypatch.setenv(cli.TORCH_THREADS_ENV, "4")
    assert cli.torch_threads() == 4
