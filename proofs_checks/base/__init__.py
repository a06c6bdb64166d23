"""Proof checks and errata of the standard results (``base.*``)."""
