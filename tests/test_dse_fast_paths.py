"""The per-run fast paths of the DSE give the answers of the per-draw forms they replace.

Run-permutation tests and cluster bootstraps compute their statistics from
per-run summaries (:class:`~benchverdict.dse.clusters.RunCounts`) instead of
re-sorting or re-cumulating the pooled draws for every split or resample.
Here each fast path is compared with the straightforward per-draw form that
remains in the library (and is used when the run tables would not fit):
KS statistics must be the same doubles (exact integer counts), quantiles
the same doubles, CVaRs and their standard errors equal up to round-off,
and every p-value the same number, on inputs with ties, unequal run sizes,
unequal numbers of runs per side, strata, both tails and both objectives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import benchverdict.dse.clusters as clusters
from benchverdict.dse import compare
from benchverdict.dse.clusters import (
    RunCounts,
    _lexicographic_order,
    _weighted_target,
    cluster_bootstrap,
    cvar_by_run,
    grouped_statistic,
    run_matrix,
    run_order,
    splits,
    weighted_statistic,
)
from benchverdict.dse.statistics import statistic
from benchverdict.stats.symmetry import compare_samples


def _sample(rng: np.random.Generator, runs: int, *, equal: bool, ties: bool,
            shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Draws with a run effect, and their run labels (shuffled, as real data come)."""
    sizes = np.full(runs, int(rng.integers(2, 40))) if equal else rng.integers(1, 40, runs)
    codes = np.repeat(np.arange(runs), sizes)
    z = shift + rng.normal(size=runs)[codes] * 0.5 + rng.normal(size=codes.size)
    if ties:
        z = np.round(z, 1)
    perm = rng.permutation(z.size)
    return z[perm], codes[perm]


def _pair(seed: int, *, equal: bool, ties: bool, strata: bool = False):
    rng = np.random.default_rng(seed)
    runs_a, runs_b = (6, 6) if strata else rng.integers(2, 8, size=2)
    za, ca = _sample(rng, int(runs_a), equal=equal, ties=ties)
    zb, cb = _sample(rng, int(runs_b), equal=equal, ties=ties, shift=0.3)
    labels = None
    if strata:  # two strata of 3 runs each per side
        labels = (np.where(ca < 3, "p", "q"), np.where(cb < 3, "p", "q"))
    return za, zb, (ca, cb), labels


def _splits(runs, count: int = 300) -> np.ndarray:
    return np.vstack(list(splits(np.random.default_rng(1), count, runs.strata, runs.first)))


@pytest.fixture
def per_draw(monkeypatch):
    """Force the per-draw forms (the reference) inside a ``with`` block."""
    class Forced:
        def __enter__(self):
            monkeypatch.setattr(RunCounts, "affordable", staticmethod(lambda z, codes: False))
            monkeypatch.setattr(compare._Runs, "tabulable", property(lambda self: False))

        def __exit__(self, *exc):
            monkeypatch.undo()

    return Forced()


CASES = [(seed, equal, ties) for seed in range(4) for equal in (True, False)
         for ties in (True, False)]


def _ks_rows_plain(runs):
    """The reference: ``F_B - F_A`` at every distinct pooled value, maximised both ways."""
    z = runs.z
    ends = np.append(np.flatnonzero(np.diff(z) != 0), z.size - 1)

    def f(members: np.ndarray) -> np.ndarray:
        member = members[:, runs.codes]
        in_a = np.cumsum(member, axis=1)[:, ends]
        n_a = member.sum(axis=1)[:, None]
        in_b = (ends + 1)[None, :] - in_a
        diff = in_b / (z.size - n_a) - in_a / n_a
        return np.stack([np.maximum(diff.max(axis=1), 0.0),
                         np.maximum((-diff).max(axis=1), 0.0)], axis=1)

    return f


