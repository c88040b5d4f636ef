r"""Repeated looks: what a board's error control covers across its versions.

Every version of a leaderboard re-runs the report's comparison on the data
so far: Holm over all pairs (and families), at level ``alpha``. Publishing
version after version is a sequence of *looks* at accumulating data, and
two guarantees can be asked of it (``looks=``; ``--looks`` on the command
line; fixed when a stored board is created and kept in its manifest):

``"per-version"`` (the default; what every board did before)
    **Each version alone** has family-wise error at most ``alpha``: the
    probability that *this* version shows a false relation (a wrong
    direction, or a separation of entries equal in truth) is at most
    ``alpha``, and its positions are a ``1 - alpha`` simultaneous confidence
    set for the ranks. **Nothing controls the history**: under the null the
    probability that *some* version ever shows a false relation grows with
    the number of versions (measured below: 0.50 after 50 updates that
    re-run entries, 0.24 after 50 that add benchmarks, at ``alpha = 0.05``).
    A relation can appear and disappear from version to version.
``"all-versions"``
    **Every version ever published, at once**: with probability at least
    ``1 - alpha`` no version, past or future, shows a false relation, and
    every version's positions hold together. Version :math:`v` runs the
    same comparison at level (:func:`look_level`)

    .. math::

        \alpha_v = \frac{\alpha}{v (v + 1)}, \qquad
        \sum_{u=1}^{v} \alpha_u = \alpha \Bigl(1 - \frac{1}{v + 1}\Bigr) < \alpha

    (:func:`spent`; version 1 gets ``alpha / 2``, version 2 ``alpha / 6``,
    version 10 ``alpha / 110``). Within version :math:`v`, Holm at
    :math:`\alpha_v` keeps the probability of a false relation at most
    :math:`\alpha_v` (Holm 1979), so by the union bound the probability that
    any version shows one is at most :math:`\sum_v \alpha_v \le \alpha`. The
    union bound needs no assumption about how the looks depend on each
    other: versions share data, later submissions may be chosen after
    seeing earlier versions, and the number of versions need not be fixed
    in advance. This is alpha spending over looks (Lan and DeMets 1983) with
    a spending sequence fixed before any data, the "online Bonferroni" rule
    of online multiple testing (Foster and Stine 2008; Tian and Ramdas
    2021), applied to each version's whole Holm family.

**Relations once shown are kept** (all-versions only). The guarantee is
about one event, "some version shows a false relation"; outside it every
relation any version ever showed is true. So a relation settled (or implied)
in version :math:`u` stays on every later version, marked with the version
it was first shown in (``shown_in``), even when the later, stricter level
alone would not settle it: keeping it adds no error. It is dropped only when
what it is about changes: an entry's rows are replaced (``--replace``: a
re-run is another draw of the entry, a fix another algorithm) or the
benchmarks and seeds the board compares on change (the ``"subset"``
policy). If a later version settles the opposite direction, both cannot be
true: the pair is shown *contradicted* (the bound says this happens with
probability at most ``alpha``). The per-version mode keeps nothing: a
relation there can disappear in a later version.

**Why not something sharper.** The union bound gives each look a fixed
share of ``alpha`` and ignores that consecutive versions share most of
their data; group-sequential boundaries (Pocock, O'Brien-Fleming, Lan-DeMets
spending by information fraction) spend less conservatively, but need the
joint distribution of the looks' statistics and a planned maximum
information, which a board that grows by submissions of new entries has
neither of; anytime-valid e-values or confidence sequences for the paired
differences (Howard et al. 2021; Ramdas et al. 2023) would replace the
report's rank tests and LMEM with different tests. The price of the simple
bound is power in late versions: with :math:`m` pairs, Holm at
:math:`\alpha_v` needs a smallest p-value of at most :math:`\alpha_v / m`,
and the exact Wilcoxon test on :math:`n` benchmarks cannot go below
:math:`2^{1-n}`: 5 entries (10 pairs) at version 10 need at least 16
benchmarks to settle anything by rank tests alone. Relations settled early
are kept, so the board loses no knowledge it has shown; it gains new
relations more slowly.

**Measured** (tests/test_leaderboard_looks.py; 2,000 null histories per
scenario with ``BENCHVERDICT_SIM_SCALE=40``; 5 entries equal in truth, 10
benchmarks x 2 seeds with benchmark and entry-by-benchmark effects, rank
tests; 50 versions): the family-wise error over the whole history, in
per-version / all-versions mode, was 0.495 / 0.022 when each update re-runs
one entry (``--replace``), 0.240 / 0.020 when each adds a benchmark, and
0.056 / 0.022 when each adds a new entry (Holm over ever more pairs is
stricter, and with 10 benchmarks the exact Wilcoxon test cannot reject
anything beyond 25 pairs); version 1 alone 0.04 (binomial standard error
about 0.005). The all-versions rate stays near the ``alpha / 2`` that
version 1 spends: later versions add little error and, with these 10
benchmarks, little power.

References
----------
Foster, D. P. and Stine, R. A. (2008). alpha-investing: a procedure for
sequential control of expected false discoveries. JRSS B 70(2), 429-444.
Holm, S. (1979). A simple sequentially rejective multiple test procedure.
Scandinavian Journal of Statistics 6(2), 65-70.
Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Time-uniform,
nonparametric, nonasymptotic confidence sequences. Annals of Statistics
49(2), 1055-1080.
Lan, K. K. G. and DeMets, D. L. (1983). Discrete sequential boundaries for
clinical trials. Biometrika 70(3), 659-663.
Ramdas, A., Grünwald, P., Vovk, V. and Shafer, G. (2023). Game-theoretic
statistics and safe anytime-valid inference. Statistical Science 38(4),
576-601.
Tian, J. and Ramdas, A. (2021). Online control of the familywise error
rate. Statistical Methods in Medical Research 30(4), 976-993.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

#: The looks policies, the default first.
LOOKS_POLICIES = ("per-version", "all-versions")
#: What the per-version mode's history error reached in the simulation (module docstring).
PER_VERSION_MEASURED = ("in simulations of 50 null updates at alpha 0.05 it reached 0.50 when "
                        "each update re-ran an entry and 0.24 when each added a benchmark")
#: Statuses of a decided relation (kept across versions by ``"all-versions"``).
DECIDED = ("settled", "implied")


def check_looks(looks: str) -> str:
    """``looks`` if it names a looks policy, else a ValueError that lists them.

    Examples
    --------
    >>> check_looks("all-versions")
    'all-versions'
    >>> check_looks("all")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: looks: unknown policy 'all'; choose per-version (error control within ...
    """
    if looks not in LOOKS_POLICIES:
        raise ValueError(
            f"looks: unknown policy {looks!r}; choose per-version (error control within "
            f"each version; the default) or all-versions (error control over every version "
            f"ever published, each version testing at a smaller level).")
    return looks


def look_level(alpha: float, version: int, looks: str) -> float:
    r"""The level at which version ``version`` runs Holm: ``alpha``, or :math:`\alpha / (v (v+1))`.

    See the module docstring for why the all-versions levels control the
    error over every version.

    Examples
    --------
    >>> look_level(0.05, 7, "per-version")
    0.05
    >>> [round(look_level(0.05, v, "all-versions"), 6) for v in (1, 2, 3, 10, 50)]
    [0.025, 0.008333, 0.004167, 0.000455, 2e-05]
    """
    check_looks(looks)
    if int(version) != version or version < 1:
        raise ValueError(f"version must be a whole number >= 1, got {version!r}.")
    if looks == "per-version":
        return float(alpha)
    return float(alpha) / (version * (version + 1))


def spent(alpha: float, version: int) -> float:
    r"""The all-versions levels of versions 1 to ``version`` summed: :math:`\alpha\,v / (v + 1)`.

    The bound on the probability that any of those versions shows a false
    relation; it never reaches ``alpha``.

    Examples
    --------
    >>> [round(spent(0.05, v), 6) for v in (1, 2, 50)]
    [0.025, 0.033333, 0.04902]
    """
    return float(alpha) * version / (version + 1)


def keep_shown(
    relations: pd.DataFrame,
    earlier: pd.DataFrame | None,
    *,
    version: int,
    entries: Collection[str],
    replaced: Collection[str] = (),
) -> tuple[pd.DataFrame, int, list[str]]:
    """Merge the relations an earlier version showed into this version's (all-versions mode).

    ``relations`` are this version's, with a ``shown_in`` column; ``earlier``
    the previous version's (its kept relations included). A decided
    (settled or implied) earlier relation between two of ``entries``, neither
    of them ``replaced``, is kept: if this version decides the pair the same
    way its ``shown_in`` is the earlier one; if it decides it the other way
    the pair becomes ``contradicted``; otherwise the earlier row replaces
    this version's, its reason saying since when and what this version alone
    found. Decided relations new in this version get ``shown_in = version``.

    Returns
    -------
    relations : pandas.DataFrame
    kept : int
        Relations this version shows only because an earlier one did.
    contradicted : list of str
        ``"a > b"`` for each pair settled both ways.

    Examples
    --------
    >>> cols = ["a", "b", "status", "winner", "loser", "families", "p_value_adjusted",
    ...         "reason", "shown_in"]
    >>> old = pd.DataFrame([["x", "y", "settled", "x", "y", "ranks", 0.001, "", 1]],
    ...                    columns=cols)
    >>> new = pd.DataFrame([["x", "y", "unsettled", None, None, "", 0.2, "no family", None]],
    ...                    columns=cols)
    >>> rel, kept, _ = keep_shown(new, old, version=2, entries=["x", "y"])
    >>> rel[["status", "winner", "shown_in"]].values.tolist(), kept
    ([['settled', 'x', 1]], 1)
    >>> keep_shown(new, old, version=2, entries=["x", "y"], replaced=["y"])[1]
    0
    """
    relations = relations.copy().reset_index(drop=True)
    decided = relations["status"].isin(DECIDED)
    relations["shown_in"] = relations["shown_in"].astype(object)
    relations.loc[decided, "shown_in"] = int(version)
    if earlier is None or not len(earlier):
        return relations, 0, []
    members, gone = set(entries), set(replaced)
    position = {frozenset((r.a, r.b)): i for i, r in enumerate(relations.itertuples())}
    kept, contradicted = 0, []
    for old in earlier[earlier["status"].isin(DECIDED)].itertuples():
        pair = frozenset((old.a, old.b))
        if not pair <= members or pair & gone:
            continue
        since = int(old.shown_in) if pd.notna(old.shown_in) else int(version) - 1
        at = position.get(pair)
        if at is None:  # not compared now (cannot happen between two entries); keep it
            continue
        now = relations.loc[at]
        if now["status"] in DECIDED and now["winner"] == old.winner:
            relations.loc[at, "shown_in"] = min(since, int(now["shown_in"]))
        elif now["status"] in DECIDED:
            contradicted.append(f"{old.winner} > {old.loser}")
            relations.loc[at, ["status", "winner", "loser", "shown_in"]] = [
                "contradicted", None, None, None]
            relations.loc[at, "reason"] = (
                f"version {since} showed {old.winner} > {old.loser}, this version shows "
                f"{now['winner']} > {now['loser']}: one of them is false (with error control "
                f"over all versions that happens with probability at most alpha)")
        else:
            kept += 1
            why = f"; this version alone: {now['status']}" + (
                f" ({now['reason']})" if now["reason"] else "")
            relations.loc[at, ["status", "winner", "loser", "families", "p_value_adjusted",
                               "shown_in"]] = [old.status, old.winner, old.loser, old.families,
                                               old.p_value_adjusted, since]
            relations.loc[at, "reason"] = (
                f"shown in version {since} and kept: the error control covers every version, "
                f"so a relation shown once adds no error by staying{why}")
    return relations, kept, contradicted
