"""Packages whose public names load their modules on first use (PEP 562).

A package's ``__init__`` that imports every module it exports makes importing any one of its
modules import them all: a light module (a palette, the opinions' vocabulary) then brings the
heavy ones (folium, the case models) with it, in every command that needs only the light one.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any


def lazy_names(
    namespace: dict[str, Any], homes: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package of `namespace` (its ``globals()``),
    whose public names are found in its modules: `homes` gives each name's module (relative to
    the package).

    A name is imported at its first use and kept in the package from then on.

    Raises
    ------
    ImportError
        If a module of the package is named as a name it exports: importing the submodule
        sets the package's attribute of that name to the module, which then shadows the name
        for good (``from pkg import judge`` would give the module ``pkg.judge``).
    """
    package = namespace["__name__"]
    shadowed = sorted(set(homes) & {m.name for m in pkgutil.iter_modules(namespace["__path__"])})
    if shadowed:
        raise ImportError(f"{package}: modules named as names it exports: {shadowed}")

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value  # found in the package from now on
        return value

    def dir_() -> list[str]:
        return sorted(homes)

    return getattr_, dir_