@pytest.mark.parametrize(("seed", "equal", "ties"), CASES)
@pytest.mark.parametrize("form", ["by_run", "by_draw"])
def test_ks_rows_match_the_plain_ecdf_difference(seed, equal, ties, form):
    za, zb, runs_of, _ = _pair(seed, equal=equal, ties=ties)
    runs = compare._runs(za, zb, runs_of, None)
    members = _splits(runs)
    fast = getattr(compare, f"_ks_rows_{form}")(runs)
    reference = _ks_rows_plain(runs)(members)
    # The exact form is the same doubles; the fast one may differ only by the rounding of
    # the two shares at another position attaining the same integer supremum.
    np.testing.assert_array_equal(fast.exact(members), reference)
    np.testing.assert_allclose(fast(members), reference, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_dominance_p_values_match_the_plain_ecdf_difference(seed, monkeypatch):
    za, zb, runs_of, labels = _pair(seed, equal=seed % 2 == 0, ties=seed < 2,
                                    strata=seed == 3)
    kw = {"clusters": runs_of, "strata": labels, "seed": seed, "n_permutations": 299}
    fast = compare.dominance_test(za, zb, **kw)
    monkeypatch.setattr(compare, "_ks_rows", _ks_rows_plain)
    assert compare.dominance_test(za, zb, **kw) == fast


@pytest.mark.parametrize(("seed", "equal", "ties"), CASES)
@pytest.mark.parametrize(("level", "tail"), [(0.0, "upper"), (0.5, "upper"), (0.9, "upper"),
                                             (0.1, "lower"), (0.5, "lower"), (1.0, "lower")])
def test_cvar_by_run_matches_the_per_draw_forms(seed, equal, ties, level, tail):
    za, zb, runs_of, _ = _pair(seed, equal=equal, ties=ties)
    runs = compare._runs(za, zb, runs_of, None)
    stat = statistic("cvar", cvar_level=level, tail=tail)
    rc = RunCounts(runs.z, runs.codes)
    members = _splits(runs, 100)
    k = members.astype(float)
    size = clusters.equal_size(runs.codes)
    if size is None:
        est, se = weighted_statistic(stat, runs.z, runs.codes, k)
        fast, fast_se = cvar_by_run(stat, rc, k, form="weighted")
    else:
        table = run_matrix(runs.z, runs.codes, size)
        picked = np.nonzero(members)[1].reshape(members.shape[0], -1)
        est, se = grouped_statistic(stat, table[picked])
        fast, fast_se = cvar_by_run(stat, rc, k, form="grouped")
    scale = np.abs(runs.z).max()
    np.testing.assert_allclose(fast, est, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(fast_se, se, rtol=1e-10, atol=1e-13 * scale)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["cvar_upper", "cvar_lower", "quantile"])
def test_cluster_bootstrap_by_run_matches_the_per_draw_forms(seed, kind, per_draw):
    rng = np.random.default_rng(seed)
    z, codes = _sample(rng, int(rng.integers(4, 12)), equal=seed % 2 == 0, ties=seed < 3)
    stat = {"cvar_upper": statistic("cvar", cvar_level=0.5, tail="upper"),
            "cvar_lower": statistic("cvar", cvar_level=0.1, tail="lower"),
            "quantile": statistic("quantile", q=0.5)}[kind]
    se = kind != "quantile"
    values, ses = cluster_bootstrap(z, codes, stat, 700, np.random.default_rng(seed), se=se,
                                    block=300)
    with per_draw:
        ref, ref_ses = cluster_bootstrap(z, codes, stat, 700, np.random.default_rng(seed),
                                         se=se, block=300)
    if kind == "quantile":
        np.testing.assert_array_equal(values, ref)  # the same order statistic
        return
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-13)
    # A resample of copies of one run: SE exactly 0 here, round-off in the per-draw form.
    ok = np.abs(ses - ref_ses) <= 1e-10 * np.maximum(ref_ses, 1e-3)
    assert np.all(ok | ((ses == 0) & (ref_ses < 1e-14)))


