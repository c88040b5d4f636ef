"""By how much, practically the same, and how many runs: effects beside the verdicts.

The analysis families say *who* is better (and the report reconciles them
into error-controlled relations). This package answers the rest of the
question for every pair of a scope, on the same incumbents the rank tests
and the LMEM compare:

- :mod:`benchverdict.effects.pairwise`: the mean difference in the score's
  units (or per-benchmark SDs where the scales differ) with intervals that
  are simultaneous over the scope's pairs, and a unit-free companion, the
  probability of superiority.
- :mod:`benchverdict.effects.equivalence`: a user-set margin of practical
  equivalence and the two one-sided tests (TOST) on the same contrast.
- :mod:`benchverdict.effects.matrix_figure`: the pairwise matrix as a
  figure (effects in the cells, the settled relations as colours).
- :mod:`benchverdict.effects.planning`: power and the benchmarks, seeds per
  benchmark or runs that a decision would need, from a pilot or from stated
  variances.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.effects.equivalence import Margin, tost_p_value
    from benchverdict.effects.matrix_figure import (
        PairwiseMatrix,
        pairwise_matrix,
    )
    from benchverdict.effects.pairwise import PairEffect, PairwiseEffects, pairwise_effects
    from benchverdict.effects.planning import (
        Plan,
        benchmarks_needed,
        estimate_components,
        pair_power,
        plan,
        plan_sentence,
        runs_needed,
        seeds_needed,
        welch_power,
        wilcoxon_power,
    )

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'Margin': 'benchverdict.effects.equivalence',
    'PairEffect': 'benchverdict.effects.pairwise',
    'PairwiseMatrix': 'benchverdict.effects.matrix_figure',
    'pairwise_matrix': 'benchverdict.effects.matrix_figure',
    'PairwiseEffects': 'benchverdict.effects.pairwise',
    'Plan': 'benchverdict.effects.planning',
    'benchmarks_needed': 'benchverdict.effects.planning',
    'estimate_components': 'benchverdict.effects.planning',
    'pair_power': 'benchverdict.effects.planning',
    'pairwise_effects': 'benchverdict.effects.pairwise',
    'plan': 'benchverdict.effects.planning',
    'plan_sentence': 'benchverdict.effects.planning',
    'runs_needed': 'benchverdict.effects.planning',
    'seeds_needed': 'benchverdict.effects.planning',
    'tost_p_value': 'benchverdict.effects.equivalence',
    'welch_power': 'benchverdict.effects.planning',
    'wilcoxon_power': 'benchverdict.effects.planning',
}

__all__ = [
    "Margin",
    "PairEffect",
    "PairwiseEffects",
    "PairwiseMatrix",
    "Plan",
    "benchmarks_needed",
    "estimate_components",
    "pair_power",
    "pairwise_effects",
    "pairwise_matrix",
    "plan",
    "plan_sentence",
    "runs_needed",
    "seeds_needed",
    "tost_p_value",
    "welch_power",
    "wilcoxon_power",
]

load_on_first_use(__name__)
