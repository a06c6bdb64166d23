"""Fast paths (torch, float64) of the ``dc.*`` statements, seed 004 (Sha et al., "Clip Body and Tail Separately",
arXiv 2405.17529v1: discriminative clipping DP-SGD under heavy-tailed gradients): the sub-Weibull facts and the θ test
(:mod:`.subweibull`), the convergence theorems' thresholds and explicit bounds (:mod:`.convergence`), the sound
accountant of DC-DPSGD and its calibration (:mod:`.accounting`: ``dc_epsilon``, ``dc_calibrate_sigma``,
``DcAccountant``), the random sub-Weibull projection (:mod:`.projection`), the training operator (:mod:`.training`:
``DCDPSGD``) and the authors' public code's step for audits (:mod:`.published`). Domains and condition texts come from
``dpspec.reference.dc.spec``.

The names below are imported on first use (``from dpspec.fast.dc import DCDPSGD``), so importing the package loads
no module it does not need."""
from __future__ import annotations

import importlib

_EXPORTS = {
    "DCDPSGD": ".training", "default_tau": ".training", "discriminative_step": ".training",
    "step_function": ".training", "dc_epsilon_of": ".training", "dc_calibrate": ".training",
    "dc_sigma_eff": ".accounting", "dc_epsilon": ".accounting", "dc_epsilon_interval": ".accounting",
    "dc_calibrate_sigma": ".accounting", "DcAccountant": ".accounting", "paper_sigma": ".accounting",
    "paper_claimed_epsilon": ".accounting", "implied_m2": ".accounting",
    "published_step": ".published", "sound_step": ".published",
    "orlicz_k": ".subweibull",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
