"""``MODULE:OBJECT`` on the command line (a mechanism for ``dpspec audit mechanism``, an accountant for
``dpspec audit accountant``): the module is imported with the current working directory searched first, as
``python -m`` would, so that ``mymech:noisy_sum`` finds ``./mymech.py`` without ``PYTHONPATH=.``."""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any


def load_object(spec: str, what: str = "OBJECT") -> Any:
    """The object ``spec`` = ``module.path:attr.path`` names. The current directory is put at the front of
    ``sys.path`` for this import only (and removed again unless it was there already)."""
    module, sep, name = spec.partition(":")
    if not sep or not module.strip() or not name.strip():
        raise ValueError(f"expected MODULE:{what}, got {spec!r}")
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        importlib.invalidate_caches()  # a module written after the interpreter started is found
        obj = importlib.import_module(module.strip())
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)
    for part in name.strip().split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"{spec}: {type(obj).__name__} {getattr(obj, '__name__', '')!s} has no attribute "
                                 f"{part!r}") from None
    return obj
