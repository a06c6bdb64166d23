"""One registry mechanism for everything that is looked up by id: catalogue statements and witness pairs
(:mod:`.catalogue`), errata and proof checks (``dpspec.proofs_checks``).

A :class:`Registry` maps ``obj.id`` to the object. Entries register themselves when their module is imported;
the registry knows the packages that hold them and imports every module of those packages (sub-packages
included, modules whose name starts with ``_`` excepted) before the first lookup, once (:func:`discover`).
Dependency-light: no mpmath, no torch.
"""
from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from typing import Generic, Iterator, TypeVar

from .errors import UnknownStatementError

T = TypeVar("T")

_DISCOVERED: set[str] = set()


def natural_key(s: str) -> list:
    """Sort key that orders the digit runs of an id as numbers: ptr.E2 before ptr.E10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def discover(*packages: str) -> None:
    """Import every public module under each package (once per package), so that its entries register."""
    for name in packages:
        if name in _DISCOVERED:
            continue
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, prefix=name + "."):
            if not info.name.rsplit(".", 1)[-1].startswith("_"):
                importlib.import_module(info.name)
        _DISCOVERED.add(name)


class Registry(Generic[T]):
    """Objects with an ``id``, registered once each; ``packages`` are discovered before the first lookup.

    ``listing`` is the hint shown when an id is unknown and nothing close exists (e.g. "`dpspec list` shows the
    catalogue")."""

    def __init__(self, kind: str, packages: tuple[str, ...] = (), listing: str = ""):
        self.kind, self.packages, self.listing = kind, tuple(packages), listing
        self._entries: dict[str, T] = {}

    def register(self, obj: T) -> T:
        key = getattr(obj, "id")
        if key in self._entries and self._entries[key] is not obj:
            raise ValueError(f"duplicate {self.kind} id {key!r}")
        self._entries[key] = obj
        return obj

    def load(self) -> None:
        discover(*self.packages)

    def get(self, key: str) -> T:
        self.load()
        try:
            return self._entries[key]
        except KeyError:
            raise UnknownStatementError(f"unknown {self.kind} id {key!r}{self._hint(key)}") from None

    def suggest(self, key: str, n: int = 3) -> list[str]:
        """Registered ids close to ``key`` (what follows the prefix is compared: "thm44" with "thm4_4")."""
        self.load()
        tails: dict[str, list[str]] = {}
        for k in sorted(self._entries, key=natural_key):
            tails.setdefault(k.partition(".")[2] or k, []).append(k)
        tail = key.partition(".")[2] or key
        close = [k for t in difflib.get_close_matches(tail, tails, n=n, cutoff=0.6) for k in tails[t]]
        close += [k for ks in tails.values() for k in ks if tail in k and k not in close]
        return close[:n]

    def _hint(self, key: str) -> str:
        close = self.suggest(key)
        if close:
            return f"; did you mean {', '.join(close)}?"
        return f"; {self.listing}" if self.listing else ""

    def ids(self) -> list[str]:
        self.load()
        return sorted(self._entries, key=natural_key)

    def items(self) -> list[T]:
        """Every entry, ids in natural order."""
        return [self._entries[k] for k in self.ids()]

    def __contains__(self, key: object) -> bool:
        self.load()
        return key in self._entries

    def __iter__(self) -> Iterator[T]:
        return iter(self.items())

    def __len__(self) -> int:
        self.load()
        return len(self._entries)