@pytest.mark.parametrize(("seed", "equal", "ties"), CASES)
@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_run_permutation_p_values_are_unchanged(seed, equal, ties, objective, per_draw):
    za, zb, runs_of, _ = _pair(seed, equal=equal, ties=ties)
    kw = {"clusters": runs_of, "objective": objective, "seed": seed}
    dom = compare.dominance_test(za, zb, n_permutations=199, **kw)
    cv = compare.cvar_permutation_test(za, zb, 0.5, n_resamples=199, stop_after=None, **kw)
    low = compare.cvar_permutation_test(za, zb, 0.2, tail="lower", n_resamples=199, **kw)
    with per_draw:
        dom_ref = compare.dominance_test(za, zb, n_permutations=199, **kw)
        cv_ref = compare.cvar_permutation_test(za, zb, 0.5, n_resamples=199, stop_after=None,
                                               **kw)
        low_ref = compare.cvar_permutation_test(za, zb, 0.2, tail="lower", n_resamples=199,
                                                **kw)
    assert dom == dom_ref  # p-values, statistics (the same doubles), outcome, counts
    assert cv == cv_ref
    assert low == low_ref


@pytest.mark.parametrize("seed", range(3))
def test_stratified_pooled_p_values_are_unchanged(seed, per_draw):
    za, zb, runs_of, labels = _pair(seed, equal=False, ties=True, strata=True)
    kw = {"clusters": runs_of, "strata": labels, "seed": seed}
    dom = compare.dominance_test(za, zb, n_permutations=199, **kw)
    cv = compare.cvar_permutation_test(za, zb, 0.5, n_resamples=199, **kw)
    with per_draw:
        assert compare.dominance_test(za, zb, n_permutations=199, **kw) == dom
        assert compare.cvar_permutation_test(za, zb, 0.5, n_resamples=199, **kw) == cv


@pytest.mark.parametrize("seed", range(3))
def test_cluster_cvar_difference_is_unchanged_up_to_round_off(seed, per_draw):
    za, zb, runs_of, _ = _pair(seed, equal=True, ties=seed == 0)
    iv = compare.cvar_difference(za, zb, 0.5, clusters=runs_of, n_resamples=500)
    with per_draw:
        ref = compare.cvar_difference(za, zb, 0.5, clusters=runs_of, n_resamples=500)
    assert iv.estimate == ref.estimate and iv.method == ref.method
    np.testing.assert_allclose([iv.lower, iv.upper], [ref.lower, ref.upper], rtol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=6), min_size=1, max_size=8),
       st.integers(1, 6))
def test_lexicographic_order_is_lexsort(rows, width):
    table = np.array([(r * width)[:width] for r in rows], dtype=float)
    np.testing.assert_array_equal(_lexicographic_order(table), np.lexsort(table.T[::-1]))


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 1.0), st.integers(1, 10_000))
def test_weighted_target_is_the_cumulative_share_rule(level, total):
    # The least c >= 1 with c / total >= level - 1e-12, as the cumulative share decides it.
    shares = np.arange(1, total + 1) / float(total)
    expected = int(np.argmax(shares >= level - 1e-12)) + 1
    assert _weighted_target(level, np.array([float(total)]))[0] == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=40), st.integers(2, 5),
       st.sampled_from([0.0, 0.25, 0.5, 0.9]), st.sampled_from(["upper", "lower"]))
def test_cvar_by_run_hypothesis(values, runs, level, tail):
    if tail == "lower" and level == 0.0:
        level = 0.5
    z = np.array(values, dtype=float) / 4.0
    codes = np.arange(z.size) % runs
    if codes.max() + 1 < 2:
        return
    zs, cs, _ = run_order(z, codes)
    m = int(cs.max()) + 1
    stat = statistic("cvar", cvar_level=level, tail=tail)
    k = np.random.default_rng(0).integers(0, 3, size=(30, m)).astype(float)
    k[k.sum(axis=1) == 0, 0] = 1.0
    est, se = weighted_statistic(stat, zs, cs, k)
    fast, fast_se = cvar_by_run(stat, RunCounts(zs, cs), k, form="weighted")
    np.testing.assert_allclose(fast, est, rtol=1e-12, atol=1e-14)
    single = (k > 0).sum(axis=1) == 1
    np.testing.assert_allclose(fast_se[~single], se[~single], rtol=1e-9, atol=1e-14)
    assert np.all(fast_se[single] == 0.0)


