"""The method registry: which family of evidence each verdict method belongs to, and its traits.

Every analysis module declares the methods it emits (``"module.method"``
names, as in :attr:`benchverdict.Verdict.method`) by calling
:func:`register_method` at import time, next to the code that emits them.
The report reads what it needs to know about a method -- its family, whether
it pairs observations, what it treats as an independent unit, which part of
the score distribution it summarises, the error rate its decisions are held
to, and whether it votes on the consensus -- from here, never from the
method's name. An unregistered method is an error (:func:`method_info`
raises), so a new method cannot be silently misclassified.

Families of evidence
    ``ranks`` (rank tests on blocks), ``lmem`` (mixed models), ``tuning``
    (tuning curves), ``dse`` (performance distributions). Several tests of
    one family on the same data are one piece of evidence: when the report
    reconciles, each family casts one vote per pair and scope, through its
    *primary* method (or, where that is missing, its first other voting
    method). DSE describes single draws (k = 1 trial) and does not vote on the
    final-budget ranking.

Error control
    ``"per comparison"``: a decided verdict ("a beats b") is wrong with
    probability at most ``alpha`` for that pair; ``"family-wise over
    pairs"``: at most ``alpha`` over all pairs of the analysis (Nemenyi,
    Holm, Tukey); ``"descriptive"``: no guarantee (a figure's band, a
    posterior). Voting methods give a raw (unadjusted) p-value per pair:
    the report adjusts them together (Holm over families, pairs and
    scopes).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

from benchverdict.families import family_label, family_names

__all__ = [
    "ASPECTS",
    "ERROR_CONTROLS",
    "METHODS",
    "MethodInfo",
    "family_of",
    "method_info",
    "register_method",
]

# FAMILIES (the families by precedence, the order sentences list them) and
# FAMILY_LABELS (how sentences name them) are read from the family registry
# (benchverdict.families) whenever they are asked for: module __getattr__ below.
#: What a method's statistic summarises.
ASPECTS = ("centre", "upper tail", "lower tail", "whole distribution", "ranks", "varies with k")
#: How a method's decisions control their error.
ERROR_CONTROLS = ("per comparison", "family-wise over pairs", "descriptive")


@dataclass(frozen=True)
class MethodInfo:
    """What one verdict method is and assumes.

    Attributes
    ----------
    method : str
        ``"module.method"``. With ``parametrised=True`` it also stands for
        ``method + "_" + value`` (e.g. ``"dse.cvar"`` for ``"dse.cvar_0.95"``).
    family : str
        One of :data:`FAMILIES`.
    label : str
        A short human name ("Wilcoxon signed-rank (Holm)").
    paired : bool
        Whether it pairs the two algorithms' observations (by benchmark,
        seed) before comparing them.
    unit : str
        What it treats as an independent observation.
    aspect : str
        One of :data:`ASPECTS`: the part of the score distribution its
        statistic summarises (``"ranks"``: ranks of per-block aggregates;
        ``"varies with k"``: tuning curves, centre at small budgets, upper
        tail at large ones).
    assumptions : str
        What must hold for its error control.
    error_control : str
        One of :data:`ERROR_CONTROLS`.
    votes : bool
        Whether it can cast its family's vote (needs a raw p-value per pair
        in ``Verdict.p_value`` or ``evidence.value``).
    primary : bool
        Whether it is its family's first choice to vote.
    parametrised : bool
        Whether ``method_<value>`` names resolve to this entry.
    scale : {"raw", "ranks", "normalized"} or None
        How score differences enter: on their own scale, only through ranks
        within a block, or after per-benchmark normalisation.
    adjustment : str or None
        The multiple-comparison adjustment its own verdicts use
        (``"nemenyi"``, ``"holm"``, ``"tukey"``), if any.
    iid_draws : bool
        Whether it assumes IID random-search draws.
    """

    method: str
    family: str
    label: str
    paired: bool
    unit: str
    aspect: str
    assumptions: str
    error_control: str
    votes: bool = False
    primary: bool = False
    parametrised: bool = False
    scale: str | None = None
    adjustment: str | None = None
    iid_draws: bool = False

    def __post_init__(self) -> None:
        if "." not in self.method:
            raise ValueError(f"a method is named 'module.method', got {self.method!r}.")
        known = family_names(order="precedence")
        if self.family not in known:
            raise ValueError(f"family must be one of {known} (benchverdict.families), got "
                             f"{self.family!r}.")
        if self.aspect not in ASPECTS:
            raise ValueError(f"aspect must be one of {ASPECTS}, got {self.aspect!r}.")
        if self.error_control not in ERROR_CONTROLS:
            raise ValueError(
                f"error_control must be one of {ERROR_CONTROLS}, got {self.error_control!r}.")
        if self.primary and not self.votes:
            raise ValueError(f"{self.method}: a primary method must vote.")
        if self.scale not in (None, "raw", "ranks", "normalized"):
            raise ValueError(f"scale must be raw, ranks, normalized or None, got {self.scale!r}.")

    @property
    def family_label(self) -> str:
        """The family in words ("rank tests")."""
        return family_label(self.family)


#: Every registered method, by name (filled by the modules at import time).
METHODS: dict[str, MethodInfo] = {}
_PARAMETER = re.compile(r"^(?P<base>[A-Za-z0-9_.]+?)_(?P<value>[-+]?[0-9][0-9.eE+-]*)$")


def register_method(method: str, family: str, label: str, *, paired: bool, unit: str,
                    aspect: str, assumptions: str, error_control: str, votes: bool = False,
                    primary: bool = False, parametrised: bool = False,
                    scale: str | None = None, adjustment: str | None = None,
                    iid_draws: bool = False) -> MethodInfo:
    """Declare a verdict method (called by the module that emits it, at import time).

    Registering the same method again with the same traits is a no-op (a
    module may be re-imported); with different traits it is an error, so
    two modules cannot claim one name.

    Returns
    -------
    MethodInfo

    Examples
    --------
    >>> info = register_method(
    ...     "ranks.doc_example", "ranks", "an example rank test", paired=True,
    ...     unit="benchmark (mean over seeds)", aspect="ranks",
    ...     assumptions="independent blocks", error_control="per comparison",
    ...     scale="ranks")
    >>> method_info("ranks.doc_example").family
    'ranks'
    """
    info = MethodInfo(method, family, label, paired, unit, aspect, assumptions, error_control,
                      votes, primary, parametrised, scale, adjustment, iid_draws)
    known = METHODS.get(method)
    if known is not None and known != info:
        raise ValueError(
            f"method {method!r} is already registered with other traits ({known}); a method "
            f"name belongs to one module.")
    METHODS[method] = info
    return info


def _lookup(method: str) -> MethodInfo | None:
    info = METHODS.get(method)
    if info is not None:
        return info
    m = _PARAMETER.match(method)
    if m is not None:
        base = METHODS.get(m.group("base"))
        if base is not None and base.parametrised:
            return base
    return None


def method_info(method: str) -> MethodInfo:
    """The registry entry of ``method`` (importing its module first if needed).

    Raises
    ------
    KeyError
        For a method no module registered, with the fix.

    Examples
    --------
    >>> method_info("dse.cvar").family
    'dse'
    >>> method_info("ranks.sign_test").paired
    True
    """
    info = _lookup(method)
    if info is None:
        module = method.split(".", 1)[0]
        try:  # the module registers its methods when it is imported
            package = importlib.import_module(f"benchverdict.{module}")
        except ModuleNotFoundError as err:
            # No such module: the KeyError below names the method. A failure inside an
            # existing module is a bug and must not pass as "unregistered".
            if err.name != f"benchverdict.{module}":
                raise
            package = None
        info = _lookup(method)
        # The analysis packages load their modules on first use (benchverdict._lazy), so
        # importing the package need not run the module that registers the method.
        for home in sorted(set(getattr(package, "_HOMES", {}).values())):
            if info is not None:
                break
            importlib.import_module(home)
            info = _lookup(method)
    if info is None:
        known = ", ".join(sorted(METHODS)) or "none"
        raise KeyError(
            f"verdict method {method!r} is not registered, so the report cannot tell which "
            f"family of evidence it belongs to or what it assumes. The module that emits it "
            f"must declare it with benchverdict.methods.register_method(...). Registered: "
            f"{known}.")
    return info


def family_of(method: str) -> str:
    """The family of evidence of ``method`` (see :func:`method_info`).

    Examples
    --------
    >>> family_of("lmem.tukey")
    'lmem'
    """
    return method_info(method).family


def __getattr__(name: str) -> Any:
    """``FAMILIES`` and ``FAMILY_LABELS``, read from the family registry when asked for."""
    if name == "FAMILIES":
        return family_names(order="precedence")
    if name == "FAMILY_LABELS":
        return {n: family_label(n) for n in family_names(order="precedence")}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
