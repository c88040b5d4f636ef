"""Critical-difference diagrams, their groups, and compact letter displays.

Shared by every module that ranks algorithms on one axis and knows which
pairs are *not* significantly different: the rank tests (average ranks,
Nemenyi or Wilcoxon–Holm) and the LMEM module (estimated marginal means,
Tukey HSD). The inputs are always the same two things:

``positions``
    A :class:`pandas.Series` indexed by algorithm name: average ranks, or
    marginal means.
``not_different``
    A square boolean :class:`pandas.DataFrame` over the same names: ``True``
    where a pair is *not* significantly different (build it from adjusted
    p-values with :func:`not_different_from_p_values`).

The grouping math
-----------------
Let ``G`` be the graph whose edges join not-significantly-different pairs.
A *group* (the bar of a Demšar (2006) diagram) is a set of algorithms that
are pairwise not different, i.e. a clique of ``G``, and only *maximal*
cliques are shown (a bar inside a longer bar says nothing new).

* With a single critical difference (Nemenyi), ``G`` is an interval graph:
  the maximal cliques are runs of consecutive algorithms, and the diagram is
  exactly Demšar's.
* With pairwise tests (Wilcoxon–Holm, LMEM contrasts), ``G`` need not be an
  interval graph: ``A ~ B``, ``B ~ C`` but ``A`` differs from ``C`` (a
  chain), or a maximal clique can skip an algorithm placed between its
  members. Drawing a bar over the whole span would then claim that the
  skipped algorithm belongs to the group. Other tools do exactly that, or
  draw one bar when every pair differs, or merge crossing bars onto one
  level (autorank, Orange, scikit-posthocs issues #82 and #86). Here every
  bar marks its members with a dot; a bar whose span contains a
  non-member is drawn dashed, and that non-member gets no dot. Bars never
  share a level when their spans touch or cross.

:func:`cliques` returns these groups (``contiguous=True`` gives the
classical reading instead: maximal runs of consecutive algorithms that are
pairwise not different). :func:`compact_letter_display` gives the same
information as letters, by Piepho's (2004) insert-absorb algorithm with its
sweep step.

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. JMLR 7, 1–30.
Piepho, H.-P. (2004). An algorithm for a letter-based representation of
all-pairwise comparisons. J. Comput. Graph. Stat. 13(2), 456–466.
"""

from __future__ import annotations

import string
import textwrap
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from benchverdict._plain_text import plain_text, set_lines
from benchverdict._repr import ResultText
from benchverdict.plotting import (
    ALGORITHM_PALETTE,
    DOUBLE_COLUMN,
    SINGLE_COLUMN,
    label_inches,
    new_axes,
    shorten,
    theme,
)

__all__ = [
    "CD_LAYOUTS",
    "HIGHLIGHT_COLOUR",
    "Grouping",
    "cd_diagram_tikz",
    "cliques",
    "compact_letter_display",
    "draw_cd_diagram",
    "draw_cd_diagrams",
    "grouping",
    "is_contiguous",
    "not_different_from_p_values",
    "order_positions",
    "short_unit",
]


# ---------------------------------------------------------------------- validation
def _check_inputs(positions: pd.Series, not_different: pd.DataFrame) -> tuple[
    pd.Series, np.ndarray
]:
    """Validate and align; return positions (str index) and the boolean matrix."""
    if not isinstance(positions, pd.Series):
        raise TypeError(f"positions must be a pandas Series, got {type(positions).__name__}.")
    if not isinstance(not_different, pd.DataFrame):
        raise TypeError(
            f"not_different must be a pandas DataFrame, got {type(not_different).__name__}."
        )
    pos = positions.astype(float)
    pos.index = pd.Index([str(i) for i in pos.index])
    if pos.index.has_duplicates:
        dup = sorted(set(pos.index[pos.index.duplicated()]))
        raise ValueError(f"positions has duplicated algorithm names {dup}.")
    if len(pos) == 0:
        raise ValueError("positions is empty: nothing to draw or group.")
    bad = pos.index[~np.isfinite(pos.to_numpy())]
    if len(bad):
        raise ValueError(f"positions must be finite; not for {list(bad)}.")
    nd = not_different.copy()
    nd.index = pd.Index([str(i) for i in nd.index])
    nd.columns = pd.Index([str(c) for c in nd.columns])
    names = set(pos.index)
    for label, axis in (("rows", nd.index), ("columns", nd.columns)):
        if set(axis) != names:
            missing = sorted(names - set(axis))
            extra = sorted(set(axis) - names)
            raise ValueError(
                f"not_different {label} must be the algorithms in positions; missing {missing}, "
                f"unexpected {extra}."
            )
    nd = nd.loc[pos.index, pos.index]
    values = nd.to_numpy()
    if values.dtype != bool:
        if not np.isin(values, [0, 1, True, False]).all():
            raise ValueError(
                "not_different must be boolean (True = not significantly different); to use "
                "p-values call not_different_from_p_values(p_values, alpha) first."
            )
        values = values.astype(bool)
    if not (values == values.T).all():
        i, j = np.argwhere(values != values.T)[0]
        raise ValueError(
            f"not_different must be symmetric; ({pos.index[i]}, {pos.index[j]}) is "
            f"{values[i, j]} but ({pos.index[j]}, {pos.index[i]}) is {values[j, i]}."
        )
    values = values.copy()
    np.fill_diagonal(values, True)
    return pos, values


def not_different_from_p_values(p_values: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Turn a square matrix of (adjusted) pairwise p-values into ``not_different``.

    A pair is not different when its p-value is at least ``alpha`` (or NaN,
    as on the diagonal). The matrix must be symmetric.

    Examples
    --------
    >>> p = pd.DataFrame([[1, .01, .2], [.01, 1, .04], [.2, .04, 1]],
    ...                  index=list("ABC"), columns=list("ABC"))
    >>> not_different_from_p_values(p)
           A      B      C
    A   True  False   True
    B  False   True  False
    C   True  False   True
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    p = p_values.astype(float)
    out = ~(p < alpha)
    return out.astype(bool)


def order_positions(positions: pd.Series, *, lower_is_better: bool = True) -> list[str]:
    """Algorithm names from best to worst (ties broken by name, for stable output).

    Examples
    --------
    >>> order_positions(pd.Series({"B": 2.0, "A": 2.0, "C": 1.5}))
    ['C', 'A', 'B']
    >>> order_positions(pd.Series({"B": 0.7, "A": 0.9}), lower_is_better=False)
    ['A', 'B']
    """
    sign = 1.0 if lower_is_better else -1.0
    frame = pd.DataFrame({"key": sign * positions.astype(float).to_numpy(),
                          "name": [str(i) for i in positions.index]})
    return frame.sort_values(["key", "name"], kind="stable")["name"].tolist()


# ---------------------------------------------------------------------- grouping
#: Work budget of the general maximal-clique search (bit operations): beyond it the groups
#: are the contiguous runs (see :func:`grouping`).
MAX_CLIQUE_WORK = 2_000_000
#: Most maximal cliques the general search returns before falling back to runs.
MAX_CLIQUES = 2_000


@dataclass(repr=False, frozen=True)
class Grouping(ResultText):
    """The groups of a critical-difference diagram and how they were found.

    Attributes
    ----------
    groups : list of frozenset of str
        Groups with at least two members, ordered by their best member's
        position, then by their worst member's.
    method : {"runs", "maximal cliques", "contiguous runs"}
        ``"runs"``: the not-different graph is an interval graph in rank
        order, so its maximal cliques are runs of consecutive algorithms
        (always so for Nemenyi and Conover); ``"maximal cliques"``: every
        maximal clique of a general graph; ``"contiguous runs"``: the
        classical reading (asked for, or the fallback when a general graph
        has too many maximal cliques to enumerate).
    note : str or None
        What the reader must know, e.g. how many not-different pairs share
        no group under the contiguous reading.
    positions, not_different, lower_is_better
        The inputs of :func:`grouping` (for :attr:`table` and :meth:`plot`).
    """

    groups: list[frozenset[str]]
    method: str
    note: str | None = None
    positions: pd.Series | None = field(default=None, repr=False, compare=False)
    not_different: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    lower_is_better: bool = True

    @property
    def table(self) -> pd.DataFrame:
        """Tidy: one row per (group, member): ``group, algorithm, position``.

        Groups are numbered from 1 in the order of :attr:`groups`; an
        algorithm in several groups has several rows.
        """
        rows = [{"group": i, "algorithm": name,
                 "position": (float(self.positions[name]) if self.positions is not None
                              else np.nan)}
                for i, members in enumerate(self.groups, start=1)
                for name in self._ordered(members)]
        return pd.DataFrame(rows, columns=["group", "algorithm", "position"])

    def _ordered(self, members: frozenset[str]) -> list[str]:
        if self.positions is None:
            return sorted(members)
        sign = 1.0 if self.lower_is_better else -1.0
        return sorted(members, key=lambda n: (sign * float(self.positions[n]), n))

    def verdicts(self) -> list:
        """No verdicts: a grouping says which algorithms are not different, not who wins.

        An empty list (every result type answers ``verdicts()``); the
        verdicts come from the test that made ``not_different``.
        """
        return []

    def summary(self) -> str:
        """The groups (best member first) and how they were found."""
        lines = [f"{len(self.groups)} group(s) of algorithms that are pairwise not "
                 f"significantly different ({self.method})"]
        lines += [f"  {i}: " + ", ".join(self._ordered(g))
                  for i, g in enumerate(self.groups, start=1)]
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)

    def plot(self, ax: Axes | None = None, **kw) -> Axes:
        """The critical-difference diagram of these groups (``kw`` go to :func:`draw_cd_diagram`).

        Examples
        --------
        >>> pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
        >>> nd = pd.DataFrame(True, index=list("ABC"), columns=list("ABC"))
        >>> ax = grouping(pos, nd).plot()
        >>> ax.figure is not None
        True
        """
        if self.positions is None or self.not_different is None:
            raise ValueError("this Grouping has no positions to draw; build it with "
                             "grouping(positions, not_different).")
        kw = {"axis_label": "position", **kw}
        return draw_cd_diagram(self.positions, self.not_different,
                               lower_is_better=self.lower_is_better,
                               contiguous=self.method == "contiguous runs", ax=ax, **kw)

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        groups = ["{" + ", ".join(sorted(g)) + "}" for g in self.groups]
        return [f"{len(self.groups)} group(s) by {self.method}: {names(groups, 4)}",
                *([self.note] if self.note else [])]

    def _summary_table(self) -> pd.DataFrame:
        return pd.DataFrame({"group": range(1, len(self.groups) + 1),
                             "members": [", ".join(sorted(g)) for g in self.groups]})


