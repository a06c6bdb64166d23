"""Fast paths of the standard results (``base.*``): Gaussian, Laplace, subsampled Gaussian, composition, f-DP,
amplification, the [ZW19] subsampling bounds and the RDP → DP conversions. Mirrors ``reference/base/``."""
