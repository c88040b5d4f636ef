"""Groups, letters and drawing of critical-difference diagrams."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.critical_difference import (
    cliques,
    compact_letter_display,
    draw_cd_diagram,
    grouping,
    is_contiguous,
    not_different_from_p_values,
    order_positions,
)


def matrix(names, pairs_not_different):
    nd = pd.DataFrame(False, index=list(names), columns=list(names))
    for a in names:
        nd.loc[a, a] = True
    for a, b in pairs_not_different:
        nd.loc[a, b] = nd.loc[b, a] = True
    return nd


def as_sets(groups):
    return sorted(sorted(g) for g in groups)


def test_all_significant_gives_no_bars():
    # scikit-posthocs #82: one bar spanning everything when every pair differs.
    pos = pd.Series({n: float(i) for i, n in enumerate("ABCDE")})
    nd = matrix("ABCDE", [])
    assert cliques(pos, nd) == []
    assert cliques(pos, nd, contiguous=True) == []
    letters = compact_letter_display(pos, nd)
    assert len(set(letters)) == 5 and all(len(x) == 1 for x in letters)


def test_none_significant_gives_one_bar():
    pos = pd.Series({"A": 1.0, "B": 2.0, "C": 2.5})
    nd = matrix("ABC", itertools.combinations("ABC", 2))
    assert as_sets(cliques(pos, nd)) == [["A", "B", "C"]]
    assert compact_letter_display(pos, nd).tolist() == ["a", "a", "a"]


def test_swapped_ranks_do_not_merge_crossing_groups():
    # scikit-posthocs #86: two groups whose rank spans cross were drawn on one level.
    names = list("abcdef")
    pos = pd.Series([1, 2, 4, 3, 5, 6], index=names, dtype=float)
    nd = matrix(names, [*itertools.combinations("abc", 2), *itertools.combinations("def", 2)])
    groups = cliques(pos, nd)
    assert as_sets(groups) == [["a", "b", "c"], ["d", "e", "f"]]
    assert not any(is_contiguous(g, pos) for g in groups)
    # the classical reading must not claim d belongs with a, b, c
    assert as_sets(cliques(pos, nd, contiguous=True)) == [["a", "b"], ["e", "f"]]
    ax = draw_cd_diagram(pos, nd, limits=(1, 6))
    bars = [ln for ln in ax.lines if ln.get_linestyle() not in ("-", "None") and
            len(set(ln.get_ydata())) == 1 and len(ln.get_xdata()) == 2]
    assert len(bars) == 2
    assert len({ln.get_ydata()[0] for ln in bars}) == 2  # different levels


def test_chain_gives_two_overlapping_groups_not_one_bar():
    # A ~ B ~ C but A differs from C (Wilcoxon-Holm can do this; cd-diagram issue #5)
    pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    nd = matrix("ABC", [("A", "B"), ("B", "C")])
    assert as_sets(cliques(pos, nd)) == [["A", "B"], ["B", "C"]]
    assert compact_letter_display(pos, nd).to_dict() == {"A": "a", "B": "ab", "C": "b"}


def test_no_redundant_sub_bars():
    pos = pd.Series({"A": 1.0, "B": 1.5, "C": 2.0, "D": 4.0})
    nd = matrix("ABCD", [("A", "B"), ("A", "C"), ("B", "C")])
    assert as_sets(cliques(pos, nd)) == [["A", "B", "C"]]


def test_ties_in_position_are_not_hidden():
    pos = pd.Series({"A": 1.0, "B": 2.0, "C": 2.0})
    nd = matrix("ABC", [("A", "B")])
    assert as_sets(cliques(pos, nd)) == [["A", "B"]]
    # B and C tie in position, so the span {A, B} contains C: not contiguous
    assert cliques(pos, nd, contiguous=True) == []


def test_order_and_direction():
    pos = pd.Series({"A": 0.9, "B": 0.5, "C": 0.7})
    nd = matrix("ABC", [("A", "C")])
    assert order_positions(pos, lower_is_better=False) == ["A", "C", "B"]
    letters = compact_letter_display(pos, nd, lower_is_better=False)
    assert letters.index.tolist() == ["A", "C", "B"]
    assert letters["A"] == "a" and letters["B"] == "b"


def test_nemenyi_style_graph_groups_are_runs():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k = rng.integers(3, 12)
        pos = pd.Series(np.sort(rng.uniform(1, k, k)), index=[f"m{i}" for i in range(k)])
        cd = rng.uniform(0.3, 3)
        v = pos.to_numpy()
        nd = pd.DataFrame(np.abs(v[:, None] - v[None, :]) < cd, index=pos.index,
                          columns=pos.index)
        assert as_sets(cliques(pos, nd)) == as_sets(cliques(pos, nd, contiguous=True))


@st.composite
def random_problem(draw):
    k = draw(st.integers(2, 8))
    names = [f"alg{i}" for i in range(k)]
    pos = pd.Series(draw(st.lists(st.integers(1, 6), min_size=k, max_size=k)), index=names,
                    dtype=float)
    pairs = list(itertools.combinations(names, 2))
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return pos, matrix(names, [p for p, kp in zip(pairs, keep) if kp])


@settings(max_examples=150, deadline=None)
@given(random_problem())
def test_groups_represent_the_graph_exactly(problem):
    pos, nd = problem
    groups = cliques(pos, nd)
    for g in groups:  # no significant pair inside a group
        assert all(nd.loc[a, b] for a, b in itertools.combinations(g, 2))
    for g, h in itertools.permutations(groups, 2):  # maximal
        assert not g < h
    for a, b in itertools.combinations(pos.index, 2):  # every not-different pair covered
        if nd.loc[a, b]:
            assert any(a in g and b in g for g in groups)
    for g in cliques(pos, nd, contiguous=True):
        assert is_contiguous(g, pos)
        assert all(nd.loc[a, b] for a, b in itertools.combinations(g, 2))


@settings(max_examples=150, deadline=None)
@given(random_problem())
def test_letters_share_iff_not_different(problem):
    pos, nd = problem
    letters = compact_letter_display(pos, nd)
    assert set(letters.index) == set(pos.index)
    assert all(len(x) >= 1 for x in letters)
    for a, b in itertools.combinations(pos.index, 2):
        assert bool(set(letters[a]) & set(letters[b])) == bool(nd.loc[a, b])
    best = order_positions(pos)[0]
    assert "a" in letters[best]


def test_p_values_and_validation():
    p = pd.DataFrame([[np.nan, 0.01], [0.01, np.nan]], index=["A", "B"], columns=["A", "B"])
    nd = not_different_from_p_values(p, 0.05)
    assert nd.to_numpy().tolist() == [[True, False], [False, True]]
    pos = pd.Series({"A": 1.0, "B": 2.0})
    with pytest.raises(ValueError, match="symmetric"):
        cliques(pos, pd.DataFrame([[True, True], [False, True]], index=["A", "B"],
                                  columns=["A", "B"]))
    with pytest.raises(ValueError, match="missing"):
        cliques(pd.Series({"A": 1.0, "C": 2.0}), nd)
    with pytest.raises(ValueError, match="boolean"):
        cliques(pos, p.fillna(1))
    with pytest.raises(ValueError, match="finite"):
        cliques(pd.Series({"A": 1.0, "B": np.nan}), nd)


def test_drawing_options_and_vector_output(tmp_path):
    pos = pd.Series({"a_really_long_algorithm_name_that_needs_shortening": 1.2, "B": 2.0,
                     "C": 2.9, "D": 3.5})
    nd = matrix(pos.index, [("B", "C"), ("C", "D")])
    ax = draw_cd_diagram(pos, nd, critical_difference_range=(0.8, 1.1), limits=(1, 4),
                         title="demo")
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("CD = 0.8") for t in texts)
    assert any("…" in t for t in texts)
    path = tmp_path / "cd.svg"
    ax.figure.savefig(path)
    assert path.read_text().lstrip().startswith("<?xml")
    _fig, ax2 = plt.subplots()
    assert draw_cd_diagram(pos, nd, lower_is_better=False, ax=ax2) is ax2
    with pytest.raises(ValueError, match="not both"):
        draw_cd_diagram(pos, nd, critical_difference=1.0, critical_difference_range=(1, 2))
    with pytest.raises(ValueError, match="exclude"):
        draw_cd_diagram(pos, nd, limits=(1.5, 4))


# ------------------------------------------------------------------ scale (issue 10)
def _check_exact_groups(nd: pd.DataFrame, groups) -> None:
    """Every group a clique, none inside another, every not-different pair in a group."""
    names = list(nd.index)
    where = {n: i for i, n in enumerate(names)}
    adj = nd.to_numpy()
    covered = np.eye(len(names), dtype=bool)
    for g in groups:
        idx = np.array([where[n] for n in g])
        assert adj[np.ix_(idx, idx)].all()
        covered[np.ix_(idx, idx)] = True
    assert (covered == adj).all()
    sets = [frozenset(g) for g in groups]
    assert len(set(sets)) == len(sets)


def _check_letters(nd: pd.DataFrame, letters: pd.Series) -> None:
    names = list(nd.index)
    holders: dict[str, set[str]] = {}
    for name in names:
        # letters are "a".."Z" then "a1", "b1", ...: split into tokens
        tokens, token = [], ""
        for ch in letters[name]:
            if ch.isdigit():
                token += ch
            else:
                if token:
                    tokens.append(token)
                token = ch
        tokens.append(token)
        for t in tokens:
            holders.setdefault(t, set()).add(name)
    share = pd.DataFrame(False, index=names, columns=names)
    for members in holders.values():
        m = sorted(members)
        share.loc[m, m] = True
    assert (share.to_numpy() == nd.to_numpy()).all()


@pytest.mark.parametrize("cd", [3.0, 150.0, 5000.0])
def test_a_thousand_algorithms_group_without_recursion(cd):
    # Before the fix: Bron-Kerbosch recursed once per clique member and hit RecursionError
    # for the rank analysis of 1000 algorithms. Nemenyi graphs are interval graphs: runs.
    rng = np.random.default_rng(0)
    k = 1000
    names = [f"alg{i:04d}" for i in range(k)]
    pos = pd.Series(rng.uniform(1, k, k), index=names)
    v = pos.to_numpy()
    nd = pd.DataFrame(np.abs(v[:, None] - v[None, :]) <= cd, index=names, columns=names)
    result = grouping(pos, nd)
    assert result.method == "runs"
    _check_exact_groups(nd, result.groups)
    assert as_sets(cliques(pos, nd, contiguous=True)) == as_sets(result.groups)
    _check_letters(nd, compact_letter_display(pos, nd))
    draw_cd_diagram(pos, nd, critical_difference=cd, limits=(1, k))


def test_per_pair_differences_with_many_algorithms_are_exact_and_bounded():
    # LMEM-like: each pair has its own CD, so the graph need not be an interval graph.
    rng = np.random.default_rng(1)
    k = 300
    names = [f"m{i}" for i in range(k)]
    pos = pd.Series(np.sort(rng.uniform(0, 100, k)), index=names)
    v, se = pos.to_numpy(), rng.uniform(0.5, 2, k)
    nd = pd.DataFrame(np.abs(v[:, None] - v[None, :]) < 3 * np.hypot(se[:, None], se[None, :]),
                      index=names, columns=names)
    result = grouping(pos, nd)
    assert result.method == "maximal cliques"
    _check_exact_groups(nd, result.groups)
    _check_letters(nd, compact_letter_display(pos, nd))  # greedy cover beyond 50 algorithms


@settings(max_examples=100, deadline=None)
@given(random_problem())
def test_greedy_letters_are_an_exact_display(problem):
    import benchverdict.critical_difference as cdd

    pos, nd = problem
    old = cdd.PIEPHO_MAX_ALGORITHMS
    cdd.PIEPHO_MAX_ALGORITHMS = 0
    try:
        letters = compact_letter_display(pos, nd)
    finally:
        cdd.PIEPHO_MAX_ALGORITHMS = old
    _check_letters(nd, letters)
    assert "a" in letters[order_positions(pos)[0]]


def test_too_many_cliques_fall_back_to_runs_with_a_note(monkeypatch):
    import benchverdict.critical_difference as cdd

    # A ~ C skipping B: not an interval graph, so the general search runs; with no budget it
    # must fall back to the contiguous reading and say what that leaves out.
    pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0})
    nd = matrix("ABCD", [("A", "C"), ("C", "D")])
    monkeypatch.setattr(cdd, "MAX_CLIQUE_WORK", 0)
    result = grouping(pos, nd)
    assert result.method == "contiguous runs"
    assert as_sets(result.groups) == [["C", "D"]]
    assert "1 not-different pair(s) share no group" in result.note
    with pytest.warns(UserWarning, match="too many maximal cliques"):
        cliques(pos, nd)
    ax = draw_cd_diagram(pos, nd)
    assert any("share no group" in t.get_text() for t in ax.texts)


def test_names_are_plain_text_in_the_diagram(tmp_path):
    import io

    # "$...$" is mathtext to matplotlib; "$\frac{$" cannot even be parsed and used to abort.
    names = ["$5 model", r"a$\frac{$b", "plain", "x$y$z"]
    pos = pd.Series([1.0, 2.0, 3.0, 4.0], index=names)
    nd = matrix(names, [(names[0], names[1])])
    ax = draw_cd_diagram(pos, nd, title="cost in $")
    assert all(not t.get_parse_math() for t in ax.figure.findobj(plt.Text))
    ax.figure.savefig(io.BytesIO(), format="svg")
    assert any(t.get_text().startswith(r"a$\frac{$b") for t in ax.texts)


def test_many_algorithms_name_the_extremes_and_say_so():
    k = 100
    names = [f"alg{i}" for i in range(k)]
    pos = pd.Series(np.arange(1.0, k + 1), index=names)
    nd = pd.DataFrame(True, index=names, columns=names)
    ax = draw_cd_diagram(pos, nd, limits=(1, k), max_labels=20)
    labels = [t.get_text() for t in ax.texts if t.get_text().startswith("alg")]
    assert len(labels) == 20
    assert any("the 10 best and 10 worst are named" in t.get_text() for t in ax.texts)
    assert len([t for t in draw_cd_diagram(pos, nd, max_labels=None).texts
                if t.get_text().startswith("alg")]) == k


@pytest.mark.parametrize("cd", [{"critical_difference": 0.26},
                                {"critical_difference_range": (0.255, 0.261)},
                                {"critical_difference_range": (0.005, 0.03)}])
def test_a_cd_longer_than_the_axis_stays_on_the_figure_and_says_so(cd):
    # Issue 25: LMEM means 0.01 apart with a CD of 0.26 ran the bar and its text 20 axis
    # widths off the figure, and constrained layout collapsed the axes to zero.
    import warnings

    from benchverdict.critical_difference import cd_diagram_tikz

    pos = pd.Series({"A": 0.6957, "B": 0.6845, "C": 0.6854})
    nd = matrix(list(pos.index), [("A", "B"), ("A", "C"), ("B", "C")])
    ax = draw_cd_diagram(pos, nd, lower_is_better=False, **cd)
    fig = ax.figure
    fig.set_layout_engine("constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "axes sizes collapsed to zero" before the fix
        fig.canvas.draw()
    width = fig.bbox.width
    renderer = fig.canvas.get_renderer()
    assert all(t.get_window_extent(renderer).x1 <= width for t in ax.texts)
    assert ax.get_position().width > 0.3
    bar = [t.get_text() for t in ax.texts if t.get_text().startswith("CD = ")]
    assert len(bar) == 1 and bar[0].endswith(", longer than the axis")
    plt.close(fig)
    tikz = cd_diagram_tikz(pos, nd, lower_is_better=False, **cd)
    assert "longer than the axis" in tikz
    xs = [float(x) for x in __import__("re").findall(r"\(([-0-9.]+),-?[0-9.]+\)", tikz)]
    assert max(xs) <= 1.5  # in axis units: the bar ends at the axis (1), not at 20


def test_a_cd_within_the_axis_is_drawn_to_its_length_with_both_end_ticks():
    pos = pd.Series({"A": 1.0, "B": 2.0, "C": 3.0})
    nd = matrix(list(pos.index), [])
    ax = draw_cd_diagram(pos, nd, critical_difference=0.5, limits=(1, 3))
    bar = [t.get_text() for t in ax.texts if t.get_text().startswith("CD = ")]
    assert bar == ["CD = 0.5"]
    plt.close(ax.figure)