def _rank_permutation(values: np.ndarray, names: list[str], lower_is_better: bool) -> np.ndarray:
    """Indices from best to worst (ties by name), as :func:`order_positions` orders them."""
    sign = 1.0 if lower_is_better else -1.0
    return np.lexsort((np.array(names, dtype=object).astype(str), sign * values))


def _interval_runs(adj: np.ndarray) -> list[tuple[int, int]] | None:
    """Maximal cliques as runs ``(first, last)`` if ``adj`` (in rank order) is an interval graph.

    The order is a proper-interval (umbrella) order when every row's
    neighbours form one contiguous range around it and the ranges' ends
    never move left; then the maximal cliques are exactly the runs
    ``[i, last_i]`` whose end exceeds the previous row's. ``None`` otherwise.
    O(k^2), vectorised.
    """
    k = len(adj)
    first = np.argmax(adj, axis=1)
    last = k - 1 - np.argmax(adj[:, ::-1], axis=1)
    if not np.array_equal(adj.sum(axis=1), last - first + 1):
        return None
    if np.any(np.diff(first) < 0) or np.any(np.diff(last) < 0):
        return None
    new = np.concatenate([[True], last[1:] > last[:-1]])
    return [(int(i), int(last[i])) for i in np.flatnonzero(new)]