def _crossings_loop(a, b, objective="maximize"):
    """The reference: the leader tracked draw by draw along the pooled grid."""
    sign = 1.0 if objective == "maximize" else -1.0
    za, zb = sign * np.asarray(a, float), sign * np.asarray(b, float)
    grid, fa, fb = compare._ecdfs(za, zb)
    diff = fb - fa
    out, leader = [], None
    for i in np.flatnonzero(diff != 0):
        now = "a" if diff[i] > 0 else "b"
        if leader is not None and now != leader:
            out.append({"score": float(sign * grid[i]), "level_a": float(np.mean(za <= grid[i])),
                        "before": leader, "after": now})
        leader = now
    return out


def _small_integer_samples(a: tuple[int, int], b: tuple[int, int], max_size: int):
    """Two samples of small integers (many ties) and an objective, for the pair functions."""
    return given(st.lists(st.integers(*a), min_size=1, max_size=max_size),
                 st.lists(st.integers(*b), min_size=1, max_size=max_size),
                 st.sampled_from(["maximize", "minimize"]))


@settings(max_examples=300, deadline=None)
@_small_integer_samples((-6, 6), (-4, 4), 50)
def test_crossings_match_the_loop(a, b, objective):
    a, b = np.array(a) / 3.0, np.array(b) / 2.0
    assert compare.crossings(a, b, objective=objective) == _crossings_loop(a, b, objective)


@settings(max_examples=300, deadline=None)
@_small_integer_samples((-6, 6), (-4, 4), 50)
def test_crossings_from_the_pooled_runs_are_crossings(a, b, objective):
    """The run-permutation dominance test reads its crossings off the pooled, sorted runs."""
    a, b = np.array(a) / 3.0, np.array(b) / 2.0
    sign = 1.0 if objective == "maximize" else -1.0
    rng = np.random.default_rng(a.size * 100 + b.size)
    clusters = (rng.integers(0, 3, a.size), rng.integers(0, 3, b.size))
    expected = compare.crossings(a, b, objective=objective)
    for swap in (False, True):
        runs = compare._runs(sign * a, sign * b, clusters, None, swap=swap)
        assert compare._pooled_crossings(runs, swap, sign) == expected
    test = compare.dominance_test(a, b, objective=objective, clusters=clusters,
                                  n_permutations=19)
    assert test.crossings == expected


@pytest.mark.parametrize("equal", [True, False])
def test_ks_by_run_in_single_and_double_precision(equal):
    # Equal runs: scores / gcd(n_A, N) fit single precision exactly. Runs of coprime sizes
    # with ~3,000 draws a side do not (2 n_A N / gcd >= 2^24): double precision.
    rng = np.random.default_rng(7)
    sizes = [1000] * 6 if equal else [997, 1201, 853, 1103, 941, 1009]
    za = np.concatenate([rng.normal(size=s) for s in sizes[:3]])
    zb = np.concatenate([rng.normal(0.2, 1, size=s) for s in sizes[3:]])
    codes = (np.repeat(np.arange(3), sizes[:3]), np.repeat(np.arange(3), sizes[3:]))
    runs = compare._runs(za, zb, codes, None)
    n_a = float(np.bincount(runs.codes)[runs.first].sum())
    fits = 2.0 * n_a * runs.z.size / np.gcd(int(n_a), runs.z.size) < 2**24
    assert fits == equal
    members = compare.all_splits(runs.strata, runs.first)
    fast = compare._ks_rows_by_run(runs)
    reference = _ks_rows_plain(runs)(members)
    np.testing.assert_array_equal(fast.exact(members), reference)
    np.testing.assert_allclose(fast(members), reference, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("seed", "equal", "ties"), CASES)
