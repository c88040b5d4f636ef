"""``Verdict``: one shape for every module's conclusions.

A verdict says "A beats B on scope S, with this evidence". Every analysis
module (tuning curves, ranks, LMEM, DSE) emits them, and the report
reconciles them. Verdicts are frozen dataclasses, flatten to a tidy frame
with :func:`verdicts_to_frame`, and round-trip losslessly through JSON
(including ``inf`` and ``nan``).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

import pandas as pd

from benchverdict.methods import MethodInfo, method_info, register_method

__all__ = [
    "EVIDENCE_KINDS",
    "JSON_SCHEMA_VERSION",
    "OUTCOMES",
    "VERDICT_COLUMNS",
    "Effect",
    "Evidence",
    "MethodInfo",
    "Scope",
    "SingleDraw",
    "Verdict",
    "metafeature_label",
    "method_info",
    "register_method",
    "verdict_from_dict",
    "verdict_to_dict",
    "verdicts_from_json",
    "verdicts_to_frame",
    "verdicts_to_json",
]

Outcome = Literal["a", "b", "tie", "inconclusive"]
OUTCOMES = ("a", "b", "tie", "inconclusive")
EvidenceKind = Literal["p_value", "confidence", "band", "posterior", "descriptive"]
EVIDENCE_KINDS = ("p_value", "confidence", "band", "posterior", "descriptive")
Strength = Literal["weak", "fair", "strong"]
#: Version of the JSON layout written by :func:`verdicts_to_json` (2: verdicts carry ``lean``;
#: 3: an effect's interval is ``lower``/``upper`` at ``confidence``, was ``low``/``high``/
#: ``level``; 4: a scope's trial counts ``k`` are ``trials_low``/``trials_high``, and
#: ``budget_low``/``budget_high`` are always in the budget column's unit; 5: what the report
#: decides by is in typed fields (``p_value``, ``p_one_sided``, ``parameter``, ``caveats``,
#: ``sizes``, ``estimand``, ``no_vote``, ``pooling``, ``single_draw``), no longer in
#: ``details``, and a CVaR level is ``parameter``, no longer part of the method's name).
JSON_SCHEMA_VERSION = 5
#: Versions :func:`verdicts_from_json` reads (version 1 has no ``lean``: it reads as ``None``;
#: versions 1 and 2 name the effect's interval ``low``/``high``/``level``; versions 1 to 3
#: held a tuning curve's ``k`` and DSE's single draw in ``budget_low``/``budget_high``:
#: they are read as trial counts).
READABLE_SCHEMA_VERSIONS = (1, 2, 3, 4, 5)
#: What a claim across benchmarks is about: benchmarks like the observed ones, exactly
#: the observed ones, or one benchmark.
VERDICT_ESTIMANDS = ("benchmarks", "these", "benchmark")


def metafeature_label(levels: Iterable[tuple[str, str]], sep: str = ";") -> str | None:
    """Metafeature levels as ``name=level`` joined by ``sep``; ``None`` without any.

    The one spelling of a scope's metafeature levels in tables, reports and text.

    Examples
    --------
    >>> metafeature_label((("prior", "good"), ("task", "t1")))
    'prior=good;task=t1'
    >>> metafeature_label(()) is None
    True
    """
    return sep.join(f"{k}={v}" for k, v in levels) or None


@dataclass(frozen=True)
class Scope:
    """Where a verdict holds.

    A scope has two budget axes, each in one unit only, and never mixes them:

    * ``budget_low``/``budget_high`` are values of the data's budget column, in
      its unit (a trial index, seconds, epochs, ...). Rank tests and LMEMs
      compare incumbents at a budget; both ``None`` means the final budget (or
      that budget plays no role).
    * ``trials_low``/``trials_high`` are numbers ``k`` of random-search draws
      (trials), whatever the budget column holds: a tuning curve is a function
      of ``k``, and a score distribution (DSE) describes one draw (``k = 1``).

    Rescaling or shifting the budget column changes the budget fields by the
    same transform and leaves the trial counts, :attr:`key` and every verdict
    as they are.

    Attributes
    ----------
    benchmark : str or None
        One benchmark, or ``None`` for all benchmarks together.
    budget_low, budget_high : float or None
        The budget range in the budget column's unit (equal for a single
        budget; both ``None`` for the final budget or when budget plays no
        role).
    metafeature : tuple of (str, str) pairs
        Metafeature levels the verdict is restricted to, e.g.
        ``(("prior", "good"),)``.
    trials_low, trials_high : float or None
        The range of ``k``, the number of random-search draws (both ``None``
        when the verdict is not about ``k`` draws).

    Examples
    --------
    >>> s = Scope("moons", trials_low=1, trials_high=5)
    >>> str(s), s.key, s.where()
    ('benchmark moons, k = 1-5', ('moons', ()), 'k = 1-5')
    >>> Scope(budget_low=3000.0, budget_high=3000.0).where()
    'budget 3000'
    >>> Scope().where(), Scope().where(final_budget=50)
    ('any', 'final')
    """

    benchmark: str | None = None
    budget_low: float | None = None
    budget_high: float | None = None
    metafeature: tuple[tuple[str, str], ...] = ()
    trials_low: float | None = None
    trials_high: float | None = None

    def __post_init__(self) -> None:
        for name in ("budget", "trials"):
            lo, hi = getattr(self, f"{name}_low"), getattr(self, f"{name}_high")
            if (lo is None) != (hi is None):
                raise ValueError(f"give both {name}_low and {name}_high, or neither.")
            if lo is not None and hi is not None and lo > hi:
                raise ValueError(f"{name}_low {lo} > {name}_high {hi}.")
        if self.trials_low is not None and self.trials_low < 0:
            raise ValueError(f"trials_low counts random-search draws, got {self.trials_low}.")
        object.__setattr__(
            self, "metafeature", tuple((str(k), str(v)) for k, v in self.metafeature)
        )

    @property
    def key(self) -> tuple[str | None, tuple[tuple[str, str], ...]]:
        """The scope group: ``(benchmark, metafeature)``, the same in every budget unit.

        Verdicts of different methods and families about one pair are
        reconciled within a key; where on the budget axes each one sits
        (:meth:`where`) decides which of them speak for the final budget.
        """
        return (self.benchmark, self.metafeature)

    @property
    def axis(self) -> Literal["budget", "trials"] | None:
        """The axis the scope is placed on: ``"budget"``, ``"trials"``, or ``None`` (final)."""
        if self.budget_low is not None:
            return "budget"
        if self.trials_low is not None:
            return "trials"
        return None

    def where(self, final_budget: float | None = None) -> str:
        """The budget part of the label: ``"budget 5"``, ``"k = 1-5"``, ``"final"``, ``"any"``.

        A scope without budget or trial count is at the final budget (``"final"``
        when there is one, else ``"any"``).
        """
        if self.budget_low is not None and self.budget_high is not None:
            return _range_text("budget", self.budget_low, self.budget_high)
        if self.trials_low is not None and self.trials_high is not None:
            return _range_text("k", self.trials_low, self.trials_high)
        return "final" if final_budget is not None else "any"

    def label(self, *, budget: bool = True) -> str:
        """The scope in words (``str(scope)``); ``budget=False``: its :attr:`key` only.

        Examples
        --------
        >>> Scope("moons", 5, 5, (("prior", "good"),)).label()
        'benchmark moons, budget 5, prior=good'
        >>> Scope(None, 5, 5).label(budget=False)
        'all benchmarks'
        """
        parts = [f"benchmark {self.benchmark}" if self.benchmark is not None else "all benchmarks"]
        if budget and self.axis is not None:
            parts.append(self.where())
        if self.metafeature:
            parts.append(metafeature_label(self.metafeature, ", "))
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.label()


def _range_text(name: str, low: float, high: float) -> str:
    if name == "k":
        return f"k = {low:g}" if low == high else f"k = {low:g}-{high:g}"
    return f"{name} {low:g}" if low == high else f"{name}s {low:g}-{high:g}"


@dataclass(frozen=True)
class Evidence:
    """How strongly the data support the outcome.

    Attributes
    ----------
    kind : {"p_value", "confidence", "band", "posterior", "descriptive"}
        ``p_value``: a test's (adjusted) p-value in ``value`` against
        ``level`` (alpha). ``confidence``: a confidence interval at
        ``level`` excluded (or did not) the null. ``band``: Lourie et al.'s
        simultaneous-band evidence, with ``strength``. ``descriptive``: no
        inferential guarantee (say so in the explanation).
    value : float or None
        The p-value, posterior probability, etc.
    level : float or None
        Alpha for p-values, the confidence level for intervals and bands.
    strength : {"weak", "fair", "strong"} or None
        Band evidence strength (Lourie et al. §2).
    """

    kind: EvidenceKind
    value: float | None = None
    level: float | None = None
    strength: Strength | None = None

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind must be one of {EVIDENCE_KINDS}, got {self.kind!r}.")
        if self.strength is not None and self.strength not in ("weak", "fair", "strong"):
            raise ValueError(f"strength must be weak, fair or strong, got {self.strength!r}.")

    def __str__(self) -> str:
        if self.kind == "p_value":
            return f"p = {_fmt(self.value)} (alpha = {_fmt(self.level)})"
        if self.kind == "band":
            return f"{self.strength or 'no'} evidence at {_fmt(self.level)} confidence"
        if self.kind == "confidence":
            return f"{_fmt(self.level)} confidence interval"
        if self.kind == "posterior":
            return f"posterior probability {_fmt(self.value)}"
        return "descriptive (no inferential guarantee)"


@dataclass(frozen=True)
class Effect:
    """An effect size with its interval, oriented so that positive favours ``a``.

    Attributes
    ----------
    name : str
        What it measures, e.g. ``"mean difference"``, ``"Cliff's delta"``.
    estimate : float
    lower, upper : float or None
        The interval's endpoints (``None`` if there is none).
    confidence : float or None
        The interval's confidence level.
    """

    name: str
    estimate: float
    lower: float | None = None
    upper: float | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class SingleDraw:
    """How often a single draw of ``a`` beats one of ``b``, with its interval and test.

    Attributes
    ----------
    probability : float
        ``P(a single draw of a beats one of b)``, ties counting half.
    lower, upper : float or None
        Its confidence interval.
    p_value : float or None
        The raw p-value of "single draws of the two win equally often"
        (computed on whole runs when draws share a run).
    min_p : float or None
        The smallest p-value the data allow that test (its runs' splits, or
        benchmarks' sign flips when pooled): where it is above a threshold, no
        data like these can pass it.

    Examples
    --------
    >>> SingleDraw(0.7, 0.6, 0.8, 0.001).swapped()  # doctest: +NORMALIZE_WHITESPACE
    SingleDraw(probability=0.30000000000000004, lower=0.19999999999999996, upper=0.4,
               p_value=0.001, min_p=None)
    """

    probability: float
    lower: float | None = None
    upper: float | None = None
    p_value: float | None = None
    min_p: float | None = None

    def swapped(self) -> SingleDraw:
        """The same comparison seen from ``b``'s side."""
        return SingleDraw(1.0 - self.probability,
                          None if self.upper is None else 1.0 - self.upper,
                          None if self.lower is None else 1.0 - self.lower, self.p_value,
                          self.min_p)


@dataclass(frozen=True)
class Verdict:
    """One comparison's conclusion: whether ``a`` beats ``b`` on ``scope``.

    Attributes
    ----------
    a, b : str
        The two algorithms.
    outcome : {"a", "b", "tie", "inconclusive"}
        ``"a"``/``"b"``: that algorithm is better (in the objective's
        direction), a decision whose error the method controls at its
        stated level (``evidence.level``). ``"tie"``: the method positively
        supports equivalence (rare). ``"inconclusive"``: the data do not
        separate them at that level.
    method : str
        The method, ``"module.method"``, e.g. ``"ranks.nemenyi"``; declared
        by the module that emits it (:mod:`benchverdict.methods`).
    scope : Scope
    evidence : Evidence
    effect : Effect or None
    objective : {"maximize", "minimize"}
    unit : str
        The replication unit the method treats as independent, e.g.
        ``"benchmark (mean over seeds)"`` or ``"random-search draw"``.
    n : int or None
        How many independent units the method saw.
    explanation : str
        One line a reader can check.
    details : mapping
        Anything else, JSON-serialisable (kept in the JSON round trip), for
        display only: the report decides nothing by it (a test keeps it so);
        what it decides by is in the typed fields below.
    lean : {"a", "b"} or None
        Evidence below the decision bar that points one way (Lourie et al.'s
        weak or fair band evidence, an 80% band or interval that excludes
        the other): only with an ``"inconclusive"`` outcome, never a win,
        and never used to settle a relation. Its strength is in
        ``evidence.strength`` (bands) or ``details``.
    p_value : float or None
        The raw p-value of the test behind the outcome, before any
        adjustment the report makes over a family's votes (a method that
        adjusts within itself, e.g. Tukey or Nemenyi, gives its unadjusted
        p-value here and decides by its own adjustment).
    p_one_sided : (float, float) or None
        One-sided p-values: that ``a`` is better, that ``b`` is better.
    parameter : float or None
        The method's parameter, named by its registry entry
        (:attr:`benchverdict.methods.MethodInfo.parameter`, e.g. the CVaR
        level of ``dse.cvar``); part of what the method is, never of its name.
    caveats : tuple of str
        Assumptions the emitting module found violated or doubtful for this
        verdict (a singular fit, ties, draws that are not IID, seed effects
        the model does not include), each a phrase a reader can check.
    sizes : (int, int) or None
        Independent units on each side (``a``, ``b``), where the two differ
        from ``n``.
    estimand : {"benchmarks", "these", "benchmark"} or None
        What a claim covers: benchmarks like the observed ones, exactly the
        observed ones, or one benchmark (``None``: the family's default).
    no_vote : str or None
        Why this verdict describes and does not vote, where its method
        otherwise would (e.g. draws that share a run).
    pooling : str or None
        How a claim across benchmarks combines per-benchmark tests, where it
        does (``"intersection-union"``: better on every benchmark).
    single_draw : SingleDraw or None
        How often a single draw of ``a`` beats one of ``b`` (DSE dominance).

    Examples
    --------
    >>> v = Verdict(a="PB", b="RS", outcome="a", method="ranks.nemenyi",
    ...             scope=Scope(), evidence=Evidence("p_value", 0.003, 0.05),
    ...             objective="minimize", unit="benchmark", n=12,
    ...             explanation="PB ranks 1.2 better on average (CD 0.96).")
    >>> v.winner
    'PB'
    >>> verdicts_from_json(verdicts_to_json([v]))[0] == v
    True
    """

    a: str
    b: str
    outcome: Outcome
    method: str
    scope: Scope
    evidence: Evidence
    objective: str
    explanation: str
    effect: Effect | None = None
    unit: str = ""
    n: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    lean: Literal["a", "b"] | None = None
    p_value: float | None = None
    p_one_sided: tuple[float, float] | None = None
    parameter: float | None = None
    caveats: tuple[str, ...] = ()
    sizes: tuple[int, int] | None = None
    estimand: str | None = None
    no_vote: str | None = None
    pooling: str | None = None
    single_draw: SingleDraw | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, got {self.outcome!r}.")
        if self.lean not in (None, "a", "b"):
            raise ValueError(f"lean must be 'a', 'b' or None, got {self.lean!r}.")
        if self.lean is not None and self.outcome != "inconclusive":
            raise ValueError(
                f"a lean is evidence below the decision bar, so it goes with an "
                f"'inconclusive' outcome, got outcome {self.outcome!r} with lean {self.lean!r}.")
        if self.objective not in ("maximize", "minimize"):
            raise ValueError(f"objective must be maximize or minimize, got {self.objective!r}.")
        if self.a == self.b:
            raise ValueError(f"a verdict compares two different algorithms, got {self.a!r} twice.")
        if self.estimand not in (None, *VERDICT_ESTIMANDS):
            raise ValueError(f"estimand must be one of {VERDICT_ESTIMANDS} or None, got "
                             f"{self.estimand!r}.")
        # The normalised fields are written into __dict__, where a frozen dataclass keeps
        # them (what object.__setattr__ does, at a fraction of the cost: a 200-algorithm
        # report makes 320,000 verdicts).
        fields_ = self.__dict__
        fields_["a"] = str(self.a)
        fields_["b"] = str(self.b)
        fields_["details"] = dict(self.details)
        fields_["caveats"] = tuple(map(str, self.caveats))
        if self.p_value is not None:
            fields_["p_value"] = float(self.p_value)
        if self.parameter is not None:
            fields_["parameter"] = float(self.parameter)
        if self.p_one_sided is not None:
            pa, pb = self.p_one_sided
            fields_["p_one_sided"] = (float(pa), float(pb))
        if self.sizes is not None:
            na, nb = self.sizes
            fields_["sizes"] = (int(na), int(nb))
        if isinstance(self.single_draw, Mapping):
            fields_["single_draw"] = SingleDraw(**self.single_draw)

    def __hash__(self) -> int:
        return hash((self.a, self.b, self.outcome, self.method, self.scope, self.evidence,
                     self.lean))

    @property
    def winner(self) -> str | None:
        """The better algorithm's name, or ``None`` for a tie or no decision."""
        return {"a": self.a, "b": self.b}.get(self.outcome)

    @property
    def leans_to(self) -> str | None:
        """The algorithm the evidence leans to (below the decision bar), or ``None``."""
        return {"a": self.a, "b": self.b}.get(self.lean or "")

    @property
    def module(self) -> str:
        """The analysis module, e.g. ``"ranks"``."""
        return self.method.split(".", 1)[0]

    @property
    def method_label(self) -> str:
        """The method with its parameter, e.g. ``"dse.cvar_0.95"``: how tables name it.

        Built from :attr:`method` and :attr:`parameter`, never parsed back.

        Examples
        --------
        >>> v = Verdict("A", "B", "a", "dse.cvar", Scope(), Evidence("p_value", 0.01, 0.05),
        ...             "maximize", "", parameter=0.95)
        >>> v.method_label
        'dse.cvar_0.95'
        """
        return self.method if self.parameter is None else f"{self.method}_{self.parameter:g}"

    def swapped(self) -> Verdict:
        """The same verdict with ``a`` and ``b`` exchanged (effect negated)."""
        outcome = {"a": "b", "b": "a"}.get(self.outcome, self.outcome)
        lean = {"a": "b", "b": "a"}.get(self.lean or "")
        effect = self.effect
        if effect is not None:
            effect = Effect(
                effect.name,
                -effect.estimate,
                None if effect.upper is None else -effect.upper,
                None if effect.lower is None else -effect.lower,
                effect.confidence,
            )
        return Verdict(
            a=self.b, b=self.a, outcome=outcome, method=self.method, scope=self.scope,
            evidence=self.evidence, objective=self.objective, explanation=self.explanation,
            effect=effect, unit=self.unit, n=self.n, details=self.details, lean=lean,
            p_value=self.p_value,
            p_one_sided=None if self.p_one_sided is None else self.p_one_sided[::-1],
            parameter=self.parameter, caveats=self.caveats,
            sizes=None if self.sizes is None else self.sizes[::-1],
            estimand=self.estimand, no_vote=self.no_vote, pooling=self.pooling,
            single_draw=None if self.single_draw is None else self.single_draw.swapped(),
        )

    def __str__(self) -> str:
        head = {
            "a": f"{self.a} beats {self.b}",
            "b": f"{self.b} beats {self.a}",
            "tie": f"{self.a} and {self.b} tie",
            "inconclusive": f"{self.a} vs {self.b}: inconclusive",
        }[self.outcome]
        if self.lean is not None:
            strength = f", {self.evidence.strength}" if self.evidence.strength else ""
            head += f" (leans {self.leans_to}{strength})"
        return (f"{head} on {self.scope} [{self.method_label}; {self.evidence}]: "
                f"{self.explanation}")


VERDICT_COLUMNS = [
    "a", "b", "outcome", "winner", "lean", "method", "module", "benchmark", "budget_low",
    "budget_high", "trials_low", "trials_high", "metafeature", "evidence_kind", "evidence_value",
    "evidence_level", "strength",
    "effect_name", "effect", "effect_lower", "effect_upper", "effect_confidence", "objective",
    "unit",
    "n", "explanation",
]


def verdicts_to_frame(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """Flatten verdicts into a tidy frame, one row per verdict.

    The ``method`` column is :attr:`Verdict.method_label` (the method with its
    parameter, e.g. ``dse.cvar_0.95``), so verdicts of one method at two
    parameters stay apart.

    Examples
    --------
    >>> v = Verdict("A", "B", "a", "dse.dominance", Scope(benchmark="moons"),
    ...             Evidence("confidence", level=0.95), "maximize", "A's band lies right of B's")
    >>> verdicts_to_frame([v])[["a", "b", "winner", "benchmark"]]
       a  b winner benchmark
    0  A  B      A     moons
    """
    # Column by column: a dict per verdict took 1.2 kB each, 330 MB at the peak of
    # writing a 200-algorithm report's 280,000 verdicts (a test checks the frame is
    # the one the dicts gave).
    verdicts = list(verdicts)
    if not verdicts:  # object columns, as from no records
        return pd.DataFrame([], columns=VERDICT_COLUMNS)
    return pd.DataFrame(_verdict_columns(verdicts), columns=VERDICT_COLUMNS)


def verdict_frames(verdicts: Iterable[Verdict], size: int = 50_000) -> Iterator[pd.DataFrame]:
    """:func:`verdicts_to_frame` in parts of at most ``size`` rows, each with the whole's dtypes.

    Concatenated, the parts equal the whole frame (index aside), so a CSV written
    part by part has the same bytes; but only one part's text is held at a time
    (the whole frame of a 200-algorithm report's 280,000 verdicts takes 0.2 GB).

    Examples
    --------
    >>> vs = [Verdict("A", "B", "a", "ranks.nemenyi", Scope(budget_low=b, budget_high=b),
    ...               Evidence("p_value", 0.01, 0.05), "maximize", "x") for b in (None, 3, 4)]
    >>> [f["budget_low"].tolist() for f in verdict_frames(vs, size=2)]
    [[nan, 3.0], [4.0]]
    """
    verdicts = list(verdicts)
    if not verdicts:
        yield verdicts_to_frame(verdicts)
        return
    columns = _verdict_columns(verdicts)
    # The dtype pandas gives each whole column, so that no part infers another (a part
    # without a missing budget would be int64 and print "3" where the whole prints "3.0").
    dtypes = {name: _inferred_dtype(values) for name, values in columns.items()}
    for start in range(0, len(verdicts), size):
        part = {name: pd.Series(values[start:start + size], dtype=dtypes[name])
                for name, values in columns.items()}
        frame = pd.DataFrame(part, columns=VERDICT_COLUMNS)
        frame.index = pd.RangeIndex(start, start + len(frame))
        yield frame


def _inferred_dtype(values: list[Any]) -> Any:
    """The dtype ``pd.DataFrame({"c": values})`` gives the column, without building it.

    Text is recognised by :func:`pandas.api.types.infer_dtype`, without copying
    it into the string dtype; anything else is converted, which is cheap.
    """
    if pd.api.types.infer_dtype(values, skipna=True) == "string":
        return pd.Series(["x", None]).dtype  # the string dtype this pandas infers
    # Numbers, flags, all-missing or mixed columns: converting them copies no text.
    return pd.Series(values).dtype


def _verdict_columns(verdicts: list[Verdict]) -> dict[str, list[Any]]:
    """The columns of :func:`verdicts_to_frame` as lists, by name."""
    scopes = [v.scope for v in verdicts]
    evidence = [v.evidence for v in verdicts]
    effects = [v.effect for v in verdicts]

    def effect_field(name: str) -> list[Any]:
        return [None if e is None else getattr(e, name) for e in effects]

    columns = {
        "a": [v.a for v in verdicts],
        "b": [v.b for v in verdicts],
        "outcome": [v.outcome for v in verdicts],
        "winner": [v.winner for v in verdicts],
        "lean": [v.leans_to for v in verdicts],
        "method": [v.method_label for v in verdicts],
        "module": [v.module for v in verdicts],
        "benchmark": [s.benchmark for s in scopes],
        "budget_low": [s.budget_low for s in scopes],
        "budget_high": [s.budget_high for s in scopes],
        "trials_low": [s.trials_low for s in scopes],
        "trials_high": [s.trials_high for s in scopes],
        "metafeature": [metafeature_label(s.metafeature) for s in scopes],
        "evidence_kind": [x.kind for x in evidence],
        "evidence_value": [x.value for x in evidence],
        "evidence_level": [x.level for x in evidence],
        "strength": [x.strength for x in evidence],
        "effect_name": effect_field("name"),
        "effect": effect_field("estimate"),
        "effect_lower": effect_field("lower"),
        "effect_upper": effect_field("upper"),
        "effect_confidence": effect_field("confidence"),
        "objective": [v.objective for v in verdicts],
        "unit": [v.unit for v in verdicts],
        "n": [v.n for v in verdicts],
        "explanation": [v.explanation for v in verdicts],
    }
    return columns


def _encode(value: Any) -> Any:
    """Plain JSON values: floats made safe (inf and nan become tagged strings).

    Dataclasses become dicts of their fields and tuples lists, in one pass
    (``dataclasses.asdict`` first deep-copies every value: most of the time
    of writing 60,000 verdicts).
    """
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return _encode_sequence(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _encode(value.item())
    return value


#: Types :func:`_encode` returns unchanged (``bool`` is its own type, not ``int``).
_PLAIN_TYPES = frozenset({str, int, bool, type(None)})


def _encode_sequence(value: list | tuple) -> list:
    """``[_encode(v) for v in value]``, with lists of plain values answered at C speed.

    A tuning-curve verdict lists every budget it covers (hundreds of floats):
    the element-wise recursion made 4.6 million calls writing a 10^6-trial
    report. When every element is of a plain type (finite floats included),
    each would come back unchanged, so a copy of the list is the answer.
    """
    kinds = set(map(type, value))
    if kinds <= _PLAIN_TYPES or (kinds == {float} and all(map(math.isfinite, value))):
        return list(value)
    return [_encode(v) for v in value]


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return float(value["$float"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _leaf(value: Any) -> Any:
    """:func:`_encode` of one field, with the common plain types decided by exact type.

    The exact-type checks answer a verdict's strings, ints, ``None`` and finite
    floats without :func:`_encode`'s chain of ``isinstance`` tests; anything
    else (numpy scalars, non-finite floats, containers) goes through it.
    """
    t = type(value)
    if value is None or t is str or t is int or t is bool:
        return value
    if t is float and math.isfinite(value):
        return value
    return _encode(value)


def _pair(value: Any) -> Any:
    return None if value is None else [_leaf(x) for x in value]


def _encode_verdict(v: Verdict) -> dict[str, Any]:
    """:func:`_encode` of a :class:`Verdict` whose parts are of their declared classes.

    The same dict, key for key and in the same order (a test compares the
    two on every kind of field), written out field by field: the generic
    recursion made 13 million calls for the 280,000 verdicts of a
    200-algorithm report.
    """
    s, ev, ef, sd = v.scope, v.evidence, v.effect, v.single_draw
    return {
        # a and b are made str by Verdict itself.
        "a": v.a, "b": v.b, "outcome": _leaf(v.outcome),
        "method": _leaf(v.method),
        "scope": {
            "benchmark": _leaf(s.benchmark), "budget_low": _leaf(s.budget_low),
            "budget_high": _leaf(s.budget_high),
            "metafeature": [[_leaf(k), _leaf(x)] for k, x in s.metafeature],
            "trials_low": _leaf(s.trials_low), "trials_high": _leaf(s.trials_high),
        },
        "evidence": {"kind": _leaf(ev.kind), "value": _leaf(ev.value),
                     "level": _leaf(ev.level), "strength": _leaf(ev.strength)},
        "objective": _leaf(v.objective), "explanation": _leaf(v.explanation),
        "effect": None if ef is None else {
            "name": _leaf(ef.name), "estimate": _leaf(ef.estimate), "lower": _leaf(ef.lower),
            "upper": _leaf(ef.upper), "confidence": _leaf(ef.confidence)},
        "unit": _leaf(v.unit), "n": _leaf(v.n),
        "details": {k if type(k) is str else str(k): _leaf(x) for k, x in v.details.items()},
        "lean": _leaf(v.lean), "p_value": _leaf(v.p_value),
        "p_one_sided": _pair(v.p_one_sided), "parameter": _leaf(v.parameter),
        "caveats": [_leaf(c) for c in v.caveats], "sizes": _pair(v.sizes),
        "estimand": _leaf(v.estimand), "no_vote": _leaf(v.no_vote),
        "pooling": _leaf(v.pooling),
        "single_draw": None if sd is None else {
            "probability": _leaf(sd.probability), "lower": _leaf(sd.lower),
            "upper": _leaf(sd.upper), "p_value": _leaf(sd.p_value),
            "min_p": _leaf(sd.min_p)},
    }


#: The field names :func:`_encode_verdict` writes, by class: a verdict (or part) of
#: another class, or of one whose fields changed, takes the generic :func:`_encode`.
_FLAT_FIELDS = {
    "Verdict": ("a", "b", "outcome", "method", "scope", "evidence", "objective",
                "explanation", "effect", "unit", "n", "details", "lean", "p_value",
                "p_one_sided", "parameter", "caveats", "sizes", "estimand", "no_vote",
                "pooling", "single_draw"),
    "Scope": ("benchmark", "budget_low", "budget_high", "metafeature", "trials_low",
              "trials_high"),
    "Evidence": ("kind", "value", "level", "strength"),
    "Effect": ("name", "estimate", "lower", "upper", "confidence"),
    "SingleDraw": ("probability", "lower", "upper", "p_value", "min_p"),
}


def _flat_ok() -> bool:
    return all(tuple(f.name for f in fields(cls)) == _FLAT_FIELDS[cls.__name__]
               for cls in (Verdict, Scope, Evidence, Effect, SingleDraw))


_FLAT = _flat_ok()

#: The fields :meth:`Verdict.__post_init__` checks or normalises.
_CHECKED_FIELDS = frozenset({"a", "b", "outcome", "lean", "objective", "estimand"})
_VERDICT_FIELDS = frozenset(f.name for f in fields(Verdict))


def replaced(verdict: Verdict, **changes: Any) -> Verdict:
    """``dataclasses.replace(verdict, **changes)``, without re-checking unchanged fields.

    When ``changes`` touch none of the fields :class:`Verdict` checks (the
    scope, explanation, details, caveats, effect, ...), the copy is made
    without running the checks again: an analysis that re-words 200,000
    verdicts spent seconds re-validating them. Anything else goes through
    :func:`dataclasses.replace`.

    Examples
    --------
    >>> v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
    ...             "maximize", "x")
    >>> w = replaced(v, explanation="y", scope=Scope("moons"))
    >>> (w.explanation, w.scope.benchmark, v.explanation), w == dataclasses.replace(
    ...     v, explanation="y", scope=Scope("moons"))
    (('y', 'moons', 'x'), True)
    """
    if (type(verdict) is not Verdict or not changes.keys() <= _VERDICT_FIELDS
            or not _CHECKED_FIELDS.isdisjoint(changes)):
        return dataclasses.replace(verdict, **changes)
    new = object.__new__(Verdict)
    # A frozen dataclass: its fields live in __dict__ (object.__setattr__ is how
    # __post_init__ itself writes them).
    new.__dict__.update(verdict.__dict__)
    new.__dict__.update(changes)
    return new


def verdict_to_dict(verdict: Verdict) -> dict[str, Any]:
    """A JSON-safe dict of one verdict (see :func:`verdicts_to_json`)."""
    if (_FLAT and type(verdict) is Verdict and type(verdict.scope) is Scope
            and type(verdict.evidence) is Evidence
            and (verdict.effect is None or type(verdict.effect) is Effect)
            and (verdict.single_draw is None or type(verdict.single_draw) is SingleDraw)
            and (verdict.p_one_sided is None or isinstance(verdict.p_one_sided, (tuple, list)))
            and (verdict.sizes is None or isinstance(verdict.sizes, (tuple, list)))
            and isinstance(verdict.caveats, (tuple, list))
            and isinstance(verdict.details, Mapping)):
        return _encode_verdict(verdict)
    return _encode(verdict)


def verdict_from_dict(data: Mapping[str, Any], *, schema_version: int = JSON_SCHEMA_VERSION
                      ) -> Verdict:
    """Rebuild a verdict from :func:`verdict_to_dict`'s output.

    Before ``schema_version`` 4 a tuning-curve verdict's ``k`` and a DSE verdict's
    single draw were written as ``budget_low``/``budget_high``; they are read as
    ``trials_low``/``trials_high``.
    """
    d = _decode(dict(data))
    if schema_version < 5:
        d = _typed_from_details(d)
    scope = d["scope"]
    budget = (scope["budget_low"], scope["budget_high"])
    trials = (scope.get("trials_low"), scope.get("trials_high"))
    if schema_version < 4 and budget[0] is not None and (
            str(d["method"]).startswith("tuning.")
            or (str(d["method"]).startswith("dse.") and budget == (1.0, 1.0))):
        budget, trials = (None, None), budget
    scope = Scope(
        benchmark=scope["benchmark"],
        budget_low=budget[0],
        budget_high=budget[1],
        metafeature=tuple(tuple(p) for p in scope["metafeature"]),
        trials_low=trials[0],
        trials_high=trials[1],
    )
    effect = None if d.get("effect") is None else Effect(**_effect_fields(d["effect"]))
    return Verdict(
        a=d["a"],
        b=d["b"],
        outcome=d["outcome"],
        method=d["method"],
        scope=scope,
        evidence=Evidence(**d["evidence"]),
        objective=d["objective"],
        explanation=d["explanation"],
        effect=effect,
        unit=d.get("unit", ""),
        n=d.get("n"),
        details=d.get("details", {}),
        lean=d.get("lean"),
        p_value=d.get("p_value"),
        p_one_sided=d.get("p_one_sided"),
        parameter=d.get("parameter"),
        caveats=tuple(d.get("caveats") or ()),
        sizes=d.get("sizes"),
        estimand=d.get("estimand"),
        no_vote=d.get("no_vote"),
        pooling=d.get("pooling"),
        single_draw=d.get("single_draw"),
    )


def _number(value: Any) -> float | None:
    return (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
            else None)


def _typed_from_details(d: dict[str, Any]) -> dict[str, Any]:
    """A version 1-4 verdict with what the report decides by moved from details to fields.

    Those versions kept the raw and one-sided p-values, group sizes, estimand,
    caveats, the single-draw probability and a CVaR level (also as the
    method's suffix, ``dse.cvar_0.95``) in ``details``.
    """
    details = dict(d.get("details") or {})
    out = dict(d)
    out["p_value"] = _number(details.get("p_value"))
    pa, pb = _number(details.get("p_a_better")), _number(details.get("p_b_better"))
    out["p_one_sided"] = (pa, pb) if pa is not None and pb is not None else None
    na, nb = details.get("n_a"), details.get("n_b")
    out["sizes"] = ((na, nb) if isinstance(na, int) and isinstance(nb, int) else None)
    estimand = details.get("estimand")
    out["estimand"] = estimand if estimand in VERDICT_ESTIMANDS else None
    out["no_vote"] = details.get("no_vote") or None
    out["pooling"] = "intersection-union" if details.get("combined") else None
    caveats = [str(c) for c in details.get("violated_assumptions") or ()]
    if details.get("singular"):
        caveats.insert(0, "singular fit (a variance component is at zero)")
    out["caveats"] = caveats
    share = _number(details.get("p_single_draw"))
    if share is not None:
        iv = details.get("p_single_draw_interval") or (None, None)
        out["single_draw"] = {"probability": share, "lower": _number(iv[0]),
                              "upper": _number(iv[1]),
                              "p_value": _number(details.get("p_single_draw_test"))}
    method = str(d["method"])
    level = _number(details.get("cvar_level"))
    if method.startswith("dse.cvar_"):
        suffix = method[len("dse.cvar_"):]
        level = float(suffix) if level is None else level
        out["method"] = "dse.cvar"
    out["parameter"] = level if method.startswith("dse.cvar") else None
    return out


#: The effect fields of schema versions 1 and 2, by their current names.
_OLD_EFFECT_FIELDS = {"low": "lower", "high": "upper", "level": "confidence"}


def _effect_fields(effect: Mapping[str, Any]) -> dict[str, Any]:
    """An effect's fields under the current names (versions 1 and 2 wrote low/high/level)."""
    return {_OLD_EFFECT_FIELDS.get(k, k): v for k, v in effect.items()}


def verdicts_to_json(verdicts: Sequence[Verdict], *, indent: int | None = 2) -> str:
    """Serialise verdicts to a versioned JSON document (lossless, inf/nan safe).

    Examples
    --------
    >>> doc = verdicts_to_json([])
    >>> json.loads(doc)["schema_version"]
    5
    """
    doc = {
        "schema": "benchverdict.verdicts",
        "schema_version": JSON_SCHEMA_VERSION,
        "verdicts": [verdict_to_dict(v) for v in verdicts],
    }
    return json.dumps(doc, indent=indent, allow_nan=False)


def verdicts_from_json(text: str) -> list[Verdict]:
    """Parse :func:`verdicts_to_json`'s output back into verdicts."""
    doc = json.loads(text)
    if doc.get("schema") != "benchverdict.verdicts":
        raise ValueError("not a benchverdict verdicts document (missing 'schema').")
    if doc.get("schema_version") not in READABLE_SCHEMA_VERSIONS:
        raise ValueError(
            f"unsupported verdicts schema_version {doc.get('schema_version')!r}; this version of "
            f"benchverdict reads versions {READABLE_SCHEMA_VERSIONS}."
        )
    version = int(doc["schema_version"])
    return [verdict_from_dict(v, schema_version=version) for v in doc["verdicts"]]


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    if x != 0 and abs(x) < 1e-3:
        return f"{x:.2e}"
    return f"{x:.3g}"