def _contiguous_runs(values: np.ndarray, adj: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs (in rank order, whole tie blocks) that are cliques: O(k^2) two pointers.

    ``values`` and ``adj`` are in rank order. A run must hold every algorithm
    whose position lies between its ends (ties included), as in the
    classical diagram.
    """
    k = len(values)
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    ends = np.concatenate([starts[1:], [k]])  # block t is [starts[t], ends[t])
    m = len(starts)
    far = np.full(m, -1)
    u = -1
    for t in range(m):
        s0, e0 = starts[t], ends[t]
        if not adj[s0:e0, s0:e0].all():
            u = t - 1
            continue
        u = max(u, t)
        while u + 1 < m:
            s1, e1 = starts[u + 1], ends[u + 1]
            if adj[s1:e1, s0:e1].all():
                u += 1
            else:
                break
        far[t] = u
    runs = []
    for t in range(m):
        if far[t] < 0 or (t > 0 and far[t - 1] >= far[t]):
            continue
        runs.append((int(starts[t]), int(ends[far[t]] - 1)))
    return runs


def _bitsets(adj: np.ndarray) -> list[int]:
    """Neighbour sets (without self) as Python-int bitsets."""
    k = len(adj)
    weights = [1 << j for j in range(k)]
    out = []
    for i in range(k):
        mask = 0
        for j in np.flatnonzero(adj[i]):
            if j != i:
                mask |= weights[j]
        out.append(mask)
    return out


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _maximal_cliques(adj: np.ndarray, *, max_work: int | None = None,
                     max_cliques: int | None = None) -> list[frozenset[int]] | None:
    """All maximal cliques (Bron–Kerbosch with pivoting, iterative, on bitsets).

    Returns ``None`` when the search exceeds ``max_work`` bit operations or
    finds more than ``max_cliques`` cliques: the number of maximal cliques
    can grow exponentially with the number of algorithms, so the search is
    bounded. No recursion: an explicit stack, so deep cliques (hundreds of
    members) cannot overflow Python's stack.
    """
    max_work = MAX_CLIQUE_WORK if max_work is None else max_work
    max_cliques = MAX_CLIQUES if max_cliques is None else max_cliques
    nbrs = _bitsets(adj)
    found: list[frozenset[int]] = []
    stack = [(0, (1 << len(adj)) - 1, 0)]
    work = 0
    while stack:
        r, p, x = stack.pop()
        if not p:
            if not x:
                found.append(frozenset(_bits(r)))
                if len(found) > max_cliques:
                    return None
            continue
        best, pivot = -1, 0
        for u in _bits(p | x):
            count = (p & nbrs[u]).bit_count()
            if count > best:
                best, pivot = count, u
        work += (p | x).bit_count()
        if work > max_work:
            return None
        for v in _bits(p & ~nbrs[pivot]):
            bit = 1 << v
            stack.append((r | bit, p & nbrs[v], x & nbrs[v]))
            p &= ~bit
            x |= bit
    return found


def grouping(
    positions: pd.Series,
    not_different: pd.DataFrame,
    *,
    contiguous: bool = False,
    lower_is_better: bool = True,
) -> Grouping:
    """The groups of algorithms that are pairwise not significantly different, and how found.

    See :func:`cliques` for the two readings. The cost stays polynomial for
    any number of algorithms:

    * when the not-different graph is an interval graph in rank order
      (always for Nemenyi's single critical difference and for Conover's
      test, whose p-values fall with the rank difference), its maximal
      cliques are runs of consecutive algorithms, found in O(k^2);
    * otherwise (pairwise tests such as Wilcoxon–Holm or LMEM contrasts) an
      iterative Bron–Kerbosch search lists every maximal clique, within a
      work budget (:data:`MAX_CLIQUE_WORK`, :data:`MAX_CLIQUES`); a graph
      with more maximal cliques than that gets the contiguous reading
      instead, with a note saying how many not-different pairs then share
      no group (those groups never hold a significant pair);
    * the contiguous reading costs O(k^2) (two pointers over rank order).

    Examples
    --------
    >>> pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    >>> nd = pd.DataFrame([[1, 1, 0], [1, 1, 1], [0, 1, 1]], index=list("ABC"),
    ...                   columns=list("ABC")).astype(bool)
    >>> g = grouping(pos, nd)
    >>> g.method, [sorted(c) for c in g.groups]
    ('runs', [['A', 'B'], ['B', 'C']])
    """
    pos, adj = _check_inputs(positions, not_different)
    names = list(pos.index)
    values = pos.to_numpy()
    perm = _rank_permutation(values, names, lower_is_better)
    adj_ranked = adj[np.ix_(perm, perm)]
    values_ranked = values[perm]
    note = None
    if contiguous:
        runs = _contiguous_runs(values_ranked, adj_ranked)
        found = [frozenset(int(perm[i]) for i in range(a, b + 1)) for a, b in runs]
        method = "contiguous runs"
    else:
        interval = _interval_runs(adj_ranked)
        if interval is not None:
            found = [frozenset(int(perm[i]) for i in range(a, b + 1)) for a, b in interval]
            method = "runs"
        else:
            general = _maximal_cliques(adj)
            if general is not None:
                found, method = general, "maximal cliques"
            else:
                runs = _contiguous_runs(values_ranked, adj_ranked)
                found = [frozenset(int(perm[i]) for i in range(a, b + 1)) for a, b in runs]
                method = "contiguous runs"
                note = _uncovered_note(adj, found, fallback=True)
    if contiguous and note is None:
        note = _uncovered_note(adj, found, fallback=False)
    sign = 1.0 if lower_is_better else -1.0
    groups = [c for c in found if len(c) >= 2]

    def key(c: frozenset[int]) -> tuple[float, float, list[str]]:
        v = sign * values[list(c)]
        return (float(v.min()), float(v.max()), sorted(names[i] for i in c))

    groups.sort(key=key)
    return Grouping([frozenset(names[i] for i in c) for c in groups], method, note,
                    positions=positions, not_different=not_different,
                    lower_is_better=lower_is_better)


def _uncovered_note(adj: np.ndarray, found: list[frozenset[int]], *, fallback: bool) -> str | None:
    """How many not-different pairs share no group (None if every pair shares one)."""
    covered = np.zeros_like(adj)
    for c in found:
        idx = np.fromiter(c, dtype=np.int64)
        covered[np.ix_(idx, idx)] = True
    missing = int(np.triu(adj & ~covered, 1).sum())
    if not missing and not fallback:
        return None
    why = ("the not-significantly-different graph has too many maximal cliques to list, so "
           "the groups are the maximal runs of consecutive algorithms that are pairwise not "
           "different (no group holds a significant pair); " if fallback else "")
    return why + (f"{missing} not-different pair(s) share no group" if missing
                  else "every not-different pair shares a group")


def cliques(
    positions: pd.Series,
    not_different: pd.DataFrame,
    *,
    contiguous: bool = False,
    lower_is_better: bool = True,
) -> list[frozenset[str]]:
    """Find the groups of algorithms that are pairwise not significantly different.

    Parameters
    ----------
    positions : pandas.Series
        Average rank or marginal mean per algorithm (index = names).
    not_different : pandas.DataFrame
        Square boolean matrix, ``True`` where a pair is not significantly
        different. Must be symmetric; the diagonal is ignored.
    contiguous : bool
        ``False`` (default): every maximal clique of the not-different graph,
        so every not-different pair shares at least one group and no group
        holds a significant pair. ``True``: the classical diagram's reading,
        maximal sets of algorithms whose positions fill a closed interval
        (no outsider at or between their positions) and that are pairwise
        not different. Not-different pairs separated by a significantly
        different algorithm then share no group.
    lower_is_better : bool
        Orders the output from the best group (only the order depends on it).

    Returns
    -------
    list of frozenset of str
        Groups with at least two members, ordered by their best member's
        position, then by their worst member's. Algorithms that differ from
        every other appear in no group; if every pair differs the list is
        empty.

    Warns
    -----
    UserWarning
        When a general graph has too many maximal cliques to enumerate
        within the work budget and the contiguous reading is returned
        instead (see :func:`grouping`, which returns the note too).

    Notes
    -----
    With a single critical difference (Nemenyi) both readings agree: the
    not-different graph of points on a line joined when closer than CD is an
    interval graph whose maximal cliques are runs. With pairwise tests
    they can differ (see the module docstring). The cost is polynomial for
    any number of algorithms (:func:`grouping`).

    Examples
    --------
    A chain: A ~ B and B ~ C, but A and C differ.

    >>> pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    >>> nd = pd.DataFrame([[1, 1, 0], [1, 1, 1], [0, 1, 1]], index=list("ABC"),
    ...                   columns=list("ABC")).astype(bool)
    >>> [sorted(c) for c in cliques(pos, nd)]
    [['A', 'B'], ['B', 'C']]

    A group that skips a member: A ~ C, but B (between them) differs from both.

    >>> nd = pd.DataFrame([[1, 0, 1], [0, 1, 0], [1, 0, 1]], index=list("ABC"),
    ...                   columns=list("ABC")).astype(bool)
    >>> [sorted(c) for c in cliques(pos, nd)]
    [['A', 'C']]
    >>> cliques(pos, nd, contiguous=True)
    []
    """
    result = grouping(positions, not_different, contiguous=contiguous,
                      lower_is_better=lower_is_better)
    if result.method == "contiguous runs" and not contiguous:
        warnings.warn(result.note, UserWarning, stacklevel=2)
    return result.groups


def is_contiguous(group: frozenset[str], positions: pd.Series) -> bool:
    """Whether no algorithm outside ``group`` lies at or between its members' positions.

    Examples
    --------
    >>> pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    >>> is_contiguous(frozenset({"A", "C"}), pos), is_contiguous(frozenset({"B", "C"}), pos)
    (False, True)
    """
    pos = positions.astype(float)
    pos.index = pd.Index([str(i) for i in pos.index])
    inside = pos[list(group)]
    lo, hi = inside.min(), inside.max()
    outsiders = pos.drop(index=list(group))
    return not ((outsiders >= lo) & (outsiders <= hi)).any()


# ---------------------------------------------------------------------- letters
def _letter(i: int) -> str:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    if i < len(alphabet):
        return alphabet[i]
    return f"{alphabet[i % len(alphabet)]}{i // len(alphabet)}"


#: Up to this many algorithms a general graph gets Piepho's insert-absorb letters; beyond, a
#: greedy clique cover (both are exact letter displays; only the latter is polynomial).
PIEPHO_MAX_ALGORITHMS = 50


def compact_letter_display(
    positions: pd.Series,
    not_different: pd.DataFrame,
    *,
    lower_is_better: bool = True,
) -> pd.Series:
    """Letters such that two algorithms share a letter iff they are not significantly different.

    Each letter is a clique of the not-different graph, and every
    not-different pair shares at least one letter. How the letters are
    found:

    * interval graph in rank order (Nemenyi, Conover): one letter per
      maximal run of consecutive algorithms, O(k^2);
    * otherwise, up to :data:`PIEPHO_MAX_ALGORITHMS` algorithms, Piepho's
      (2004) insert-absorb algorithm: start with one letter shared by all;
      for every significant pair, split each letter held by both into two
      copies, dropping one algorithm from each (insert), then delete letters
      whose holders are a subset of another letter's (absorb); a sweep then
      removes a letter from an algorithm when every pair it witnesses is
      witnessed by another letter;
    * beyond that, a greedy clique cover (polynomial; Piepho's columns can
      multiply exponentially): for each algorithm in rank order and each
      not-yet-covered not-different partner, grow a clique from the pair,
      adding the best-ranked compatible algorithm that covers a new pair.

    Letters are assigned in order of each group's best member, so ``"a"``
    goes with the best algorithm.

    Parameters
    ----------
    positions, not_different
        As for :func:`cliques`.
    lower_is_better : bool
        Which end of ``positions`` is best (``True`` for ranks).

    Returns
    -------
    pandas.Series
        Letter strings indexed by algorithm, ordered from best to worst.

    Examples
    --------
    >>> pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0, "D": 3.5})
    >>> p = pd.DataFrame(1.0, index=list("ABCD"), columns=list("ABCD"))
    >>> p.loc["A", "C"] = p.loc["C", "A"] = p.loc["A", "D"] = p.loc["D", "A"] = 0.01
    >>> compact_letter_display(pos, not_different_from_p_values(p)).to_dict()
    {'A': 'a', 'B': 'ab', 'C': 'b', 'D': 'b'}
    """
    pos, adj = _check_inputs(positions, not_different)
    n = len(pos)
    names = list(pos.index)
    perm = _rank_permutation(pos.to_numpy(), names, lower_is_better)
    runs = _interval_runs(adj[np.ix_(perm, perm)])
    if runs is not None:
        columns = [{int(perm[i]) for i in range(a, b + 1)} for a, b in runs]
    elif n <= PIEPHO_MAX_ALGORITHMS:
        columns = _piepho(adj)
    else:
        columns = _greedy_clique_cover(adj, perm)
    order = order_positions(pos, lower_is_better=lower_is_better)
    rank_of = {name: r for r, name in enumerate(order)}
    columns.sort(key=lambda c: sorted(rank_of[names[i]] for i in c))
    letters: dict[str, list[str]] = {name: [] for name in names}
    for k, col in enumerate(columns):
        for i in col:
            letters[names[i]].append(_letter(k))
    out = pd.Series({name: "".join(letters[name]) for name in order}, name="letters")
    out.index.name = "algorithm"
    return out


def _piepho(adj: np.ndarray) -> list[set[int]]:
    """Piepho's (2004) insert-absorb columns with the sweep step (for small k)."""
    n = len(adj)
    columns: list[set[int]] = [set(range(n))]
    significant = [(i, j) for i in range(n) for j in range(i + 1, n) if not adj[i, j]]
    for i, j in significant:
        new_columns: list[set[int]] = []
        for col in columns:
            if i in col and j in col:
                new_columns.append(col - {i})
                new_columns.append(col - {j})
            else:
                new_columns.append(col)
        # absorb: drop duplicates and columns contained in another
        unique: list[set[int]] = []
        for col in new_columns:
            if col not in unique:
                unique.append(col)
        columns = [c for c in unique if not any(c < other for other in unique)]
    # sweep: drop a letter from an algorithm when it witnesses nothing unique
    for col in columns:
        for t in sorted(col):
            others = [c for c in columns if c is not col and t in c]
            if not others:
                continue
            if all(any(u in c for c in others) for u in col if u != t):
                col.discard(t)
    columns = [c for c in columns if c]
    return [c for idx, c in enumerate(columns)
            if not any(c < o or (c == o and k < idx) for k, o in enumerate(columns) if k != idx)]