def test_placement_from_counts_is_placement_matrix(seed, equal, ties):
    za, zb, runs_of, _ = _pair(seed, equal=equal, ties=ties)
    runs = compare._runs(za, zb, runs_of, None)
    np.testing.assert_array_equal(runs.counts.placement(),
                                  clusters.placement_matrix(runs.z, runs.codes))


def test_pooled_runs_are_reused_and_read_only():
    za, zb, runs_of, labels = _pair(0, equal=True, ties=True, strata=True)
    first = compare._runs(za, zb, runs_of, labels)
    assert compare._runs(za.copy(), zb.copy(), runs_of, labels) is first
    assert compare._runs(za, zb, runs_of, None) is not first  # strata are part of the key
    swapped = compare._runs(za, zb, runs_of, labels, swap=True)
    flipped = compare._runs(zb, za, runs_of[::-1], labels[::-1])
    for name in ("z", "codes", "strata", "first"):
        np.testing.assert_array_equal(getattr(swapped, name), getattr(flipped, name))
    with pytest.raises(ValueError):
        first.z[0] = 0.0


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=8),
       st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=8))
def test_sample_order_is_compare_samples(a, b):
    za, zb = np.array(a), np.array(b)
    assert compare._sample_order(za, zb) == compare_samples(za, zb)
    assert compare._sample_order(za, za[::-1]) == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.integers(1, 12), st.integers(0, 2**16), st.booleans())
def test_canonical_runs_of_equal_runs_sort_by_run_then_value(m, size, seed, ties):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, m * size).astype(float) if ties else rng.normal(size=m * size)
    codes = rng.permutation(np.repeat(np.arange(m), size))
    order = np.lexsort((z, codes))  # the reference: every draw sorted by (run, value)
    ranked = np.lexsort(z[order].reshape(m, size).T[::-1])
    rank = np.empty(m, dtype=np.int64)
    rank[ranked] = np.arange(m)
    np.testing.assert_array_equal(clusters.canonical_runs(z, codes), rank[codes])


@pytest.mark.parametrize("seed", range(4))
def test_run_counts_of_sorted_and_unsorted_draws_agree(seed):
    rng = np.random.default_rng(seed)
    z, codes = _sample(rng, 5, equal=seed % 2 == 0, ties=seed < 2)
    order = np.argsort(z, kind="stable")
    shuffled, ascending = RunCounts(z, codes), RunCounts(z[order], codes[order])
    for name in ("grid", "counts", "counts_t", "sizes", "low", "high"):
        np.testing.assert_array_equal(getattr(shuffled, name), getattr(ascending, name))
    np.testing.assert_array_equal(shuffled.placement(), ascending.placement())


@pytest.mark.parametrize("distinct", [3, 200, 257, 5000])
def test_quantile_index_is_the_first_grid_point_reaching_the_target(distinct):
    # Small grids are read in one product, larger ones bracketed then bisected.
    rng = np.random.default_rng(distinct)
    z = rng.integers(0, distinct, 6000).astype(float)
    codes = rng.integers(0, 7, z.size)
    rc = RunCounts(z, codes)
    k = rng.integers(0, 3, size=(50, rc.m)).astype(float)
    k[k.sum(axis=1) == 0, 0] = 1.0
    total = k @ rc.sizes
    target = np.maximum(1.0, np.floor(rng.random(50) * total))
    weighted = k @ rc.counts
    np.testing.assert_array_equal(rc.quantile_index(k, target),
                                  np.argmax(weighted >= target[:, None], axis=1))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=6, max_size=6), min_size=1, max_size=5),
       st.integers(0, 5), st.integers(1, 6))
def test_order_statistics_are_the_sorted_slice(rows, lo, width):
    from benchverdict.dse.statistics import _order_statistics

    x = np.array(rows, dtype=float)
    hi = min(6, lo + width)
    np.testing.assert_array_equal(_order_statistics(x, lo, hi), np.sort(x, axis=1)[:, lo:hi])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("level", "tail"), [(0.5, "upper"), (0.9, "upper"), (0.1, "lower")])
