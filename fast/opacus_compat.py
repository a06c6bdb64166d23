"""Opacus adapter: dpspec's vectorised ``Accountant`` as an Opacus ``IAccountant``.

Importing this module registers the accountant under the mechanism name "dpspec" in Opacus' accountant registry,
so that ``PrivacyEngine(accountant="dpspec")`` uses it, including ``make_private_with_epsilon`` (whose
``get_noise_multiplier`` creates accountants by name and assigns ``history`` directly). ``use_in(engine)`` swaps
it into an existing engine. Opacus' optimizer hook calls ``step(noise_multiplier=σ, sample_rate=q)``, which
records exactly as Opacus' RDPAccountant (one ``base.sgm_rdp`` record per run; ``history`` is their (σ, q, steps)
view, assignable); ``get_epsilon(delta)`` then searches the order continuously (never looser than RDPAccountant at
its default orders). A checkpoint of an Opacus RDPAccountant (mechanism "rdp") can be loaded: its history becomes
SGM records. This accountant's own state dict stores the records (plain tuples).

Only this module imports opacus; ``dpspec.fast.accountant`` does not.
"""
from __future__ import annotations

from opacus.accountants import IAccountant, register_accountant

from .accountant import Accountant

MECHANISM = "dpspec"


class OpacusAccountant(Accountant, IAccountant):
    """``dpspec.fast.Accountant`` with Opacus' IAccountant base (``get_optimizer_hook_fn`` comes from there)."""

    def __init__(self, device=None, direction: str = "remove"):
        Accountant.__init__(self, device=device, direction=direction)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM


def use_in(privacy_engine, accountant: OpacusAccountant | None = None) -> OpacusAccountant:
    """Make ``privacy_engine`` (an ``opacus.PrivacyEngine``) account with dpspec; call before ``make_private``
    (the optimizer hook is bound to the engine's accountant there). Returns the accountant in use."""
    privacy_engine.accountant = accountant if accountant is not None else OpacusAccountant()
    return privacy_engine.accountant


register_accountant(MECHANISM, OpacusAccountant, force=True)