def _greedy_clique_cover(adj: np.ndarray, perm: np.ndarray) -> list[set[int]]:
    """Cliques covering every edge (and every vertex), grown greedily in rank order.

    Works on rank positions as bits (bit r = the r-th best), so "lowest bit"
    means "best ranked". Every column is a clique and every not-different
    pair lies in one; polynomial (each column covers at least one new pair).
    """
    ranked = adj[np.ix_(perm, perm)]
    nbrs = _bitsets(ranked)
    uncovered = list(nbrs)
    columns: list[set[int]] = []
    for i in range(len(ranked)):
        if not nbrs[i]:
            columns.append({i})
            continue
        while uncovered[i]:
            j = (uncovered[i] & -uncovered[i]).bit_length() - 1
            members = [i, j]
            mask = (1 << i) | (1 << j)
            candidates = nbrs[i] & nbrs[j]
            while candidates:
                new_pairs = 0
                for m in members:
                    new_pairs |= uncovered[m]
                pick = candidates & new_pairs or candidates
                v = (pick & -pick).bit_length() - 1
                members.append(v)
                mask |= 1 << v
                candidates &= nbrs[v]
            for m in members:
                uncovered[m] &= ~mask
            columns.append(set(members))
    return [{int(perm[r]) for r in col} for col in columns]


# ---------------------------------------------------------------------- drawing
def _assign_levels(spans: Sequence[tuple[float, float]], gap: float) -> list[int]:
    """Lowest free level for each span (first-fit on sorted starts); touching spans never share."""
    level_ends: list[float] = []
    levels = []
    for lo, hi in spans:
        for k, end in enumerate(level_ends):
            if lo > end + gap:
                level_ends[k] = hi
                levels.append(k)
                break
        else:
            level_ends.append(hi)
            levels.append(len(level_ends) - 1)
    return levels


#: Layouts of a CD diagram: names on both sides (Demšar's), or all on the left, narrower
#: (one column of a two-column paper).
CD_LAYOUTS = ("two-sided", "compact")
#: The colour of a highlighted algorithm (the palette's first colour: far from the greys).
HIGHLIGHT_COLOUR = ALGORITHM_PALETTE[0]
#: Inches per vertical line unit at the default font size (9 pt).
_INCH_PER_LINE = 0.22


def draw_cd_diagram(
    positions: pd.Series,
    not_different: pd.DataFrame,
    *,
    lower_is_better: bool = True,
    critical_difference: float | None = None,
    critical_difference_range: tuple[float, float] | None = None,
    axis_label: str = "average rank",
    limits: tuple[float, float] | None = None,
    contiguous: bool = False,
    label_width: int = 24,
    value_format: str = "{:.2f}",
    title: str | None = None,
    max_labels: int | None = 60,
    highlight: str | Sequence[str] | None = None,
    layout: str = "two-sided",
    fontsize: float = 9.0,
    linewidth: float = 0.9,
    ax: Axes | None = None,
) -> Axes:
    """Draw a critical-difference diagram.

    The best algorithm is on the left. Algorithms hang from their position
    on the axis, the better half labelled on the left, the rest on the
    right, each label with its value (``layout="compact"``: every label on
    the left, one per row, in a figure one column wide). Bars under the
    axis join algorithms that are not significantly different (the maximal
    groups of :func:`cliques`; a dot marks each member, and a bar whose
    span holds a non-member is dashed). A critical-difference bar above the
    axis shows the Nemenyi CD, or the range of per-pair CDs.

    Parameters
    ----------
    positions : pandas.Series
        Average ranks or marginal means, indexed by algorithm.
    not_different : pandas.DataFrame
        Square boolean matrix, ``True`` where a pair is not significantly
        different (see :func:`not_different_from_p_values`).
    lower_is_better : bool
        ``True`` for ranks (1 = best); for marginal means of a score to
        maximise pass ``False`` (the axis is then reversed so that the best
        is still on the left).
    critical_difference : float, optional
        One CD (Nemenyi), drawn as a bar of that length.
    critical_difference_range : (float, float), optional
        The smallest and largest per-pair CD (e.g. LMEM contrasts with
        different standard errors), drawn as a bar with a thin extension.
    axis_label : str
        Text under the axis title, e.g. ``"average rank"`` or ``"marginal
        mean of loss"``.
    limits : (float, float), optional
        Axis limits in position units (for ranks ``(1, k)``); default the
        data range, padded.
    contiguous : bool
        Draw the classical contiguous groups instead of all maximal cliques.
    label_width : int
        Longer names are shortened in the middle (the full name stays in the
        data).
    value_format : str
        Format of the value printed next to each name.
    title : str, optional
    max_labels : int or None
        With more algorithms than this, only the ``max_labels // 2`` best and
        as many worst are named (the others hang from the axis unnamed, and
        a note under the diagram says so; every algorithm stays in the
        tables). ``None`` names all of them (the figure then grows by one
        line per two algorithms).
    highlight : str or sequence of str, optional
        Algorithm(s) to stand out (e.g. the proposed method): bold label and
        line in :data:`HIGHLIGHT_COLOUR`.
    layout : {"two-sided", "compact"}
        ``"compact"`` puts every label on the left, best on top, in a
        single-column figure (3.5 in) for two-column papers.
    fontsize : float
        Size of the names in points; ticks, axis label and notes are one
        point smaller. Rows grow with it.
    linewidth : float
        Width of the axis and the name lines in points; the group bars are
        drawn proportionally thicker.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes; default a new figure sized to fit (7 in wide,
        3.5 in with ``layout="compact"``).

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    cd_diagram_tikz : the same diagram as a TikZ picture.
    draw_cd_diagrams : several diagrams on one shared axis in one figure.

    Notes
    -----
    Names are drawn as plain text (``$`` is not mathtext). The cost is
    polynomial in the number of algorithms (see :func:`grouping`).

    Examples
    --------
    >>> pos = pd.Series({"PB": 1.3, "HB": 2.1, "RS": 2.6})
    >>> nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    >>> nd.loc["PB", "RS"] = nd.loc["RS", "PB"] = False
    >>> ax = draw_cd_diagram(pos, nd, critical_difference=0.96, limits=(1, 3))
    >>> sorted(t.get_text() for t in ax.texts if t.get_text().startswith("CD"))
    ['CD = 0.96']
    >>> ax = draw_cd_diagram(pos, nd, limits=(1, 3), highlight="HB", layout="compact")
    >>> [t.get_fontweight() for t in ax.texts if t.get_text().startswith("HB")]
    ['bold']
    """
    _check_cd_arguments(critical_difference, critical_difference_range, max_labels)
    pos, _ = _check_inputs(positions, not_different)
    style = _cd_style(pos, highlight, layout, fontsize, linewidth)
    found = grouping(pos, not_different, contiguous=contiguous, lower_is_better=lower_is_better)
    has_cd = critical_difference is not None or critical_difference_range is not None
    cd_layout = _cd_layout(pos, found, lower_is_better=lower_is_better, limits=limits,
                           max_labels=max_labels, contiguous=contiguous, has_cd=has_cd,
                           compact=style.compact)
    labels = _labels(cd_layout, label_width, value_format)
    if ax is None:
        width, _ = _compact_extent(labels, style, None) if style.compact else (DOUBLE_COLUMN, 0)
        ax = new_axes(width=width, height=_figure_height(cd_layout, style, title))
    left = (_compact_extent(labels, style, _axes_inches(ax))[1] if style.compact else 0.42)
    _draw_cd(ax, cd_layout, style, labels, left=left, axis_label=axis_label, limits=limits,
             has_cd=has_cd, critical_difference=critical_difference,
             critical_difference_range=critical_difference_range, title=title)
    return plain_text(ax)