def test_cvar_of_rows_is_the_sorted_tail_dot_product(seed, level, tail):
    # The same doubles as sorting whole rows: the tail's order statistics, then one product.
    from benchverdict.dse.statistics import tail_weights

    rng = np.random.default_rng(seed)
    rows = np.round(rng.normal(size=(3, 1000 + seed)), seed)
    n = rows.shape[1]
    w = tail_weights(np.arange(1, n + 1) / n, level, tail)
    used = np.flatnonzero(w)
    lo, hi = int(used[0]), int(used[-1]) + 1
    expected = np.sort(rows, axis=1)[:, lo:hi] @ w[lo:hi]
    np.testing.assert_array_equal(statistic("cvar", cvar_level=level, tail=tail).of_rows(rows),
                                  expected)


def test_verdicts_leave_no_pooled_runs_behind():
    from benchverdict.dse.distribution import distribution
    from benchverdict.results import _example_small

    compare._runs(*_pair(0, equal=True, ties=False)[:3], None)
    assert compare._RUNS_CACHE
    distribution(_example_small(), n_resamples=200, n_permutations=99).verdicts()
    assert not compare._RUNS_CACHE


# ------------------------------------------------------------------ the KS screen (issue 25)
@pytest.mark.parametrize("by_run", [True, False])
@pytest.mark.parametrize(("seed", "equal", "ties"), CASES)
def test_ks_screen_gives_the_statistics_of_every_split_that_can_reach_the_threshold(
        monkeypatch, by_run, seed, equal, ties):
    # A coarse grid of every 3rd point on these small pools: each split either gets the
    # statistics the plain rows give, or bounds that are below the threshold and at least
    # the true statistics (so a bound can never hide a split at least as extreme).
    monkeypatch.setattr(compare, "KS_SCREEN_MIN_GRID", 1)
    monkeypatch.setattr(compare, "KS_SCREEN_STEP", 3)
    za, zb, runs_of, _ = _pair(seed, equal=equal, ties=ties)
    runs = compare._pool_runs(za, zb, *compare._run_codes(za, zb, runs_of), None)
    rows = compare._ks_rows_by_run(runs) if by_run else compare._ks_rows_by_draw(runs)
    members = _splits(runs)
    plain = rows(members)
    np.testing.assert_allclose(plain, _ks_rows_plain(runs)(members), rtol=0, atol=1e-15)
    for threshold in (np.array([0.0, 0.0]), np.quantile(plain, [0.3, 0.7], axis=0).T[0],
                      np.quantile(plain, 0.5, axis=0), np.array([np.inf, 0.1])):
        got = rows.screened(members, threshold.copy())
        full = np.any(plain >= threshold - 1e-12, axis=1)
        np.testing.assert_array_equal(got[full], plain[full])
        assert np.all(got[~full] < threshold - 1e-12)
        assert np.all(got[~full] >= plain[~full] - 1e-15)  # bounds, not guesses
        assert (~full).any() or threshold.max() <= plain.min()


@pytest.mark.parametrize(("m", "size", "shift", "ties"),
                         [(10, 300, 0.0, False), (10, 300, 0.4, True), (40, 60, 0.05, False),
                          (40, 60, 1.0, True)])
