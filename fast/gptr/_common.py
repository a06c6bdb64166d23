"""Shared pieces of the ``gptr`` fast path: the theorem-condition refusal (the same words as the reference, from
``dpspec.reference.gptr.spec``'s ConditionSpecs) and log-space constants."""
from __future__ import annotations

import math
from typing import Iterable

import torch

from dpspec.reference.domains import ConditionSpec
from dpspec.reference.errors import ConditionError

LOG2 = math.log(2.0)


def refuse_outside(statement_id: str, checks: Iterable[tuple[ConditionSpec, torch.Tensor | bool]],
                   allow_outside: bool = False) -> None:
    """ConditionError(statement_id, [spec.describe() …]) listing, in the given (the statement's) order, every
    condition whose mask is False at some point; nothing with ``allow_outside`` (the values there are not bounds)."""
    if allow_outside:
        return
    failed = [spec.describe() for spec, mask in checks
              if not (bool(mask) if isinstance(mask, bool) else bool(torch.as_tensor(mask).all()))]
    if failed:
        raise ConditionError(statement_id, failed)


def log_2_over(delta: torch.Tensor) -> torch.Tensor:
    """log(2/δ) = log 2 − log δ (2/δ overflows for δ < 1e-308)."""
    return LOG2 - torch.log(delta)
