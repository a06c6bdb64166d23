"""dpspec.fast: the torch fast path — vectorised bounds, the accountant, and the PTR training operators.

Every bound broadcasts over all its parameters (float64 by default, any device) and mirrors the catalogue entry of
the same id (``dpspec list`` shows which entries have a fast path; ``dpspec eval ID ... --fast`` evaluates it).
Bad input raises the same ``DomainError`` as the reference. This package never imports mpmath, and
``dpspec.fast.opacus_compat`` (the PrivacyEngine adapter) is the only module that imports Opacus.

    import torch, dpspec.fast as fast
    fast.sgm_rdp(alpha=torch.linspace(1.5, 64, 100), q=0.01, sigma=1.0)
    acc = fast.Accountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01)      # as Opacus' RDPAccountant.step
    acc.get_epsilon(1e-5)
"""
from .accountant import Accountant, calibrate_sigma, sgm_epsilon
from .base.conversion import rdp_to_delta, rdp_to_dp
from .base.pld import sgm_pld
from .base.gaussian import gaussian_profile, gaussian_rdp
from .base.laplace import laplace_profile, laplace_rdp
from .ptr.operators import PTRResult, gaussian_trimmed_sum, ptr_trimmed_sum
from .ptr.bounds import ptr_rdp, ptr_subsampled_rdp, ptr_zw19_upper
from .base.sgm import sgm_rdp
from .ptr.training import TSGDGaussian, TSGDPTR, per_sample_gradients, poisson_sample

__all__ = [
    "Accountant", "calibrate_sigma", "sgm_epsilon", "sgm_pld",
    "rdp_to_dp", "rdp_to_delta",
    "gaussian_rdp", "gaussian_profile", "laplace_rdp", "laplace_profile", "sgm_rdp",
    "ptr_rdp", "ptr_subsampled_rdp", "ptr_zw19_upper",
    "PTRResult", "ptr_trimmed_sum", "gaussian_trimmed_sum",
    "TSGDPTR", "TSGDGaussian", "per_sample_gradients", "poisson_sample",
]