def test_dominance_p_values_are_the_same_with_and_without_the_ks_screen(
        monkeypatch, m, size, shift, ties):
    # 10 + 10 runs take the per-run counts, 40 + 40 the cumulative sums; Besag-Clifford
    # stops one direction early in most of these, which then stops being screened.
    rng = np.random.default_rng(m + size)
    za = (rng.normal(size=(m, size)) + rng.normal(0, 0.3, (m, 1))).ravel()
    zb = (rng.normal(size=(m, size)) + rng.normal(0, 0.3, (m, 1)) + shift).ravel()
    if ties:
        za, zb = np.round(za, 1), np.round(zb, 1)
    runs_of = (np.repeat(np.arange(m), size), np.repeat(np.arange(m), size))
    strata = (np.repeat(np.arange(m) % 2, size),) * 2

    def tests():
        out = []
        for seed in range(3):
            for stop_after in (20, None):
                compare._forget_pooled_runs()
                t = compare.dominance_test(za, zb, clusters=runs_of, n_permutations=199,
                                           strata=strata if seed == 2 else None,
                                           stop_after=stop_after, seed=seed)
                out.append((t.p_a_better, t.p_b_better, t.n_permutations))
        return out

    monkeypatch.setattr(compare, "KS_SCREEN_MIN_GRID", 1)
    monkeypatch.setattr(compare, "KS_SCREEN_STEP", 8)
    screened = tests()
    monkeypatch.setattr(compare, "KS_SCREEN_MIN_GRID", 10**12)
    assert tests() == screened


@settings(max_examples=300, deadline=None)
@_small_integer_samples((-4, 4), (-4, 4), 30)
def test_single_draw_advantage_is_cliffs_delta_by_pairs(a, b, objective):
    # Every pair of draws compared once: wins minus losses over n_A n_B (ties count for
    # neither), exactly antisymmetric.
    x, y = np.array(a) / 2.0, np.array(b) / 2.0
    sign = 1 if objective == "maximize" else -1
    wins = sum(sign * u > sign * v for u in x for v in y)
    losses = sum(sign * u < sign * v for u in x for v in y)
    got = compare.single_draw_advantage(x, y, objective=objective)
    assert got == (wins - losses) / (x.size * y.size)
    assert compare.single_draw_advantage(y, x, objective=objective) == -got


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-3, 12), min_size=1, max_size=40),
       st.sampled_from([np.int64, np.int32, np.uint8, str]))
def test_cluster_codes_of_integer_labels_are_uniques_inverse(labels, kind):
    # Labels that are codes already (0..m-1, each used) come back as they are; any other
    # integers (gaps, negatives) and text go through np.unique, as before.
    if kind is np.uint8:
        labels = [abs(x) for x in labels]
    lab = np.array(labels).astype(kind)
    got = clusters.cluster_codes(lab, lab.size, "runs")
    _, want = np.unique(lab, return_inverse=True)
    assert got.dtype == np.int64
    assert got.tolist() == want.reshape(-1).tolist()


def test_large_integer_run_labels_are_numbered_not_counted():
    # Time-based seeds (10^12): codes from np.unique, not a count table of 10^12 cells.
    rng = np.random.default_rng(0)
    xa, xb = rng.normal(size=40), rng.normal(size=40)
    seeds = np.repeat(np.arange(10) + 1_000_003_000_000, 4)
    small = np.repeat(np.arange(10), 4)
    big = compare.dominance_test(xa, xb, clusters=(seeds, seeds), n_permutations=99)
    same = compare.dominance_test(xa, xb, clusters=(small, small), n_permutations=99)
    assert (big.p_a_better, big.p_b_better) == (same.p_a_better, same.p_b_better)
    assert clusters.cluster_codes(np.array([2**62, 2**62, 7, 7]), 4, "x").tolist() == [1, 1, 0, 0]


def test_no_ks_screen_for_many_tiny_runs():
    # 3,000 runs of 2 draws: the screen's product (runs x G / 32 per split) would cost
    # more than a pass over the draws, and its table as much as the counts it avoids.
    rng = np.random.default_rng(3)
    runs_of = (np.repeat(np.arange(1500), 2),) * 2
    z = rng.normal(size=3000), rng.normal(size=3000)
    tiny = compare._pool_runs(*z, *compare._run_codes(*z, runs_of), None)
    assert not hasattr(compare._ks_rows_by_draw(tiny), "screened")
    runs_of = (np.repeat(np.arange(30), 100),) * 2
    few = compare._pool_runs(*z, *compare._run_codes(*z, runs_of), None)
    assert hasattr(compare._ks_rows_by_draw(few), "screened")
