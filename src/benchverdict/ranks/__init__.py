"""Rank-based comparison of algorithms over benchmarks (Demšar 2006 and after).

* :func:`friedman`: Friedman's test (tie-corrected), Kendall's W,
  Iman–Davenport's F, average ranks, and a post-hoc family (Nemenyi's
  critical difference, pairwise Wilcoxon signed-rank tests with Holm or
  Bonferroni, or Conover), effect sizes with intervals, verdicts and a
  critical-difference diagram.
* :func:`autorank`: autorank's own decision path (through the autorank
  package), with the reasons for each choice and its caveats.
"""

from benchverdict.ranks.autorank_path import AutorankResult, autorank
from benchverdict.ranks.friedman import FriedmanResult, friedman

__all__ = ["AutorankResult", "FriedmanResult", "autorank", "friedman"]
