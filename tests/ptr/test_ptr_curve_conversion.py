"""The reference RDP→DP order search with a PTR curve that has conditions (ptr.lemma_a1 refuses most orders): no
order beats the reference's answer. The base curves' cases are in tests/base/test_conversion_edges.py."""
from __future__ import annotations

import random

from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base import conversion as ref
from dpspec.reference.errors import ConditionError, DomainError


def test_no_order_beats_the_reference_with_a_conditioned_ptr_curve():
    curve = catalogue.curve("ptr.lemma_a1", q="0.01", sigma=4)
    delta, steps = mpf("1e-12"), 1000
    value = ref.rdp_to_dp_mironov(curve, delta, steps)
    rng = random.Random("mironov-ptr.lemma_a1")
    checked = 0
    for _ in range(80):
        alpha = 1 + mpf(10) ** rng.uniform(-6, 300 if rng.random() < 0.3 else 8)
        try:
            at = ref.dp_at_order_mironov(steps * curve(alpha), alpha, delta)
        except (ConditionError, DomainError):  # no bound at that order (outside Lemma A.1's conditions)
            continue
        checked += 1
        assert value <= max(mpf(0), at) * (1 + ref.CERT_RTOL), (alpha, value, at)
    assert checked > 0
