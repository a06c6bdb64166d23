"""The standard results that the texts use (``base.*``): Gaussian and Laplace mechanisms, the subsampled Gaussian,
RDP → DP conversions, composition, f-DP tools, amplification by subsampling and [ZW19]'s subsampling bounds.
Spec (domains, parameters, condition texts; dependency-free) in :mod:`.spec`."""
