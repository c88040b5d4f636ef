"""The families of evidence: one registry from which every list of analyses derives.

A *family* is one analysis of the report (tuning curves, score
distributions, rank tests, mixed models): a runner that turns a
:class:`~benchverdict.Results` into verdicts, tables and figures, and one
vote per pair and scope when the report reconciles. Everything the rest of
the package knows about a family -- its name, its section title, how a
sentence names it, its matrix abbreviation and letter, which rows it reads,
where its runner lives, the order in which sentences list it, whether a
leaderboard runs it by default -- is a field of its :class:`Family` entry
here. The report's analysis list, headings, legends, applicability, the
JSON schema's enums (:func:`benchverdict.report.render.load_schema`) and the
leaderboard's defaults are read from the registry, so a new family is one
package with a runner and one :func:`register_family` call.

Two orders, both fields of the registry (not lists kept elsewhere):

* the **report order** (registration order): the order the analyses run
  and their sections appear -- from the rows closest to the data (single
  random-search draws) to the most aggregated (incumbents, then a model);
* the **precedence** (:attr:`Family.precedence`): the order in which a
  sentence names the families that settled a relation ("settled by LMEM
  and rank tests"), model-based evidence first.

Examples
--------
>>> family_names()
('tuning', 'dse', 'ranks', 'lmem')
>>> family_names(order="precedence")
('lmem', 'ranks', 'tuning', 'dse')
>>> get_family("dse").label, get_family("dse").reads
('score distributions', 'draws')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

#: ``(results, options) -> AnalysisRun``: a family's runner. Typed loosely on purpose:
#: this module sits below ``results`` and the report, and imports neither (not even for
#: type checkers), so that it starts no import circle.
Runner = Callable[[Any, Any], Any]

__all__ = [
    "BUILTIN_FAMILIES",
    "Family",
    "families",
    "family_label",
    "family_names",
    "family_rank",
    "get_family",
    "leaderboard_families",
    "register_family",
    "registered",
    "unregister_family",
]

#: What a family's runner reads: IID random-search ``"draws"`` (trials data) or the
#: ``"incumbents"`` of runs (an HPO run's best score so far, or a search's best-so-far).
Reads = Literal["draws", "incumbents"]
READS = ("draws", "incumbents")


@dataclass(frozen=True)
class Family:
    """One family of evidence and everything the report needs to know about it.

    Attributes
    ----------
    name : str
        The key (``"lmem"``): a lower-case identifier, used in ``--analyses``,
        in :attr:`benchverdict.Verdict.module` and in ``report.json``.
    title : str
        The report section's heading, with the paper it follows.
    label : str
        How a sentence names it ("settled by *rank tests*").
    short : str
        Its name in a matrix cell ("LMEM", "DSE").
    letter : str
        One upper-case letter for the cells of a wide matrix (unique).
    reads : {"draws", "incumbents"}
        ``"draws"``: IID random-search draws (trials data only);
        ``"incumbents"``: each run's incumbent (HPO runs, or a search's
        best-so-far when the trials have an order). Decides where the
        family applies and whether runs that stop early are left out of it.
    runner : str or callable
        A function ``(results, options) -> AnalysisRun``, or its
        ``"package.module:function"`` path, imported when the family runs (so
        this module stays below the analyses and the report).
    precedence : int
        Lower first in sentences that list several families.
    leaderboard : bool
        Whether a leaderboard runs it by default (it must read incumbents).
    complete_blocks : bool
        Whether it needs every algorithm on every benchmark it uses (rank
        tests: a benchmark is a block). Where the report leaves cells out
        (runs that stop before the final budget), such a family loses the
        algorithm or those benchmarks, whichever keeps more cells.
    """

    name: str
    title: str
    label: str
    short: str
    letter: str
    reads: Reads
    runner: str | Runner
    precedence: int
    leaderboard: bool = False
    complete_blocks: bool = False

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"a family's name must be a lower-case identifier, got "
                             f"{self.name!r}.")
        if self.reads not in READS:
            raise ValueError(f"Family {self.name!r}: reads must be one of {READS}, got "
                             f"{self.reads!r}.")
        if len(self.letter) != 1 or not self.letter.isupper():
            raise ValueError(f"Family {self.name!r}: letter must be one upper-case letter, "
                             f"got {self.letter!r}.")
        if isinstance(self.runner, str) and ":" not in self.runner:
            raise ValueError(f"Family {self.name!r}: runner must read 'module:function', "
                             f"got {self.runner!r}.")
        if not isinstance(self.runner, str) and not callable(self.runner):
            raise ValueError(f"Family {self.name!r}: runner must be a function or its "
                             f"'module:function' path, got {self.runner!r}.")
        if self.leaderboard and self.reads != "incumbents":
            raise ValueError(f"Family {self.name!r}: a leaderboard ranks incumbents, so a "
                             f"family that reads draws cannot be one of its defaults.")

    def run_function(self) -> Runner:
        """The runner, imported from :attr:`runner`.

        Examples
        --------
        >>> get_family("ranks").run_function().__name__
        'run_ranks'
        """
        if not isinstance(self.runner, str):
            return self.runner
        module, _, function = self.runner.partition(":")
        return getattr(importlib.import_module(module), function)


_REGISTRY: dict[str, Family] = {}


def register_family(family: Family, *, replace: bool = False) -> Family:
    """Add ``family`` to the registry (after the families already there).

    Parameters
    ----------
    family : Family
    replace : bool
        Allow replacing an entry of the same name (it keeps its place).

    Returns
    -------
    Family
        ``family``, so the call can be a module-level assignment.

    Raises
    ------
    ValueError
        If the name is taken (and ``replace`` is false), or the letter or
        short name is another family's.

    Examples
    --------
    >>> f = Family("demo", "Demo", "demo tests", "demo", "X", "incumbents",
    ...            "benchverdict.ranks.runner:run_ranks", precedence=9)
    >>> with registered(f):
    ...     family_names()
    ('tuning', 'dse', 'ranks', 'lmem', 'demo')
    """
    if family.name in _REGISTRY and not replace:
        raise ValueError(f"a family named {family.name!r} is already registered; pass "
                         f"replace=True to replace it.")
    for other in _REGISTRY.values():
        if other.name == family.name:
            continue
        if other.letter == family.letter or other.short == family.short:
            raise ValueError(f"Family {family.name!r}: letter {family.letter!r} / short name "
                             f"{family.short!r} already belong to {other.name!r}.")
    _REGISTRY[family.name] = family
    return family


def unregister_family(name: str) -> None:
    """Remove a family (built-in ones included) from the registry.

    Examples
    --------
    >>> f = register_family(Family("demo", "Demo", "demo tests", "demo", "X", "incumbents",
    ...                            "benchverdict.ranks.runner:run_ranks", precedence=9))
    >>> unregister_family("demo"); "demo" in family_names()
    False
    """
    get_family(name)
    del _REGISTRY[name]


@contextmanager
def registered(family: Family) -> Iterator[Family]:
    """Register ``family`` for the duration of a ``with`` block (tests, demos).

    Examples
    --------
    >>> f = Family("demo", "Demo", "demo tests", "demo", "X", "incumbents",
    ...            "benchverdict.ranks.runner:run_ranks", precedence=9)
    >>> with registered(f):
    ...     get_family("demo").label
    'demo tests'
    """
    register_family(family)
    try:
        yield family
    finally:
        _REGISTRY.pop(family.name, None)


def get_family(name: str) -> Family:
    """The registry entry of ``name``, or a clear error naming the known families.

    Examples
    --------
    >>> get_family("lmem").short
    'LMEM'
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown analysis {name!r}; known: {list(_REGISTRY)}.") from None


