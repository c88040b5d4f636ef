r"""Arena ratings: Bradley-Terry and Elo from pairwise games, with cluster-bootstrap intervals.

Living leaderboards (Chatbot Arena, TabArena, evalica) rate entries from
*games*: who played whom and who won. Here a game is either a row of a
pairwise-outcome table (:func:`benchverdict.io.pairwise_outcomes.read_pairwise_outcomes`)
or, from benchmark results, one pair of algorithms on one (benchmark, seed):
the better incumbent at the compared budget wins, equal scores tie. A tie
counts half a win for each side.

**Bradley-Terry** (:func:`bradley_terry`). Entry :math:`i` has strength
:math:`\theta_i` and beats :math:`j` with probability
:math:`1 / (1 + e^{-(\theta_i - \theta_j)})`. The ratings are the maximum
likelihood estimate given the (weighted) win counts :math:`W_{ij}`, found by
Newton's method, centred to sum 0 and shown on the Elo scale,
:math:`1000 + 400\,\theta_i / \ln 10` (as Chatbot Arena's ``compute_mle_elo``;
a 400-point gap means odds of 10 to 1). The MLE exists only if every split
of the entries into two groups has a win each way (Zermelo; Ford 1957); if
not, :func:`bradley_terry` raises an error naming who never lost or never
won, unless a ridge penalty :math:`\frac{\lambda}{2}\sum_i \theta_i^2` is
asked for. The rating is order-free: it depends on the win counts only.

**Elo** (:func:`elo_ratings`), for readers who expect it: every entry
starts at 1000; games are played in order, and a game of weight :math:`w`
moves :math:`R_x` by :math:`K w (S_x - E_x)` and :math:`R_y` by the
opposite, with :math:`E_x = 1 / (1 + 10^{(R_y - R_x)/400})` and
:math:`S_x \in \{1, \tfrac12, 0\}`; :math:`K = 4` by default (Chatbot Arena's
``elo_analysis.py``). Elo depends on the order of the games: from a table it
is the table's order; from results, benchmarks in their sorted order, then
seeds, then pairs ``(x, y)`` with ``x`` before ``y`` in the algorithms'
sorted order. It is a running estimate, not a fit; with many games and a
small :math:`K` it tracks the Bradley-Terry ratings.

**Intervals** (``*_lower``, ``*_upper``): percentile intervals at level
``confidence`` from a cluster bootstrap. The unit resampled is the
*benchmark* (all its seeds and games together: seeds are nested in
benchmarks, and games on one benchmark are not independent), or the game
when a table names no benchmark. The resampled win counts are one matrix
product, and Newton's method runs on all resamples at once. Elo's
resamples also draw a random order of the games each time (as Chatbot
Arena's bootstrap does), so its interval includes its dependence on order;
a game drawn :math:`c` times updates with :math:`cK`. Resamples where the
Bradley-Terry MLE does not exist (some entry never lost, or never won, in
the resample) are fitted with the ridge :data:`FALLBACK_RIDGE` and counted in
:attr:`Arena.notes`. The intervals are marginal (one entry at a time), not
simultaneous, and slightly liberal with few benchmarks: with games from a
true Bradley-Terry model in 30 benchmarks, the 95% intervals of four
entries covered 0.95, 0.95, 0.91 and 0.94 over 300 data sets
(tests/test_leaderboard_arena.py checks 0.90).

**What the ratings claim, and what they assume.** One strength per entry
that predicts every pair on every benchmark: the model assumes transitivity
and one scale of strength across benchmarks. Where an entry is better on
some benchmarks and worse on others, the rating averages that away. The
board's *positions* make no such assumption (they come from per-pair tests
over benchmarks, with family-wise error control), so the two can disagree:
a higher rating is not a settled relation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from benchverdict._plain_text import plain_text, printable
from benchverdict.results import Results

#: Rating of an average entry, and points per factor 10 in the odds (Elo's scale).
INITIAL_RATING = 1000.0
ELO_SCALE = 400.0
#: Elo's K factor by default (Chatbot Arena's elo_analysis.py).
K_FACTOR = 4.0
#: Ridge of the resamples where the Bradley-Terry MLE does not exist.
FALLBACK_RIDGE = 0.01
#: Elo is computed only up to this many games (its bootstrap is a loop over games).
ELO_MAX_GAMES = 10_000
#: Resamples of the bootstrap by default.
N_RESAMPLES = 500
#: Resamples fitted at once (bounds memory: chunk x entries^2 floats a few times).
_CHUNK = 100

ARENA_COLUMNS = ["algorithm", "bt_rating", "bt_lower", "bt_upper", "elo", "elo_lower",
                 "elo_upper", "wins", "losses", "ties", "games"]
#: Columns of :meth:`Arena.to_frame` (one row per entry and rating).
ARENA_FRAME_COLUMNS = ["algorithm", "rating", "estimate", "lower", "upper", "confidence",
                       "games"]


class NoMaximumLikelihood(ValueError):
    """The Bradley-Terry MLE does not exist: some entries never lost (or never won)."""


# ------------------------------------------------------------------ Bradley-Terry
def _no_mle(wins: np.ndarray) -> tuple[list[int], list[int]] | None:
    """``None`` if the MLE exists, else (a group that never lost outside, one that never won).

    The MLE exists iff the directed graph with an edge ``i -> j`` when ``i`` won (or tied)
    some game against ``j`` is strongly connected.
    """
    k = wins.shape[0]
    n, label = connected_components(sparse.csr_matrix(wins > 0), directed=True,
                                    connection="strong")
    if n <= 1:
        return None
    comp = np.zeros((n, n), dtype=bool)  # comp[a, b]: someone in a beat someone in b
    i, j = np.nonzero(wins > 0)
    comp[label[i], label[j]] = True
    np.fill_diagonal(comp, False)
    top = next(c for c in range(n) if not comp[:, c].any())      # nobody outside beat it
    bottom = next(c for c in range(n) if not comp[c, :].any())   # it beat nobody outside
    members = np.arange(k)
    return members[label == top].tolist(), members[label == bottom].tolist()


def _strongly_connected(wins: np.ndarray) -> np.ndarray:
    """Per ``(R, k, k)`` matrix: whether the MLE exists (the win graph is strongly connected).

    Everyone reachable from entry 0 along wins, and along losses: a breadth-first search run
    on all matrices at once (one batched matrix-vector product per step).
    """
    edges = (wins > 0).astype(float)
    ok = np.ones(len(wins), dtype=bool)
    for graph in (edges, np.swapaxes(edges, 1, 2)):
        reach = np.zeros(wins.shape[:2])
        reach[:, 0] = 1.0
        for _ in range(wins.shape[1]):
            grown = np.minimum(1.0, reach + np.einsum("ri,rij->rj", reach, graph))
            if np.array_equal(grown, reach):
                break
            reach = grown
        ok &= reach.all(axis=1)
    return ok


def bradley_terry(
    wins: np.ndarray, *, ridge: float = 0.0, names: Sequence[str] | None = None,
    tol: float = 1e-10, max_iter: int = 200, start: np.ndarray | None = None,
) -> np.ndarray:
    r"""Bradley-Terry strengths (maximum likelihood, centred) from a matrix of win counts.

    Maximises :math:`\sum_{i \ne j} W_{ij} \log \sigma(\theta_i - \theta_j)
    - \frac{\lambda}{2} \sum_i \theta_i^2` by Newton's method (steps capped
    at 2 in log-odds), where :math:`\sigma` is the logistic function; the
    strengths are centred to sum 0 (a ridge centres them by itself).

    Parameters
    ----------
    wins : numpy.ndarray
        ``(..., k, k)``: ``wins[..., i, j]`` is the (weighted) number of games
        ``i`` won against ``j``, ties counted half to each; the diagonal is
        ignored. Leading axes are independent problems (bootstrap resamples),
        solved together.
    ridge : float
        :math:`\lambda \ge 0`. With 0 the MLE must exist.
    names : sequence of str, optional
        Entry names for the error message.
    tol, max_iter :
        Stop when every gradient component is below ``tol`` times the mean
        number of games per entry (at least 1), or after ``max_iter`` steps.
    start : numpy.ndarray, optional
        ``(k,)`` strengths to start from (the bootstrap starts from the
        point estimate); default 0.

    Returns
    -------
    numpy.ndarray
        ``(..., k)`` strengths :math:`\theta` in log-odds.

    Raises
    ------
    NoMaximumLikelihood
        With ``ridge=0``, if some group of entries never lost (or never won)
        against the others (checked for a single ``(k, k)`` matrix): their
        strengths would be infinite. The message names them and the fix.
    ValueError
        On negative or non-finite counts, a non-square matrix or a negative ridge.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 2, 3], [1, 0, 2], [1, 1, 0]], dtype=float)
    >>> bradley_terry(w).round(4)
    array([ 0.5948,  0.    , -0.5948])
    >>> bradley_terry(np.array([[0, 1], [0, 0]], dtype=float), names=["a", "b"])
    Traceback (most recent call last):
    ...
    benchverdict.leaderboard.arena.NoMaximumLikelihood: no Bradley-Terry maximum likelihood: a
    never lost a game to anyone else, and b never won one; ... pass ridge=0.01 ...
    """
    wins = np.asarray(wins, dtype=float)
    if wins.ndim < 2 or wins.shape[-1] != wins.shape[-2]:
        raise ValueError(f"wins must be (..., k, k); got shape {wins.shape}.")
    if not np.isfinite(wins).all() or (wins < 0).any():
        raise ValueError("wins must be finite and non-negative (weighted win counts).")
    if not ridge >= 0:
        raise ValueError(f"ridge must be >= 0, got {ridge!r}.")
    k = wins.shape[-1]
    wins = wins * (1.0 - np.eye(k))
    if ridge == 0 and wins.ndim == 2 and k > 1:
        found = _no_mle(wins)
        if found is not None:
            label = [str(n) for n in names] if names is not None else [str(i) for i in range(k)]
            top, bottom = ([label[i] for i in group] for group in found)
            raise NoMaximumLikelihood(
                f"no Bradley-Terry maximum likelihood: {_few(top)} never lost a game to "
                f"anyone else, and {_few(bottom)} never won one; their ratings would be "
                f"infinite. Fix: add games they lose (win), or pass ridge={FALLBACK_RIDGE:g} "
                f"for a penalised fit that pulls every rating toward the average.")
    shape = wins.shape[:-2]
    flat = wins.reshape(-1, k, k)
    out = np.concatenate([_newton(flat[i:i + _CHUNK], ridge, tol, max_iter, start)
                          for i in range(0, len(flat), _CHUNK)]) if len(flat) else \
        np.zeros((0, k))
    return out.reshape(*shape, k)


def _few(names: Sequence[str], shown: int = 5) -> str:
    text = ", ".join(names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _newton(wins: np.ndarray, ridge: float, tol: float, max_iter: int,
            start: np.ndarray | None = None) -> np.ndarray:
    """Newton's method on ``(R, k, k)`` win counts at once; returns ``(R, k)`` centred strengths.

    The log-likelihood is invariant to adding a constant to every strength, so its Hessian
    is singular along the all-ones vector; adding ``J / k`` (``J`` all ones) makes it
    invertible without moving the optimum (the gradient sums to ``-ridge * sum(theta)``,
    and the strengths are re-centred after each step).
    """
    r, k, _ = wins.shape
    games = wins + np.swapaxes(wins, 1, 2)
    won = wins.sum(axis=2)
    scale = max(1.0, float(games.sum(axis=(1, 2)).mean()) / max(k, 1))
    theta = np.zeros((r, k)) if start is None else np.broadcast_to(start, (r, k)).copy()
    shift = np.full((k, k), 1.0 / k) + ridge * np.eye(k)
    for _ in range(max_iter):
        p = expit(theta[:, :, None] - theta[:, None, :])
        grad = won - (games * p).sum(axis=2) - ridge * theta
        if np.abs(grad).max(initial=0.0) < tol * scale:
            break
        h = games * p * (1.0 - p)
        hess = -h
        hess[:, np.arange(k), np.arange(k)] = h.sum(axis=2)
        step = np.linalg.solve(hess + shift, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        theta = theta + step * np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))
        theta -= theta.mean(axis=1, keepdims=True)
    return theta


def _hessian(wins: np.ndarray, theta: np.ndarray, ridge: float) -> np.ndarray:
    """Minus the Hessian of the log-likelihood at ``theta`` (``(k, k)``), plus ``J/k + ridge I``."""
    k = len(theta)
    games = wins + wins.T
    p = expit(theta[:, None] - theta[None, :])
    h = games * p * (1.0 - p)
    hess = -h
    hess[np.arange(k), np.arange(k)] = h.sum(axis=1)
    return hess + np.full((k, k), 1.0 / k) + ridge * np.eye(k)


def _bootstrap_fits(wins: np.ndarray, theta: np.ndarray, total: np.ndarray, ridge: float,
                    tol: float = 1e-10, max_iter: int = 60) -> np.ndarray:
    """Fit ``(R, k, k)`` resampled win counts, starting from the full data's fit ``theta``.

    The resamples' Hessians are close to the full data's (same number of games in
    expectation), so each step uses that one inverse for every resample (a chord method:
    one batched matrix product per step instead of R linear solves); resamples it does not
    bring to the tolerance are finished by Newton's method.
    """
    r, k, _ = wins.shape
    inverse = np.linalg.inv(_hessian(total, theta, ridge))
    games = wins + np.swapaxes(wins, 1, 2)
    won = wins.sum(axis=2)
    scale = max(1.0, float(games.sum(axis=(1, 2)).mean()) / max(k, 1))
    fits = np.broadcast_to(theta, (r, k)).copy()
    done = np.zeros(r, dtype=bool)
    for _ in range(max_iter):
        todo = np.flatnonzero(~done)
        if not len(todo):
            break
        t = fits[todo]
        p = expit(t[:, :, None] - t[:, None, :])
        grad = won[todo] - (games[todo] * p).sum(axis=2) - ridge * t
        small = np.abs(grad).max(axis=1) < tol * scale
        done[todo[small]] = True
        step = grad @ inverse.T
        big = np.abs(step).max(axis=1, keepdims=True)
        t = t + step * np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))
        fits[todo[~small]] = (t - t.mean(axis=1, keepdims=True))[~small]
    left = np.flatnonzero(~done)
    if len(left):
        fits[left] = np.concatenate([
            _newton(wins[left[i:i + _CHUNK]], ridge, tol, 200, theta)
            for i in range(0, len(left), _CHUNK)])
    return fits


def to_elo_scale(theta: np.ndarray) -> np.ndarray:
    """Strengths in log-odds on the Elo scale: ``1000 + 400 * theta / ln 10``.

    Examples
    --------
    >>> float(to_elo_scale(np.log(10.0)))
    1400.0
    """
    return INITIAL_RATING + ELO_SCALE / math.log(10.0) * np.asarray(theta, dtype=float)


# ------------------------------------------------------------------ Elo
def elo_ratings(
    x: np.ndarray, y: np.ndarray, score_x: np.ndarray, k: int, *,
    weight: np.ndarray | None = None, k_factor: float = K_FACTOR,
    initial: float = INITIAL_RATING,
) -> np.ndarray:
    r"""Sequential Elo ratings after playing the games in the order given.

    Parameters
    ----------
    x, y : numpy.ndarray of int
        The players of each game, as indices ``0..k-1``. A 2-D array plays
        several independent sequences (one per row) at once.
    score_x : numpy.ndarray
        ``x``'s result per game: 1 (won), 0.5 (tie), 0 (lost).
    k : int
        Number of players.
    weight : numpy.ndarray, optional
        Per game: the update is multiplied by it (default 1).
    k_factor, initial : float
        Elo's K and the starting rating.

    Returns
    -------
    numpy.ndarray
        ``(k,)`` ratings (``(rows, k)`` for 2-D input).

    Examples
    --------
    One game, A (0) beats B (1), both at 1000: A gains K/2.

    >>> elo_ratings(np.array([0]), np.array([1]), np.array([1.0]), 2, k_factor=32)
    array([1016.,  984.])
    """
    x, y = np.atleast_2d(x).astype(np.intp), np.atleast_2d(y).astype(np.intp)
    s = np.atleast_2d(np.asarray(score_x, dtype=float))
    w = np.ones_like(s) if weight is None else np.atleast_2d(np.asarray(weight, dtype=float))
    rows, n = x.shape
    rating = np.full((rows, k), float(initial))
    at = np.arange(rows)
    factor = float(k_factor)
    for t in range(n):
        xi, yi = x[:, t], y[:, t]
        expected = 1.0 / (1.0 + 10.0 ** ((rating[at, yi] - rating[at, xi]) / ELO_SCALE))
        delta = factor * w[:, t] * (s[:, t] - expected)
        rating[at, xi] += delta
        rating[at, yi] -= delta
    return rating[0] if np.ndim(score_x) == 1 else rating


# ------------------------------------------------------------------ result
@dataclass
class Arena:
    """Bradley-Terry and Elo ratings with bootstrap intervals (see the module docstring).

    Attributes
    ----------
    ratings : pandas.DataFrame
        One row per entry (columns :data:`ARENA_COLUMNS`), best Bradley-Terry
        rating first: ``bt_rating`` and its interval ``bt_lower``/``bt_upper``
        (Elo scale), ``elo`` in the stated order and ``elo_lower``/``elo_upper``
        (NaN when Elo was not computed; :attr:`notes` says why), and the
        entry's ``wins``, ``losses``, ``ties`` and ``games`` (weighted).
    confidence : float
        Level of each (marginal) interval.
    n_resamples, seed : int
        Bootstrap resamples and seed.
    cluster : str
        What the bootstrap resamples: ``"benchmark"`` or ``"game"``.
    n_clusters : int
        How many there are.
    k_factor : float
        Elo's K.
    ridge : float
        Bradley-Terry ridge of the point estimate (0: the plain MLE).
    elo_order : str
        The order Elo played the games in.
    source : str
        Where the games came from.
    notes : list of str
        Anything left out or fitted differently, in words.
    """

    ratings: pd.DataFrame
    confidence: float
    n_resamples: int
    seed: int
    cluster: str
    n_clusters: int
    k_factor: float
    ridge: float
    elo_order: str
    source: str
    notes: list[str] = field(default_factory=list)

    @property
    def table(self) -> pd.DataFrame:
        """The ratings (a copy of :attr:`ratings`, one row per entry)."""
        return self.ratings.copy()

    def verdicts(self) -> list:
        """Empty: ratings rank entries by a fitted strength and decide no pair (no verdicts).

        Settled relations between entries come from the board's positions
        (:func:`benchverdict.leaderboard.build_leaderboard`).
        """
        return []

    def _repr_html_(self) -> str:
        import html

        return (f"<p>{html.escape(self.describe())}</p>"
                + self.ratings.to_html(index=False, float_format=lambda v: f"{v:.1f}"))

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per (entry, rating) with ``estimate``, ``lower``, ``upper``.

        Examples
        --------
        >>> arena = arena_from_results(_example_three(), n_resamples=50)
        >>> arena.to_frame()[["algorithm", "rating"]].head(2).to_dict("records")
        [{'algorithm': 'a', 'rating': 'bradley_terry'},
         {'algorithm': 'c', 'rating': 'bradley_terry'}]
        """
        parts = []
        for rating, (est, low, high) in (("bradley_terry", ("bt_rating", "bt_lower", "bt_upper")),
                                         ("elo", ("elo", "elo_lower", "elo_upper"))):
            r = self.ratings
            parts.append(pd.DataFrame({
                "algorithm": r["algorithm"], "rating": rating, "estimate": r[est],
                "lower": r[low], "upper": r[high], "confidence": self.confidence,
                "games": r["games"]}))
        return pd.concat(parts, ignore_index=True)[ARENA_FRAME_COLUMNS]

    def describe(self) -> str:
        """What the ratings mean, in two sentences (for pages)."""
        elo = ("Elo: sequential, K = "
               f"{self.k_factor:g}, starting at {INITIAL_RATING:g}, games in {self.elo_order}"
               if self.ratings["elo"].notna().any() else "Elo: not computed (see notes)")
        # Without a maximum-likelihood estimate (an entry never lost, or never won) the
        # ratings are the ridge's: a finite number the data do not determine. The
        # terminal printed "maximum likelihood" beside "BT 2041 [2041, 2041]".
        forced = any(str(n).startswith("no Bradley-Terry maximum likelihood")
                     for n in self.notes)
        fit = ("maximum likelihood" if self.ridge == 0 else
               f"penalised by a ridge of {self.ridge:g}, since no maximum likelihood "
               f"estimate exists (an entry never lost or never won): the ratings of such "
               f"entries are set by the ridge, not the data, and their intervals are not "
               f"precision" if forced else f"penalised by a ridge of {self.ridge:g}")
        return (f"Bradley-Terry ratings ({fit}; on the Elo scale: 400 points = "
                f"odds of 10 to 1) and {elo}; {self.confidence:.0%} percentile intervals "
                f"from {self.n_resamples} bootstrap resamples of the {self.n_clusters} "
                f"{self.cluster}s (marginal, one entry at a time). Both assume one strength "
                f"per entry on every benchmark (transitive, one scale).")

    def summary(self) -> str:
        """Plain text: one line per entry."""
        lines = [f"Arena ratings from {self.source}"]
        for r in self.ratings.itertuples():
            elo = (f"Elo {r.elo:7.1f} [{r.elo_lower:.1f}, {r.elo_upper:.1f}]"
                   if math.isfinite(r.elo) else "Elo -")
            lines.append(f"  {printable(r.algorithm):<24} BT {r.bt_rating:7.1f} "
                         f"[{r.bt_lower:.1f}, {r.bt_upper:.1f}]  {elo}  "
                         f"{r.wins:g}-{r.losses:g}-{r.ties:g} (W-L-T)")
        lines.append(self.describe())
        lines += [f"Note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        top = ", ".join(printable(a) for a in self.ratings["algorithm"].head(3))
        return f"<Arena: {len(self.ratings)} entries, top: {top}>"

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Ratings with their intervals: Bradley-Terry (circles) and Elo (squares), per entry.

        Returns the matplotlib Axes.
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import ALGORITHM_PALETTE

        r = self.ratings
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.3 * max(len(r), 3) + 1.2))
        y = np.arange(len(r))[::-1].astype(float)
        kinds = [("Bradley-Terry", "bt_rating", "bt_lower", "bt_upper", "o", 0.12),
                 ("Elo", "elo", "elo_lower", "elo_upper", "s", -0.12)]
        for colour, (label, est, low, high, marker, dy) in zip(ALGORITHM_PALETTE, kinds,
                                                                strict=False):
            ok = r[est].notna().to_numpy()
            if not ok.any():
                continue
            ax.errorbar(r[est][ok], y[ok] + dy,
                        xerr=[(r[est] - r[low])[ok].clip(lower=0),
                              (r[high] - r[est])[ok].clip(lower=0)],
                        fmt=marker, color=colour, capsize=3, label=label, **kwargs)
        ax.set_yticks(y, [str(a) for a in r["algorithm"]])
        ax.set_xlabel(f"rating (Elo scale; {self.confidence:.0%} bootstrap intervals over "
                      f"{self.cluster}s)")
        ax.legend(loc="best", fontsize="small")
        ax.set_title("Arena ratings (assume one strength per entry on every benchmark)",
                     fontsize="medium")
        return plain_text(ax)

    # ----------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (non-finite numbers as ``None``)."""
        def clean(v: Any) -> Any:
            if isinstance(v, np.generic):
                v = v.item()
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {"ratings": [{k: clean(v) for k, v in row.items()}
                            for row in self.ratings.to_dict("records")],
                "confidence": self.confidence, "n_resamples": self.n_resamples,
                "seed": self.seed, "cluster": self.cluster, "n_clusters": self.n_clusters,
                "k_factor": self.k_factor, "ridge": self.ridge, "elo_order": self.elo_order,
                "source": self.source, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Arena:
        """Read :meth:`to_dict`'s form back."""
        ratings = pd.DataFrame(data["ratings"], columns=ARENA_COLUMNS)
        for c in ARENA_COLUMNS[1:]:
            ratings[c] = ratings[c].astype(float)
        ratings["algorithm"] = ratings["algorithm"].astype(str)
        return cls(ratings=ratings, confidence=float(data["confidence"]),
                   n_resamples=int(data["n_resamples"]), seed=int(data["seed"]),
                   cluster=str(data["cluster"]), n_clusters=int(data["n_clusters"]),
                   k_factor=float(data["k_factor"]), ridge=float(data["ridge"]),
                   elo_order=str(data["elo_order"]), source=str(data["source"]),
                   notes=list(data.get("notes", [])))


# ------------------------------------------------------------------ building
@dataclass
class _Games:
    """Games grouped by cluster: what both ratings need."""

    names: list[str]
    per_cluster: Any               # (n_clusters, k * k) weighted wins of i over j
    ties: np.ndarray               # per entry: weighted tied games
    n_games: int
    cluster: str
    order: str
    source: str
    notes: list[str]
    #: Elo's games in order: x, y, x's score, weight, cluster index (made only for Elo).
    sequence: Callable[[], tuple[np.ndarray, ...]]


def _check_settings(confidence: float, n_resamples: int, k_factor: float, ridge: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.95; got {confidence!r}.")
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples!r}.")
    if not (math.isfinite(k_factor) and k_factor > 0):
        raise ValueError(f"k_factor must be a positive number, got {k_factor!r}.")
    if not (math.isfinite(ridge) and ridge >= 0):
        raise ValueError(f"ridge must be >= 0, got {ridge!r}.")


def arena_from_results(
    results: Results, *, budget: float | None = None, confidence: float = 0.95,
    n_resamples: int = N_RESAMPLES, seed: int = 0, k_factor: float = K_FACTOR,
    ridge: float = 0.0, elo: bool | None = None,
) -> Arena:
    """Arena ratings from benchmark results: each (benchmark, seed) plays every pair once.

    The scores are the runs' incumbents at ``budget`` (each run's final one
    by default), as the report compares them. On each (benchmark, seed) the
    better score wins (by the results' objective), equal scores tie (half a
    win each). A pair with a missing run on a (benchmark, seed) has no game
    there (counted in the notes). The bootstrap resamples benchmarks, seeds
    nested in them.

    Parameters
    ----------
    results : Results
    budget : float, optional
        Compare incumbents at this budget.
    confidence : float
        Level of each interval.
    n_resamples, seed : int
        Bootstrap resamples and their seed.
    k_factor : float
        Elo's K.
    ridge : float
        Bradley-Terry ridge (0: the MLE, an error if it does not exist).
    elo : bool, optional
        Compute Elo (default: when there are at most :data:`ELO_MAX_GAMES` games;
        its bootstrap is a loop over games).

    Returns
    -------
    Arena

    Examples
    --------
    >>> arena = arena_from_results(_example_three(), n_resamples=200)
    >>> arena.ratings[["algorithm", "wins", "losses", "ties"]].to_dict("records")[0]
    {'algorithm': 'a', 'wins': 21.0, 'losses': 3.0, 'ties': 0.0}
    >>> arena.ratings["bt_rating"].round(1).tolist()
    [1227.2, 922.5, 850.3]
    """
    _check_settings(confidence, n_resamples, k_factor, ridge)
    runs = results.incumbents(budget).table if results.has_budget else results.table
    if "benchmark" in runs.columns:
        bench = runs["benchmark"].astype(str)
    else:
        bench = pd.Series("all", index=runs.index)
    cells = (runs.assign(benchmark=bench)
             .groupby(["benchmark", "seed", "algorithm"], observed=True)["score"].mean()
             .unstack("algorithm"))
    names = sorted(map(str, cells.columns))
    cells.columns = cells.columns.astype(str)
    cells = cells[names].sort_index()
    k = len(names)
    values = cells.to_numpy(dtype=float)
    if results.objective == "minimize":
        values = -values
    present = ~np.isnan(values)
    n_present = present.sum(axis=1)
    n_games = int((n_present * (n_present - 1) // 2).sum())
    notes = []
    missing = len(cells) * k * (k - 1) // 2 - n_games
    if missing:
        notes.append(f"{missing} pair game(s) have no result for one side on a "
                     f"(benchmark, seed) and were not played (a missing run is no game).")
    benchmarks = np.asarray(cells.index.get_level_values("benchmark"))
    cluster_index = np.unique(benchmarks, return_inverse=True)[1]
    # Wins of i over j on each (benchmark, seed): 1, a tie 1/2 (NaN compares false: no game).
    # The cells are sorted by benchmark, so each benchmark's rows are one block to add up.
    starts = np.flatnonzero(np.r_[True, cluster_index[1:] != cluster_index[:-1]])
    per_cluster = np.empty((len(starts), k * k))
    ties = np.zeros(k)
    for lo, hi, at in zip(starts, np.r_[starts[1:], len(cells)], range(len(starts)),
                          strict=True):
        v = values[lo:hi]
        greater = (v[:, :, None] > v[:, None, :]).sum(axis=0, dtype=float)
        equal = (v[:, :, None] == v[:, None, :]).sum(axis=0, dtype=float)
        np.fill_diagonal(equal, 0.0)
        per_cluster[at] = (greater + 0.5 * equal).ravel()
        ties += equal.sum(axis=1)
    games = _Games(
        names=names, per_cluster=per_cluster, ties=ties, n_games=n_games,
        cluster="benchmark",
        order="benchmarks' sorted order, then seeds, then pairs (x before y by name)",
        source=f"{len(cells)} (benchmark, seed) results of {k} entries", notes=notes,
        sequence=lambda: _game_sequence(values, cluster_index))
    return _rate(games, confidence=confidence, n_resamples=n_resamples, seed=seed,
                 k_factor=k_factor, ridge=ridge, elo=elo)


def arena_from_outcomes(
    outcomes: pd.DataFrame, *, confidence: float = 0.95, n_resamples: int = N_RESAMPLES,
    seed: int = 0, k_factor: float = K_FACTOR, ridge: float = 0.0, elo: bool | None = None,
) -> Arena:
    """Arena ratings from a pairwise-outcome table (``x, y, winner[, weight][, benchmark]``).

    The table is read by
    :func:`~benchverdict.io.pairwise_outcomes.read_pairwise_outcomes`
    (called here, so a raw frame is validated too). Elo plays the rows in the
    table's order. The bootstrap resamples benchmarks if the table has a
    ``benchmark`` column, else games.

    Parameters are those of :func:`arena_from_results`.

    Examples
    --------
    >>> import pandas as pd
    >>> games = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["b", "c", "c", "a"],
    ...                       "winner": ["x", "x", "tie", "x"]})
    >>> arena = arena_from_outcomes(games, n_resamples=100, ridge=0.01)
    >>> arena.ratings[["algorithm", "wins", "losses", "ties"]].to_dict("records")[0]
    {'algorithm': 'a', 'wins': 2.0, 'losses': 1.0, 'ties': 0.0}
    """
    from benchverdict.io.pairwise_outcomes import read_pairwise_outcomes

    _check_settings(confidence, n_resamples, k_factor, ridge)
    table = read_pairwise_outcomes(outcomes)
    names = sorted(set(table["x"]) | set(table["y"]))
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    x = table["x"].map(index).to_numpy()
    y = table["y"].map(index).to_numpy()
    score = np.where(table["winner"] == "x", 1.0,
                     np.where(table["winner"] == "y", 0.0, 0.5))
    weight = table["weight"].to_numpy(dtype=float)
    if "benchmark" in table.columns:
        cluster_names, cluster_of = np.unique(table["benchmark"].to_numpy(),
                                              return_inverse=True)
        cluster = "benchmark"
    else:
        cluster_names, cluster_of = np.arange(len(table)), np.arange(len(table))
        cluster = "game"
    flat = sparse.coo_matrix(
        (np.concatenate([weight * score, weight * (1.0 - score)]),
         (np.concatenate([cluster_of, cluster_of]), np.concatenate([x * k + y, y * k + x]))),
        shape=(len(cluster_names), k * k)).tocsr()
    tie = score == 0.5
    ties = (np.bincount(x[tie], weight[tie], minlength=k)
            + np.bincount(y[tie], weight[tie], minlength=k))
    games = _Games(names=names, per_cluster=flat, ties=ties, n_games=len(table),
                   cluster=cluster, order="the table's row order",
                   source=f"{len(table)} games of {k} entries", notes=[],
                   sequence=lambda: (x, y, score, weight, cluster_of))
    return _rate(games, confidence=confidence, n_resamples=n_resamples, seed=seed,
                 k_factor=k_factor, ridge=ridge, elo=elo)


def _rate(games: _Games, *, confidence: float, n_resamples: int, seed: int,
          k_factor: float, ridge: float, elo: bool | None) -> Arena:
    names, k = games.names, len(games.names)
    notes = list(games.notes)
    if k < 2:
        raise ValueError(f"an arena needs at least 2 entries; got {k} ({names}).")
    total = np.asarray(games.per_cluster.sum(axis=0)).reshape(k, k)
    theta = bradley_terry(total, ridge=ridge, names=names)
    n_clusters = games.per_cluster.shape[0]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters),
                             size=n_resamples).astype(float)
    boot_wins = np.asarray(games.per_cluster.T @ counts.T).T.reshape(n_resamples, k, k)
    degenerate = (~_strongly_connected(boot_wins) if ridge == 0
                  else np.zeros(n_resamples, dtype=bool))
    boot = np.empty((n_resamples, k))
    for mask, lam in ((~degenerate, ridge), (degenerate, max(ridge, FALLBACK_RIDGE))):
        if mask.any():
            boot[mask] = _bootstrap_fits(boot_wins[mask], theta, total, lam)
    if degenerate.any():
        notes.append(f"{int(degenerate.sum())} of {n_resamples} bootstrap resamples had an "
                     f"entry that never lost or never won (no maximum likelihood); they were "
                     f"fitted with ridge {FALLBACK_RIDGE:g}.")
    if ridge > 0:
        notes.append(f"Bradley-Terry ratings are penalised (ridge {ridge:g}): pulled toward "
                     f"the average.")
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    bt = to_elo_scale(theta)
    bt_low, bt_high = to_elo_scale(np.quantile(boot, tails, axis=0))
    n_games = games.n_games
    do_elo = n_games <= ELO_MAX_GAMES if elo is None else bool(elo)
    if do_elo:
        gx, gy, gs, gw, gc = games.sequence()
        point = elo_ratings(gx, gy, gs, k, weight=gw, k_factor=k_factor)
        order = np.argsort(rng.random((n_resamples, n_games)), axis=1)
        factor = counts[:, gc][np.arange(n_resamples)[:, None], order]
        replay = elo_ratings(gx[order], gy[order], gs[order], k, weight=gw[order] * factor,
                             k_factor=k_factor)
        elo_low, elo_high = np.quantile(replay, tails, axis=0)
    else:
        point = elo_low = elo_high = np.full(k, np.nan)
        notes.append(f"Elo not computed: {n_games} games, more than {ELO_MAX_GAMES} (its "
                     f"bootstrap replays every game); the Bradley-Terry ratings fit the same "
                     f"model without depending on the order of the games.")
    won = total.sum(axis=1)
    lost = total.sum(axis=0)
    tie_weight = games.ties
    ratings = pd.DataFrame({
        "algorithm": names, "bt_rating": bt, "bt_lower": bt_low, "bt_upper": bt_high,
        "elo": point, "elo_lower": elo_low, "elo_upper": elo_high,
        "wins": won - tie_weight / 2, "losses": lost - tie_weight / 2, "ties": tie_weight,
        "games": won + lost}, columns=ARENA_COLUMNS)
    ratings = ratings.sort_values(["bt_rating", "algorithm"], ascending=[False, True],
                                  kind="stable").reset_index(drop=True)
    return Arena(ratings=ratings, confidence=confidence, n_resamples=int(n_resamples),
                 seed=int(seed), cluster=games.cluster, n_clusters=int(n_clusters),
                 k_factor=float(k_factor), ridge=float(ridge), elo_order=games.order,
                 source=games.source, notes=notes)


def _game_sequence(values: np.ndarray, cluster_index: np.ndarray
                   ) -> tuple[np.ndarray, ...]:
    """Elo's games from results, in order: rows (benchmark, seed), then pairs ``i < j``."""
    k = values.shape[1]
    a, b = np.triu_indices(k, 1)
    xa, xb = values[:, a], values[:, b]
    played = ~(np.isnan(xa) | np.isnan(xb))
    rows, pairs = np.nonzero(played)
    score = np.where(xa[rows, pairs] > xb[rows, pairs], 1.0,
                     np.where(xa[rows, pairs] < xb[rows, pairs], 0.0, 0.5))
    return a[pairs], b[pairs], score, np.ones(len(rows)), cluster_index[rows]


def _example_three() -> Results:
    """Three algorithms (a better by 0.8 sd) on 4 benchmarks x 3 seeds: the examples' data."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "algorithm": np.repeat(["a", "b", "c"], 12),
        "benchmark": np.tile(np.repeat(["p", "q", "r", "s"], 3), 3),
        "seed": np.tile([0, 1, 2], 12),
        "score": rng.normal(np.repeat([0.8, 0.0, 0.0], 12))})
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              score="score", objective="maximize", kind="runs")