@dataclass(frozen=True)
class _CDStyle:
    """How a CD diagram is drawn: layout, text size, line width and highlighted names."""

    compact: bool
    fontsize: float
    linewidth: float
    highlight: frozenset[str]

    @property
    def small(self) -> float:
        """Ticks, axis label, CD and notes: one point under the names."""
        return max(self.fontsize - 1.0, 1.0)

    @property
    def inch_per_line(self) -> float:
        return _INCH_PER_LINE * max(1.0, self.fontsize / 9.0)

    @property
    def title_width(self) -> int:
        """Characters per title line: a compact diagram is one column wide."""
        return int((48 if self.compact else 90) * 9.0 / self.fontsize)


def _cd_style(pos: pd.Series, highlight: str | Sequence[str] | None, layout: str,
              fontsize: float, linewidth: float) -> _CDStyle:
    """Check the style arguments (names to highlight must be drawn)."""
    if layout not in CD_LAYOUTS:
        raise ValueError(f"layout must be one of {CD_LAYOUTS}, got {layout!r}.")
    if not (np.isfinite(fontsize) and fontsize > 0):
        raise ValueError(f"fontsize must be a positive number of points, got {fontsize}.")
    if not (np.isfinite(linewidth) and linewidth > 0):
        raise ValueError(f"linewidth must be a positive number of points, got {linewidth}.")
    wanted = ([] if highlight is None else [highlight] if isinstance(highlight, str)
              else list(highlight))
    missing = [str(h) for h in wanted if str(h) not in pos.index]
    if missing:
        raise ValueError(f"highlight names {missing}, which are not among the algorithms "
                         f"{list(pos.index)}; pass one of those names.")
    return _CDStyle(layout == "compact", float(fontsize), float(linewidth),
                    frozenset(map(str, wanted)))


def _labels(layout: _CDLayout, label_width: int, value_format: str) -> dict[str, str]:
    """The text next to each named algorithm: its (shortened) name and its value."""
    return {name: f"{shorten(name, label_width)} ({value_format.format(layout.value_of[name])})"
            for name, _, _ in layout.rows}


def _compact_extent(labels: dict[str, str], style: _CDStyle,
                    axes_inches: float | None) -> tuple[float, float]:
    """Figure width (in) and the room left of the axis (drawing units) of a compact diagram.

    The label column is estimated at 0.6 em per character; the axis keeps at
    least 1.4 in.
    """
    longest = max((len(t) for t in labels.values()), default=4)
    label_in = label_inches(longest, style.fontsize) + 0.15
    width = max(SINGLE_COLUMN, label_in + 1.6)
    total = width if axes_inches is None else axes_inches
    axis_in = max(total - label_in, 0.5)
    return width, 1.06 * label_in / axis_in


def _axes_inches(ax: Axes) -> float:
    return float(ax.get_position().width * ax.figure.get_figwidth())


def _figure_height(layout: _CDLayout, style: _CDStyle, title: str | None) -> float:
    lines = len(textwrap.wrap(title, style.title_width)) if title else 0
    return (style.inch_per_line * (layout.bottom - layout.top) + 0.3
            + lines * 1.4 * style.fontsize / 72.0)


def _draw_cd(ax: Axes, layout: _CDLayout, style: _CDStyle, labels: dict[str, str], *,
             left: float, axis_label: str, limits: tuple[float, float] | None, has_cd: bool,
             critical_difference: float | None,
             critical_difference_range: tuple[float, float] | None, title: str | None) -> None:
    with theme():
        ax.set_xlim(-left, 1.06 if style.compact else 1.42)
        ax.set_ylim(layout.bottom, layout.top)
        ax.set_axis_off()
        _draw_axis(ax, layout, style, axis_label, limits=limits, has_cd=has_cd)
        if has_cd:
            _draw_cd_bar(ax, layout, style, critical_difference, critical_difference_range)
        _draw_names(ax, layout, style, labels)
        _draw_group_bars(ax, layout, style)
        _draw_notes(ax, layout, style)
        if title:
            # long titles wrap instead of widening the figure; the breaks are layout, so
            # they are kept as line breaks (a break inside a name is still shown escaped)
            set_lines(ax.set_title("", fontsize=style.fontsize),
                      textwrap.wrap(title, style.title_width))


def _check_cd_arguments(critical_difference: float | None,
                        critical_difference_range: tuple[float, float] | None,
                        max_labels: int | None) -> None:
    """Fail early on contradictory or impossible drawing arguments."""
    if critical_difference is not None and critical_difference_range is not None:
        raise ValueError("give critical_difference or critical_difference_range, not both.")
    if critical_difference is not None and not critical_difference > 0:
        raise ValueError(f"critical_difference must be positive, got {critical_difference}.")
    if critical_difference_range is not None:
        lo_cd, hi_cd = map(float, critical_difference_range)
        if not 0 < lo_cd <= hi_cd:
            raise ValueError(
                f"critical_difference_range must be (low, high) with 0 < low <= high, got "
                f"{critical_difference_range}."
            )
    if max_labels is not None and max_labels < 2:
        raise ValueError(f"max_labels must be at least 2 or None, got {max_labels}.")


#: Vertical layout of a CD diagram in "line" units; y grows downwards from the axis at 0.
_ROW = 1.0
_BAR_TOP = 0.9
_BAR_STEP = 0.55
#: Smallest horizontal gap between two group bars sharing a level (drawing units).
_BAR_GAP = 0.012


@dataclass(frozen=True)
class _CDLayout:
    """Where everything of a CD diagram goes (x: 0 = left .. 1 = right, best on the left)."""

    order: list[str]
    value_of: dict[str, float]
    lo_lim: float
    hi_lim: float
    lower_is_better: bool
    rows: list[tuple[str, float, str]]
    unnamed: list[str]
    groups: list[frozenset[str]]
    member_x: list[np.ndarray]
    spans: list[tuple[float, float]]
    levels: list[int]
    dashed: list[bool]
    first_label: float
    notes: list[str]
    note_room: float
    bottom: float
    top: float

    @property
    def width_units(self) -> float:
        return self.hi_lim - self.lo_lim

    def x_of(self, v: float | np.ndarray) -> float | np.ndarray:
        """Drawing x of a position (the axis is reversed when higher is better)."""
        frac = (np.asarray(v, dtype=float) - self.lo_lim) / self.width_units
        return frac if self.lower_is_better else 1.0 - frac


