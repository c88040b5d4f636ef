"""Rank-based comparison of algorithms over benchmarks (Demšar 2006 and after).

* :func:`friedman`: Friedman's test (tie-corrected), Kendall's W,
  Iman–Davenport's F, average ranks, and a post-hoc family (Nemenyi's
  critical difference, pairwise Wilcoxon signed-rank tests with Holm or
  Bonferroni, or Conover), effect sizes with intervals, verdicts and a
  critical-difference diagram.
* :func:`autorank`: autorank's own decision path (through the autorank
  package; frequentist or Bayesian), with the reasons for each choice and
  its caveats.
* :func:`win_tie_loss`: per-benchmark tests over seeds, counts, and a sign
  test across benchmarks.
* :func:`anytime_ranks`: average rank against budget with bootstrap bands
  over seeds.
* :func:`cd_diagram`: a critical-difference diagram in one call (the drawing
  and grouping code is shared with the LMEM module, in
  :mod:`benchverdict.critical_difference`).

Every result states its replication unit, has a tidy ``.table``, a
``.plot()`` and ``.verdicts()``. Averaging seeds before ranking
(``unit="benchmark"``) is a choice and every result says so; with one seed
per block the rank tests are unchanged by any increasing transform of the
scores, and no result depends on the names or order of algorithms or
benchmarks. All of it stays polynomial and vectorised over pairs, so
thousands of algorithms are analysed in seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.ranks.anytime import AnytimeRanks, anytime_ranks
    from benchverdict.ranks.autorank_path import AutorankResult, autorank
    from benchverdict.ranks.diagram import cd_diagram, cd_diagrams, cd_tikz
    from benchverdict.ranks.friedman import FriedmanResult, friedman
    from benchverdict.ranks.win_tie_loss import WinTieLossResult, win_tie_loss

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'AnytimeRanks': 'benchverdict.ranks.anytime',
    'AutorankResult': 'benchverdict.ranks.autorank_path',
    'FriedmanResult': 'benchverdict.ranks.friedman',
    'WinTieLossResult': 'benchverdict.ranks.win_tie_loss',
    'anytime_ranks': 'benchverdict.ranks.anytime',
    'autorank': 'benchverdict.ranks.autorank_path',
    'cd_diagram': 'benchverdict.ranks.diagram',
    'cd_diagrams': 'benchverdict.ranks.diagram',
    'cd_tikz': 'benchverdict.ranks.diagram',
    'friedman': 'benchverdict.ranks.friedman',
    'win_tie_loss': 'benchverdict.ranks.win_tie_loss',
}

__all__ = [
    "AnytimeRanks",
    "AutorankResult",
    "FriedmanResult",
    "WinTieLossResult",
    "anytime_ranks",
    "autorank",
    "cd_diagram",
    "cd_diagrams",
    "cd_tikz",
    "friedman",
    "win_tie_loss",
]

load_on_first_use(__name__)