def families(order: Literal["report", "precedence"] = "report") -> tuple[Family, ...]:
    """The registered families, in report order or by precedence.

    Examples
    --------
    >>> [f.letter for f in families()]
    ['T', 'D', 'R', 'L']
    """
    entries = tuple(_REGISTRY.values())
    if order == "precedence":
        return tuple(sorted(entries, key=lambda f: (f.precedence, f.name)))
    if order != "report":
        raise ValueError(f"order must be 'report' or 'precedence', got {order!r}.")
    return entries


def family_names(order: Literal["report", "precedence"] = "report") -> tuple[str, ...]:
    """The registered families' names (see :func:`families`).

    Examples
    --------
    >>> family_names()[:2]
    ('tuning', 'dse')
    """
    return tuple(f.name for f in families(order))


def leaderboard_families() -> tuple[str, ...]:
    """The families a leaderboard runs by default (and may run), in report order.

    Examples
    --------
    >>> leaderboard_families()
    ('ranks', 'lmem')
    """
    return tuple(f.name for f in families() if f.leaderboard)


def family_rank(name: str) -> tuple[int, str]:
    """A sort key that lists families by precedence (unknown names last).

    Examples
    --------
    >>> sorted(["dse", "lmem", "ranks"], key=family_rank)
    ['lmem', 'ranks', 'dse']
    """
    entry = _REGISTRY.get(name)
    return (entry.precedence if entry is not None else 1 << 30, name)


def family_label(name: str) -> str:
    """How a sentence names family ``name`` (the name itself when it is not registered).

    Examples
    --------
    >>> family_label("tuning")
    'tuning curves'
    """
    entry = _REGISTRY.get(name)
    return entry.label if entry is not None else name


def _builtin(*args: Any, **kwargs: Any) -> Family:
    return register_family(Family(*args, **kwargs))


# Report order: from single draws to models of incumbents.
_builtin("tuning", "Tuning curves (Dodge et al. 2019; Lourie et al. 2024)", "tuning curves",
         "tuning", "T", "draws", "benchverdict.tuning.runner:run_tuning", precedence=2)
_builtin("dse", "Performance distributions (Jordan et al. 2018)", "score distributions",
         "DSE", "D", "draws", "benchverdict.dse.runner:run_dse", precedence=3)
_builtin("ranks", "Rank tests (Demšar 2006; Autorank)", "rank tests", "ranks", "R",
         "incumbents", "benchverdict.ranks.runner:run_ranks", precedence=1,
         leaderboard=True, complete_blocks=True)
_builtin("lmem", "Linear mixed-effects models (Geburek et al. 2024)", "LMEM", "LMEM", "L",
         "incumbents", "benchverdict.lmem.runner:run_lmem", precedence=0,
         leaderboard=True)

#: The families that ship with benchverdict, in report order.
BUILTIN_FAMILIES: tuple[str, ...] = family_names()
