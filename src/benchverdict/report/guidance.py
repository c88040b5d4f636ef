"""Sample-size guidance for unsettled pairs: each family's advice, in one sentence.

Every family may give its run a guide (:class:`~benchverdict.analysis.SampleSizeGuide`):
the rank tests say that only more benchmarks add power to them, the tuning
curves how many draws would bound their band up to the budget of interest.
:func:`sample_size_guidance` joins the guides of the runs that finished,
advice across benchmarks first, into the callable
:func:`~benchverdict.report.reconcile.reconcile` asks once per unsettled
pair and scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchverdict.analysis import AnalysisRun, Options, SampleSizeGuide
from benchverdict.report.plan_guidance import PlanGuide

if TYPE_CHECKING:
    from benchverdict.report.effect_sizes import ComparedScores

#: At most this many guidance failures are kept as report warnings (one per pair could
#: flood the report with the same message).
MAX_GUIDANCE_WARNINGS = 5


class CombinedGuidance:
    """The guides of several runs as one ``guidance(a, b, key) -> str | None``.

    Never raises: a guide that fails is kept in ``warnings`` (the report
    shows them) and that pair gets the other guides' advice.

    Examples
    --------
    >>> class Across:
    ...     scope = "across benchmarks"
    ...     def __call__(self, a, b, key):
    ...         return "more benchmarks would help." if key[0] is None else None
    >>> class PerBenchmark:
    ...     scope = "per benchmark"
    ...     def __call__(self, a, b, key):
    ...         return "more draws would help."
    >>> guide = CombinedGuidance([PerBenchmark(), Across()])
    >>> guide("A", "B", (None, ()))
    'Across benchmarks, more benchmarks would help. Per benchmark, more draws would help.'
    >>> guide("A", "B", ("p", ()))
    'More draws would help.'
    """

    def __init__(self, guides: Sequence[SampleSizeGuide]):
        # Advice about claims across benchmarks comes first, as the report's scopes do.
        self.guides = sorted(guides, key=lambda g: g.scope != "across benchmarks")
        self.warnings: list[str] = []

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        """Every guide's advice for ``a`` vs ``b`` in scope ``key``, as one sentence."""
        parts: list[str] = []
        for guide in self.guides:
            try:
                text = guide(a, b, key)
            except Exception as err:  # guidance is advice: the report goes on without it
                if len(self.warnings) < MAX_GUIDANCE_WARNINGS:
                    self.warnings.append(f"sample-size guidance failed for {a} vs {b}: "
                                         f"{type(err).__name__}: {err}")
                continue
            if not text:
                continue
            if parts and guide.scope == "per benchmark":
                text = "Per benchmark, " + text
            parts.append(text)
        if not parts:
            return None
        text = " ".join(parts)
        if key[0] is None and len(parts) > 1 and self.guides[0].scope == "across benchmarks":
            text = "Across benchmarks, " + text
        return text[0].upper() + text[1:]


#: Plans are made for at most this many pairs (30 algorithms); beyond, ``benchverdict plan``
#: on the algorithms of interest answers the question.
MAX_PLAN_PAIRS = 435


def plan_guide(scores: ComparedScores | None, options: Options) -> PlanGuide | None:
    """The planning guide of a comparison across benchmarks, or ``None`` where it has none.

    Only under the generalising estimand (the plan's model takes the
    benchmarks as a sample), with 2 or more benchmarks and algorithms and
    at most :data:`MAX_PLAN_PAIRS` pairs. Planned over the pairs; the
    reconciliation re-plans it over its Holm family's tests
    (:meth:`PlanGuide.for_tests`).

    Examples
    --------
    >>> from benchverdict.report.effect_sizes import compared_scores
    >>> from benchverdict.results import _example_small
    >>> guide = plan_guide(compared_scores(_example_small(), Options()), Options())
    >>> guide("a", "b", (None, ()))
    '5 benchmarks at 2 seeds, or 60 seeds per cell; 19% power now'
    """
    from benchverdict.effects.planning import plan

    if scores is None:
        return None
    # The compared incumbents, already on the effects' scale: nothing is computed twice.
    pilot = scores.pooled
    n = len(pilot.algorithms)
    if (options.estimand != "benchmarks" or len(pilot.benchmarks) < 2
            or n * (n - 1) // 2 > MAX_PLAN_PAIRS):
        return None
    try:
        # The replicates the tests count (copies found on the runs as given).
        planned = plan(pilot, alpha=options.alpha, standardize=False,
                       replicates=scores.copies)
    except ValueError:  # too few shared benchmarks or seeds to estimate: no plan
        return None
    return PlanGuide(planned, pilot, options.alpha, scores.copies)


def sample_size_guidance(runs: Sequence[AnalysisRun]) -> CombinedGuidance | None:
    """The guidance of the runs that finished (``status == "ok"``), or ``None`` without any.

    Examples
    --------
    >>> from benchverdict.analysis import AnalysisRun
    >>> sample_size_guidance([AnalysisRun("dse", "ok")]) is None
    True
    """
    guides = [r.guide for r in runs if r.status == "ok" and r.guide is not None]
    return CombinedGuidance(guides) if guides else None
