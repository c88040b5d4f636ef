"""Packages whose public names load their modules on first use.

An analysis package (``benchverdict.dse``, ``benchverdict.lmem``, ...) lists
where each public name lives in ``_HOMES`` and calls :func:`load_on_first_use`.
Importing the package then imports none of its modules, so the command line
builds every sub-command's parser (``benchverdict report --help``) without
loading pandas, scipy or matplotlib; ``from benchverdict.dse import cvar``
imports :mod:`benchverdict.dse.statistics` at that moment.

Some public functions share their module's name (``dse.aggregate``,
``ranks.friedman``, ``lmem.glrt``). Python sets a submodule as an attribute
of its package when it is first imported, which would hide the function; the
package's class keeps the function instead.

Examples
--------
>>> import benchverdict.ranks as ranks
>>> import benchverdict.ranks.friedman  # the module, imported first ...
>>> callable(ranks.friedman)            # ... does not hide the function
True
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class LazyPackage(types.ModuleType):
    """A package module that imports a public name's module when the name is first used."""

    def __getattr__(self, name: str) -> Any:
        homes = self.__dict__.get("_HOMES", {})
        if name not in homes:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        self.__dict__[name] = value  # later look-ups skip this method
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        # The import system binds a newly imported submodule to its package's attribute of
        # the same name; where that name is a public function (dse.aggregate), keep the
        # function (the eager package did so by importing the function after the module).
        if isinstance(value, types.ModuleType) and name in self.__dict__.get("_HOMES", {}):
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted(self.__dict__.get("__all__", ()))


def load_on_first_use(module_name: str) -> None:
    """Make the package ``module_name`` (it defines ``_HOMES`` and ``__all__``) lazy."""
    sys.modules[module_name].__class__ = LazyPackage
