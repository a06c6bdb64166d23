"""Shared pieces of the ``gptr`` fast path: log-space constants, and the theorem-condition refusal of the fast path
(``fast._torch.refuse_outside``, the same words as the reference from ``dpspec.reference.gptr.spec``)."""
from __future__ import annotations

import math

import torch

from .._torch import refuse_outside

LOG2 = math.log(2.0)

__all__ = ["LOG2", "log_2_over", "refuse_outside"]


def log_2_over(delta: torch.Tensor) -> torch.Tensor:
    """log(2/δ) = log 2 − log δ (2/δ overflows for δ < 1e-308)."""
    return LOG2 - torch.log(delta)