def _cd_layout(pos: pd.Series, found: Grouping, *, lower_is_better: bool,
               limits: tuple[float, float] | None, max_labels: int | None, contiguous: bool,
               has_cd: bool, compact: bool = False) -> _CDLayout:
    """Axis limits, which names are shown where (``rows``), bar levels and the height."""
    order = order_positions(pos, lower_is_better=lower_is_better)
    k = len(order)
    value_of = dict(zip(pos.index, pos.to_numpy()))
    values = np.array([value_of[name] for name in order])
    n_named = k if max_labels is None or k <= max_labels else 2 * (max_labels // 2)
    lo_lim, hi_lim = _axis_limits(order, values, limits)
    n_best = (n_named + 1) // 2
    n_worst = n_named - n_best
    groups = found.groups
    member_x = [(np.array([value_of[name] for name in g]) - lo_lim) / (hi_lim - lo_lim)
                for g in groups]
    if not lower_is_better:
        member_x = [1.0 - xs for xs in member_x]
    spans = [(float(np.min(xs)), float(np.max(xs))) for xs in member_x]
    levels = _bar_levels(spans)
    n_levels = max(levels, default=-1) + 1
    first_label = _BAR_TOP + n_levels * _BAR_STEP + 0.5
    named = order[:n_best] + (order[k - n_worst:] if n_worst else [])
    if compact:
        # one column on the left, best on top: each line turns left above the lines of
        # the algorithms left of it, so no two lines cross
        rows = [(name, first_label + i * _ROW, "left") for i, name in enumerate(named)]
        n_rows, right_shift = len(named), 0.0
    else:
        # with an even count the two innermost names would share a row, and their elbows
        # (close together on the axis) would read as one crossing line: stagger the right
        right_shift = 0.5 * _ROW if n_named % 2 == 0 and n_named > 2 else 0.0
        rows = [(name, first_label + i * _ROW, "left") for i, name in enumerate(order[:n_best])]
        rows += [(name, first_label + (k - 1 - r) * _ROW + right_shift, "right")
                 for r, name in enumerate(order) if r >= k - n_worst]
        n_rows = max(n_best, n_worst)
    unnamed = [name for name in order if name not in set(named)]
    dashed = _dashed_bars(groups, value_of, values)
    bottom = first_label + (n_rows - 1) * _ROW + right_shift + (1.3 if any(dashed) else 0.6)
    notes = [f"{k} algorithms: the {n_best} best and {n_worst} worst are named, the other "
             f"{len(unnamed)} hang from the axis unnamed (all are in the tables)"
             ] if unnamed else []
    if found.note and not contiguous:
        notes.append(found.note)
    note_room = 0.6 + 0.6 * len(notes) if notes else 0.0
    return _CDLayout(
        order=order, value_of=value_of, lo_lim=lo_lim, hi_lim=hi_lim,
        lower_is_better=lower_is_better, rows=rows, unnamed=unnamed, groups=groups,
        member_x=member_x, spans=spans, levels=levels, dashed=dashed, first_label=first_label,
        notes=notes, note_room=note_room, bottom=bottom + note_room,
        top=-2.6 if has_cd else -1.6,
    )


def _axis_limits(order: list[str], values: np.ndarray,
                 limits: tuple[float, float] | None) -> tuple[float, float]:
    """The axis range: the given limits (checked to hold every position) or the data, padded."""
    if limits is None:
        span = float(values.max() - values.min()) or 1.0
        return values.min() - 0.05 * span, values.max() + 0.05 * span
    lo_lim, hi_lim = float(min(limits)), float(max(limits))
    outside = [n for n, v in zip(order, values) if not lo_lim <= v <= hi_lim]
    if outside:
        raise ValueError(f"limits {limits} exclude the positions of {outside}.")
    return lo_lim, hi_lim


def _bar_levels(spans: list[tuple[float, float]]) -> list[int]:
    """The level (row under the axis) of each group bar, in the groups' order."""
    order_idx = sorted(range(len(spans)), key=lambda i: spans[i])
    levels_sorted = _assign_levels([spans[i] for i in order_idx], _BAR_GAP)
    levels = [0] * len(spans)
    for i, lev in zip(order_idx, levels_sorted):
        levels[i] = lev
    return levels


def _dashed_bars(groups: list[frozenset[str]], value_of: dict[str, float],
                 values: np.ndarray) -> list[bool]:
    """Whether each bar is dashed: an algorithm outside its group lies at or between its members."""
    sorted_values = np.sort(values)
    dashed = []
    for g in groups:
        inside = [value_of[name] for name in g]
        between = (np.searchsorted(sorted_values, max(inside), side="right")
                   - np.searchsorted(sorted_values, min(inside), side="left"))
        dashed.append(bool(between > len(g)))
    return dashed


def _line(style: _CDStyle) -> dict:
    return {"color": "0.15", "lw": style.linewidth, "solid_capstyle": "butt"}


#: Vertical places (line units) of the tick labels, the axis label and the CD bar.
_TICK_TEXT_Y = -0.35
_CD_Y = -1.9


def _axis_label_y(has_cd: bool) -> float:
    return -1.0 if has_cd else -1.05


def _draw_axis(ax: Axes, layout: _CDLayout, style: _CDStyle, axis_label: str, *,
               limits: tuple[float, float] | None, has_cd: bool) -> None:
    """The axis line, its ticks and its label."""
    ax.plot([0, 1], [0, 0], **_line(style))
    for t in _axis_ticks(layout, limits):
        ax.plot([layout.x_of(t)] * 2, [0, -0.25], **_line(style))
        ax.text(layout.x_of(t), _TICK_TEXT_Y, _tick_text(t), ha="center", va="bottom",
                fontsize=style.small)
    ax.text(0.5, _axis_label_y(has_cd), axis_label + " (best on the left)", ha="center",
            va="bottom", fontsize=style.small, color="0.3")


def _axis_ticks(layout: _CDLayout, limits: tuple[float, float] | None) -> np.ndarray:
    return _ticks(layout.lo_lim, layout.hi_lim,
                  integer=limits is not None and _is_rank_scale(limits))


def _cd_bar_parts(layout: _CDLayout, critical_difference: float | None,
                  critical_difference_range: tuple[float, float] | None
                  ) -> tuple[float, float, str, tuple[float, ...]]:
    """(solid end, dashed end, text, end ticks) of the CD bar in drawing units.

    The bar stops at the axis's right end (1): a CD longer than the axis (all
    the algorithms within one CD of each other, e.g. means 0.01 apart and a
    CD of 0.26) is drawn to there with that end open, and its text says so.
    Drawn to its length, the bar and its text ran 20 axis widths off the figure.
    """
    width_units = layout.width_units
    if critical_difference is not None:
        solid = dashed = critical_difference / width_units
        text = f"CD = {critical_difference:.3g}"
    else:
        assert critical_difference_range is not None
        lo_cd, hi_cd = critical_difference_range
        if _same_value(lo_cd, hi_cd):
            # every pair has the same CD at the printed precision: state it once
            cd_value = float(np.mean(critical_difference_range))
            solid = dashed = cd_value / width_units
            text = f"CD = {cd_value:.3g} (every pair)"
        else:
            solid, dashed = lo_cd / width_units, hi_cd / width_units
            text = f"CD = {lo_cd:.3g}–{hi_cd:.3g} (per pair)"
    ticks = tuple(sorted({0.0, solid, dashed}))
    if dashed > 1.0:
        ticks = tuple(t for t in ticks if t <= 1.0)
        solid, dashed = min(solid, 1.0), 1.0
        text += ", longer than the axis"
    return solid, dashed, text, ticks


def _draw_cd_bar(ax: Axes, layout: _CDLayout, style: _CDStyle, critical_difference: float | None,
                 critical_difference_range: tuple[float, float] | None) -> None:
    """The critical-difference bar, top left: one CD, one CD for every pair, or a range."""
    solid, dashed, text, ticks = _cd_bar_parts(layout, critical_difference,
                                               critical_difference_range)
    ax.plot([0, solid], [_CD_Y, _CD_Y], color="0.15", lw=1.8 * style.linewidth)
    if dashed > solid:
        ax.plot([solid, dashed], [_CD_Y, _CD_Y], color="0.15", lw=0.9 * style.linewidth,
                ls=(0, (2, 1.5)))
    for xe in ticks:
        ax.plot([xe, xe], [_CD_Y - 0.12, _CD_Y + 0.12], **_line(style))
    ax.text(dashed + 0.02, _CD_Y, text, va="center", ha="left", fontsize=style.small)


def _draw_names(ax: Axes, layout: _CDLayout, style: _CDStyle, labels: dict[str, str]) -> None:
    """Names with elbows (one collection: thousands of algorithms draw fast)."""
    elbows, accent = [], []
    for name, y, side in layout.rows:
        x = float(layout.x_of(layout.value_of[name]))
        end, at, ha = (-0.03, -0.04, "right") if side == "left" else (1.03, 1.04, "left")
        mark = name in style.highlight
        (accent if mark else elbows).append([(x, 0), (x, y), (end, y)])
        ax.text(at, y, labels[name], ha=ha, va="center", fontsize=style.fontsize,
                fontweight="bold" if mark else "normal",
                color=HIGHLIGHT_COLOUR if mark else "black")
    stubs = [[(float(layout.x_of(layout.value_of[n])), 0), (float(layout.x_of(
        layout.value_of[n])), 0.35)] for n in layout.unnamed]
    if stubs:
        ax.add_collection(LineCollection(stubs, colors="0.55", linewidths=0.55 * style.linewidth),
                          autolim=False)
    ax.add_collection(LineCollection(elbows, colors="0.15", linewidths=style.linewidth,
                                     capstyle="butt"), autolim=False)
    if accent:
        ax.add_collection(LineCollection(accent, colors=HIGHLIGHT_COLOUR,
                                         linewidths=1.8 * style.linewidth, capstyle="butt",
                                         zorder=3), autolim=False)


def _draw_group_bars(ax: Axes, layout: _CDLayout, style: _CDStyle) -> None:
    """One bar per group (dashed when a non-member lies inside), its members' dots in one call."""
    dots = []
    scale = style.linewidth / 0.9
    for xs, (lo, hi), lev, skip in zip(layout.member_x, layout.spans, layout.levels,
                                       layout.dashed):
        y = _BAR_TOP + lev * _BAR_STEP
        ax.plot([lo - 0.006, hi + 0.006], [y, y], color="0.1",
                lw=(1.4 if skip else 2.2) * scale,
                ls=(0, (3, 1.5)) if skip else "-", solid_capstyle="round")
        dots += [(float(x), y) for x in xs]
    if dots:
        xs, ys = zip(*dots)
        ax.plot(xs, ys, "o", color="0.1", ms=3.2 * scale, linestyle="none")


_DASHED_LEGEND = "dashed bar: only dotted algorithms belong to the group"


def _draw_notes(ax: Axes, layout: _CDLayout, style: _CDStyle) -> None:
    """The legend line for dashed bars and the notes under the diagram."""
    if any(layout.dashed):
        ax.text(0.5, layout.bottom - layout.note_room - 0.15, _DASHED_LEGEND,
                ha="center", va="bottom", fontsize=style.small, color="0.3")
    for i, note in enumerate(layout.notes):
        ax.text(0.5, layout.bottom - layout.note_room + 0.6 * i + 0.1, f"note: {note}.",
                ha="center", va="top", fontsize=style.small, color="0.3", wrap=True)


# ---------------------------------------------------------------------- TikZ
def _tex(text: str) -> str:
    """``text`` as LaTeX text, escaped as every LaTeX file of the project is.

    A name with ``[``, ``*``, ``--``, a non-ASCII character or 10,000
    characters is written as it is shown, never run; non-ASCII characters
    go through ``\\bvu``, which the diagram's file defines when the paper
    does not.
    """
    from benchverdict._latex_text import latex_escape

    return latex_escape(text)


def cd_diagram_tikz(
    positions: pd.Series,
    not_different: pd.DataFrame,
    *,
    lower_is_better: bool = True,
    critical_difference: float | None = None,
    critical_difference_range: tuple[float, float] | None = None,
    axis_label: str = "average rank",
    limits: tuple[float, float] | None = None,
    contiguous: bool = False,
    label_width: int = 24,
    value_format: str = "{:.2f}",
    title: str | None = None,
    max_labels: int | None = 60,
    highlight: str | Sequence[str] | None = None,
    layout: str = "two-sided",
    fontsize: float = 9.0,
    linewidth: float = 0.9,
    axis_width: float | None = None,
    standalone: bool = True,
) -> str:
    r"""The critical-difference diagram of :func:`draw_cd_diagram` as a TikZ picture.

    Same groups, bars, rows and options as the matplotlib drawing, written
    as TikZ commands, so the paper's own font sets the names and the
    diagram scales without resampling.

    Parameters
    ----------
    positions, not_different, lower_is_better, critical_difference, \
    critical_difference_range, axis_label, limits, contiguous, label_width, \
    value_format, title, max_labels, highlight, layout, fontsize, linewidth
        As for :func:`draw_cd_diagram`.
    axis_width : float, optional
        Length of the rank axis in cm; default 9 (two-sided) or 4.5 (compact).
    standalone : bool
        ``True``: a whole document (``standalone`` class with TikZ) that
        ``pdflatex`` compiles on its own to a cropped PDF. ``False``: the
        ``tikzpicture`` alone, to ``\input`` into a paper whose preamble
        loads ``tikz``.

    Returns
    -------
    str

    Examples
    --------
    >>> pos = pd.Series({"PB": 1.3, "HB": 2.1, "RS_2": 2.6})
    >>> nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    >>> nd.loc["PB", "RS_2"] = nd.loc["RS_2", "PB"] = False
    >>> tex = cd_diagram_tikz(pos, nd, critical_difference=0.96, limits=(1, 3),
    ...                       highlight="PB", standalone=False)
    >>> tex.splitlines()[1]
    '\\begin{tikzpicture}[x=9cm, y=-0.5588cm]'
    >>> "RS\\_2 (2.60)" in tex, "\\bfseries" in tex
    (True, True)
    """
    _check_cd_arguments(critical_difference, critical_difference_range, max_labels)
    pos, _ = _check_inputs(positions, not_different)
    style = _cd_style(pos, highlight, layout, fontsize, linewidth)
    if axis_width is not None and not axis_width > 0:
        raise ValueError(f"axis_width must be a positive length in cm, got {axis_width}.")
    found = grouping(pos, not_different, contiguous=contiguous, lower_is_better=lower_is_better)
    has_cd = critical_difference is not None or critical_difference_range is not None
    cd = _cd_layout(pos, found, lower_is_better=lower_is_better, limits=limits,
                    max_labels=max_labels, contiguous=contiguous, has_cd=has_cd,
                    compact=style.compact)
    labels = _labels(cd, label_width, value_format)
    width_cm = axis_width if axis_width is not None else (4.5 if style.compact else 9.0)
    line_cm = style.inch_per_line * 2.54
    lw = f"{style.linewidth:.3g}pt"
    big = rf"\fontsize{{{style.fontsize:g}}}{{{1.2 * style.fontsize:.3g}}}\selectfont"
    small = rf"\fontsize{{{style.small:g}}}{{{1.2 * style.small:.3g}}}\selectfont"
    out = [rf"\begin{{tikzpicture}}[x={width_cm:g}cm, y=-{line_cm:.4g}cm]",
           rf"\definecolor{{bvaccent}}{{HTML}}{{{HIGHLIGHT_COLOUR.lstrip('#')}}}",
           rf"\tikzset{{bvline/.style={{line width={lw}, color=black!85}}}}",
           r"\draw[bvline] (0,0) -- (1,0);"]
    for t in _axis_ticks(cd, limits):
        x = float(cd.x_of(t))
        out.append(rf"\draw[bvline] ({x:.4f},0) -- ({x:.4f},-0.25) "
                   rf"node[above, inner sep=1pt, font={small}] {{{_tick_text(t)}}};")
    out.append(rf"\node[above, inner sep=1pt, text=black!70, font={small}] at "
               rf"(0.5,{_axis_label_y(has_cd)}) {{{_tex(axis_label)} (best on the left)}};")
    if has_cd:
        solid, dashed, text, ticks = _cd_bar_parts(cd, critical_difference,
                                                   critical_difference_range)
        out.append(rf"\draw[line width={1.8 * style.linewidth:.3g}pt] (0,{_CD_Y}) -- "
                   rf"({solid:.4f},{_CD_Y});")
        if dashed > solid:
            out.append(rf"\draw[bvline, dashed] ({solid:.4f},{_CD_Y}) -- ({dashed:.4f},{_CD_Y});")
        for xe in ticks:
            out.append(rf"\draw[bvline] ({xe:.4f},{_CD_Y - 0.12:.2f}) -- "
                       rf"({xe:.4f},{_CD_Y + 0.12:.2f});")
        out.append(rf"\node[right, inner sep=1pt, font={small}] at ({dashed + 0.02:.4f},{_CD_Y}) "
                   rf"{{{_tex(text)}}};")
    for name in cd.unnamed:
        x = float(cd.x_of(cd.value_of[name]))
        out.append(rf"\draw[line width={0.55 * style.linewidth:.3g}pt, black!45] ({x:.4f},0) -- "
                   rf"({x:.4f},0.35);")
    for name, y, side in cd.rows:
        x = float(cd.x_of(cd.value_of[name]))
        end, anchor = (-0.03, "left") if side == "left" else (1.03, "right")
        mark = name in style.highlight
        line = (rf"line width={1.8 * style.linewidth:.3g}pt, bvaccent" if mark else "bvline")
        font = big + (r"\bfseries" if mark else "")
        colour = ", text=bvaccent" if mark else ""
        out.append(rf"\draw[{line}] ({x:.4f},0) |- ({end:.4f},{y:.3f}) "
                   rf"node[{anchor}, inner sep=2pt, font={font}{colour}] {{{_tex(labels[name])}}};")
    scale = style.linewidth / 0.9
    for xs, (lo, hi), lev, skip in zip(cd.member_x, cd.spans, cd.levels, cd.dashed):
        y = _BAR_TOP + lev * _BAR_STEP
        dash = ", dash pattern=on 3pt off 1.5pt" if skip else ", line cap=round"
        out.append(rf"\draw[line width={(1.4 if skip else 2.2) * scale:.3g}pt, black!90{dash}] "
                   rf"({lo - 0.006:.4f},{y:.3f}) -- ({hi + 0.006:.4f},{y:.3f});")
        out += [rf"\fill[black!90] ({float(x):.4f},{y:.3f}) circle[radius={1.6 * scale:.3g}pt];"
                for x in xs]
    if any(cd.dashed):
        out.append(rf"\node[above, text=black!70, font={small}] at "
                   rf"(0.5,{cd.bottom - cd.note_room - 0.15:.3f}) {{{_tex(_DASHED_LEGEND)}}};")
    for i, note in enumerate(cd.notes):
        out.append(rf"\node[below, text=black!70, text width={width_cm:g}cm, align=center, "
                   rf"font={small}] at (0.5,{cd.bottom - cd.note_room + 0.6 * i + 0.1:.3f}) "
                   rf"{{note: {_tex(note)}.}};")
    if title:
        out.append(rf"\node[above, font={big}] at (0.5,{cd.top:.2f}) {{{_tex(title)}}};")
    out.append(r"\end{tikzpicture}")
    picture = "\n".join(out) + "\n"
    from benchverdict._latex_text import BVU_FALLBACK, UNICODE_PREAMBLE

    if not standalone:
        # \bvu (a non-ASCII character of a name) unless the paper defines it already.
        return BVU_FALLBACK + "\n" + picture
    return ("\\documentclass[tikz,border=3pt]{standalone}\n"
            "% a critical-difference diagram written by benchverdict\n"
            + "\n".join(UNICODE_PREAMBLE) + "\n"
            "\\begin{document}\n" + picture + "\\end{document}\n")


# ---------------------------------------------------------------------- several diagrams
def draw_cd_diagrams(
    panels: Mapping[str, Mapping[str, Any]],
    *,
    share_axis: bool = True,
    highlight: str | Sequence[str] | None = None,
    layout: str = "two-sided",
    fontsize: float = 9.0,
    linewidth: float = 0.9,
    width: float | None = None,
) -> Figure:
    """Several critical-difference diagrams stacked in one figure, on one shared axis.

    For a diagram per budget or per benchmark group: the panels share the
    position axis (ranks of diagrams with different numbers of algorithms
    run from 1 to the largest number), so a method's move between panels is
    read off directly.

    Parameters
    ----------
    panels : mapping of str to mapping
        Title of each panel -> the keyword arguments of
        :func:`draw_cd_diagram` for it: at least ``positions`` and
        ``not_different``; e.g. ``critical_difference``, ``axis_label``,
        ``limits``, ``lower_is_better`` (the same for every panel).
    share_axis : bool
        One axis range for every panel: the union of the panels' ``limits``
        (or data ranges). ``False`` keeps each panel's own.
    highlight, layout, fontsize, linewidth
        As for :func:`draw_cd_diagram`, applied to every panel.
    width : float, optional
        Figure width in inches; default 7 (3.5 and up with
        ``layout="compact"``, as wide as the longest label needs).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> nd = pd.DataFrame(True, index=list("ABC"), columns=list("ABC"))
    >>> panels = {"budget 10": {"positions": pd.Series({"A": 1.2, "B": 2.0, "C": 2.8}),
    ...                         "not_different": nd, "limits": (1, 3)},
    ...           "budget 100": {"positions": pd.Series({"A": 1.5, "B": 1.6, "C": 2.9}),
    ...                          "not_different": nd, "limits": (1, 3)}}
    >>> fig = draw_cd_diagrams(panels, highlight="A")
    >>> [ax.get_title() for ax in fig.axes]
    ['budget 10', 'budget 100']
    """
    import matplotlib.pyplot as plt

    if not isinstance(panels, Mapping) or not panels:
        raise ValueError("panels must be a non-empty mapping: title -> draw_cd_diagram "
                         "keyword arguments (at least positions and not_different).")
    specs = {}
    for name, spec in panels.items():
        spec = dict(spec)
        missing = [k for k in ("positions", "not_different") if k not in spec]
        if missing:
            raise ValueError(f"panel {name!r} lacks {missing}; give each panel at least "
                             f"positions and not_different.")
        bad = sorted(set(spec) & {"ax", "title", "highlight", "layout", "fontsize", "linewidth"})
        if bad:
            raise ValueError(f"panel {name!r} sets {bad}, which draw_cd_diagrams sets for "
                             f"every panel; pass them to draw_cd_diagrams instead.")
        specs[str(name)] = spec
    directions = {bool(s.get("lower_is_better", True)) for s in specs.values()}
    if len(directions) > 1:
        raise ValueError("the panels disagree on lower_is_better; one shared axis needs one "
                         "direction (draw them as separate figures).")
    if share_axis:
        lows, highs = [], []
        for spec in specs.values():
            values = pd.Series(spec["positions"]).astype(float)
            lim = spec.get("limits")
            lo, hi = (min(lim), max(lim)) if lim is not None else _axis_limits(
                [str(i) for i in values.index], values.to_numpy(), None)
            lows.append(float(lo))
            highs.append(float(hi))
        shared = (min(lows), max(highs))
        for spec in specs.values():
            spec["limits"] = shared
    # lay every panel out first: the figure's height and one label column for all
    prepared = []
    for name, spec in specs.items():
        options = {k: v for k, v in spec.items() if k not in ("positions", "not_different")}
        _check_cd_arguments(options.get("critical_difference"),
                            options.get("critical_difference_range"),
                            options.get("max_labels", 60))
        pos, _ = _check_inputs(spec["positions"], spec["not_different"])
        style = _cd_style(pos, [h for h in _names(highlight) if h in pos.index], layout,
                          fontsize, linewidth)
        prepared.append((name, spec, pos, style))
    layouts, labels = [], []
    for _, spec, pos, style in prepared:
        found = grouping(pos, spec["not_different"], contiguous=spec.get("contiguous", False),
                         lower_is_better=spec.get("lower_is_better", True))
        has_cd = (spec.get("critical_difference") is not None
                  or spec.get("critical_difference_range") is not None)
        lay = _cd_layout(pos, found, lower_is_better=spec.get("lower_is_better", True),
                         limits=spec.get("limits"), max_labels=spec.get("max_labels", 60),
                         contiguous=spec.get("contiguous", False), has_cd=has_cd,
                         compact=style.compact)
        layouts.append(lay)
        labels.append(_labels(lay, spec.get("label_width", 24),
                              spec.get("value_format", "{:.2f}")))
    all_labels = {f"{i}:{k}": v for i, lab in enumerate(labels) for k, v in lab.items()}
    style0 = prepared[0][3]
    if width is None:
        width = _compact_extent(all_labels, style0, None)[0] if style0.compact else DOUBLE_COLUMN
    heights = [_figure_height(lay, s, name) for lay, (name, _, _, s) in zip(layouts, prepared)]
    with theme():
        fig, axes = plt.subplots(len(prepared), 1, figsize=(width, sum(heights)),
                                 height_ratios=heights, squeeze=False)
    left = _compact_extent(all_labels, style0, 0.97 * width)[1] if style0.compact else 0.42
    for ax, lay, lab, (name, spec, _, style) in zip(axes[:, 0], layouts, labels, prepared):
        has_cd = (spec.get("critical_difference") is not None
                  or spec.get("critical_difference_range") is not None)
        _draw_cd(ax, lay, style, lab, left=left, axis_label=spec.get("axis_label",
                 "average rank"), limits=spec.get("limits"), has_cd=has_cd,
                 critical_difference=spec.get("critical_difference"),
                 critical_difference_range=spec.get("critical_difference_range"), title=name)
    return plain_text(fig)


def _names(highlight: str | Sequence[str] | None) -> list[str]:
    if highlight is None:
        return []
    return [highlight] if isinstance(highlight, str) else [str(h) for h in highlight]


def short_unit(unit: str) -> str:
    """The replication statement shortened for a figure title: blocks, unit and budget.

    The full statement (how seeds were aggregated, what was left out) stays
    in the tables, captions and verdicts; a title keeps what identifies the
    diagram.

    Examples
    --------
    >>> short_unit("6 blocks (unit: benchmark; seeds averaged (mean) before ranking, a "
    ...            "choice: unit benchmark_seed ranks each seed; final budget)")
    '6 blocks (unit: benchmark; final budget)'
    >>> short_unit("12 runs")
    '12 runs'
    >>> short_unit("12 independent replicates of 24 blocks (unit: benchmark; a; budget 10)")
    '12 independent replicates of 24 blocks (unit: benchmark; budget 10)'
    """
    import re

    text = str(unit)
    match = re.match(r"^((?:\d[\d,]* independent replicates of )?\d[\d,]* blocks) "
                     r"\(unit: ([A-Za-z_]+);", text)
    if match is None:
        return text if len(text) <= 60 else text[:59] + "…"
    budget = re.search(r"; ((?:final budget)|(?:budget [^;)]+))\)", text)
    at = f"; {budget.group(1)}" if budget else ""
    return f"{match.group(1)} (unit: {match.group(2)}{at})"


def _same_value(low: float, high: float) -> bool:
    """Whether two CDs print as the same number (3 significant digits)."""
    return f"{low:.3g}" == f"{high:.3g}"


def _is_rank_scale(limits: tuple[float, float]) -> bool:
    lo, hi = limits
    return float(lo).is_integer() and float(hi).is_integer() and hi - lo <= 30


def _ticks(lo: float, hi: float, *, integer: bool) -> np.ndarray:
    if integer:
        step = max(1, int(np.ceil((hi - lo) / 12)))
        return np.arange(lo, hi + 1e-9, step)
    ticks = MaxNLocator(nbins=7).tick_values(lo, hi)
    return ticks[(ticks >= lo - 1e-12) & (ticks <= hi + 1e-12)]


def _tick_text(t: float) -> str:
    return f"{t:g}"
