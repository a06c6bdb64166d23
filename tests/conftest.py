"""Hypothesis profiles. The default suite is deterministic (``derandomize``: the same examples on every run and
machine, so CI cannot fail on a draw nobody can reproduce); ``--hypothesis-profile=explore`` draws fresh random
examples, for looking for new counterexamples (DEVELOPERS.md). Per-test ``@settings`` keep their own budgets."""
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile("deterministic")


def pytest_configure(config):
    """``DPSPEC_PLANT=<name>``: plant that bug (dpspec.conformance.selftest) for the whole session, before the test
    modules import, so the suite's power to catch it can be measured (`dpspec conform --self-test --with-tests`)."""
    import os

    name = os.environ.get("DPSPEC_PLANT")
    if name:
        from dpspec.conformance import selftest

        selftest.activate(name)
