"""Caveats said once (issue 23, item 4): one warning per kind, with the count and where.

In the Python API (one ``UserWarning`` per kind of caveat per call), in the
report (no two warnings of one kind) and in the terminal (each caveat printed
once with its count); and progress bars only on a terminal, with
``--no-progress`` on every sub-command.
"""

from __future__ import annotations

import argparse
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from benchverdict._caveats import (
    MAX_NAMES,
    Caveat,
    caveat,
    collecting,
    group_caveats,
    group_messages,
    place,
)
from benchverdict._cli_common import progress_options, show_progress
from benchverdict.analysis import AnalysisRun, Options
from benchverdict.examples import load_example
from benchverdict.report.runner import compare, run_analysis
from benchverdict.stats.cdf_bands import cdf_band
from benchverdict.tuning.collection import from_results

TIES = "ties in the scores"


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, caught


# ------------------------------------------------------------------ the mechanism
def test_each_kind_is_said_once_with_the_count_and_the_places():
    def work():
        with collecting():
            for alg in ("A", "B", "C"):
                for bench in ("x", "y"):
                    with place(algorithm=alg, benchmark=bench):
                        caveat(TIES, f"{alg}{bench} has ties.")
                        if alg == "B":
                            caveat("boundary", "a variance at zero.", category=RuntimeWarning)

    _, caught = _caught(work)
    assert [type(w.message) for w in caught] == [UserWarning, RuntimeWarning]
    ties, boundary = (str(w.message) for w in caught)
    assert ties == ("ties in the scores: 6 cells (algorithms A, B, C; benchmarks x, y). "
                    "The first, A on x: Ax has ties.")
    assert boundary.startswith("boundary: 2 cells (algorithm B; benchmarks x, y). The first, "
                               "B on x: a variance at zero.")


def test_a_single_caveat_reads_as_a_plain_warning_and_outside_a_block_it_warns_at_once():
    def one():
        with collecting(), place(algorithm="A", benchmark="x"):
            caveat(TIES, "3 of 9 scores are ties.")

    _, caught = _caught(one)
    assert [str(w.message) for w in caught] == ["A on x: 3 of 9 scores are ties."]
    _, caught = _caught(lambda: [caveat(TIES, "now") for _ in range(2)])
    assert [str(w.message) for w in caught] == ["now", "now"]


def test_nested_blocks_are_transparent_and_a_raising_call_still_says_its_caveats():
    def nested():
        with collecting():
            caveat(TIES, "outer")
            with collecting():
                caveat(TIES, "inner")
            raise KeyError("boom")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyError):
            nested()
    assert len(caught) == 1 and str(caught[0].message).startswith(f"{TIES}: 2 times.")


def test_a_caveat_its_caller_silences_stays_silent_inside_a_block():
    def work():
        with collecting():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                caveat("boundary", "silenced", category=RuntimeWarning)
            caveat("boundary", "said", category=RuntimeWarning)

    _, caught = _caught(work)
    assert [str(w.message) for w in caught] == ["said"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="now"), collecting():
            caveat("boundary", "now", category=RuntimeWarning)


def test_a_place_met_twice_counts_once_and_long_lists_say_how_many_more():
    items = [Caveat(TIES, "m", (("benchmark", f"b{i}"),)) for i in range(MAX_NAMES + 3)]
    group = group_caveats(items + items[:2])[0]
    assert group.count == MAX_NAMES + 3
    assert "and 3 more" in group.text and f"{MAX_NAMES + 3} places" in group.text


def test_group_messages_groups_text_of_one_kind_and_keeps_the_rest():
    messages = [f"ConvergenceWarning: fit {i}: did not converge after {10 * i} steps"
                for i in range(1, 5)] + ["RuntimeWarning: other"]
    grouped = group_messages(messages)
    assert grouped == ["ConvergenceWarning: fit 1: did not converge after 10 steps "
                       "(4 times: fit 1, fit 2, fit 3, fit 4)", "RuntimeWarning: other"]


def test_cdf_band_ties_is_one_caveat_kind():
    _, caught = _caught(lambda: cdf_band([1.0, 1.0, 2.0, 3.0], 0.8))
    assert len(caught) == 1 and "1 of 4 scores are ties" in str(caught[0].message)


# ------------------------------------------------------------------ the built-in example
@pytest.fixture(scope="module")
def example():
    return load_example()


def test_tuning_curves_of_the_example_warn_once_per_kind(example):
    curves, caught = _caught(lambda: from_results(example))
    kinds = [str(w.message).split(":")[0] for w in caught]
    assert len(kinds) == len(set(kinds)), kinds
    ties = [str(w.message) for w in caught if str(w.message).startswith(TIES)]
    assert len(ties) == 1
    # every cell of the example has ties (accuracy on small test sets)
    n_tied = len(curves.curves)
    assert n_tied == len(example.algorithms) * len(example.benchmarks) == 100
    assert ties[0].startswith(f"{TIES}: {n_tied} cells (algorithms LR, MLP, RF, SVM, kNN; "
                              f"benchmarks ")
    assert f"and {len(example.benchmarks) - MAX_NAMES} more)" in ties[0]
    assert caught[0].filename == __file__  # attributed to the caller of from_results
    # the verdicts' decision bands rebuild the same curves, whose ties were said above
    _, caught = _caught(lambda: curves.comparisons(pairs=[("LR", "MLP"), ("RF", "SVM")]))
    assert not caught


@pytest.fixture(scope="module")
def tuning_report(example):
    return compare(example, analyses=["tuning"], progress=False, figures=False)


def _kind(warning: str) -> str:
    """A warning's kind: after "[analysis] Category: ", the text before the first colon."""
    text = re.sub(r"^(\[[^\]]*\]\s*)?(\w+(Warning|Error):\s*)?", "", warning)
    return re.sub(r"\d[\d.,]*", "#", text.split(":")[0])


def test_the_report_lists_no_two_warnings_of_one_kind(tuning_report):
    doc = tuning_report.document()
    for listed in (tuning_report.warnings, doc.distinct_warnings,
                   *(a.warnings for a in doc.analyses)):
        assert len(listed) == len({_kind(w) for w in listed}), listed
    ties = [w for w in tuning_report.warnings if TIES in w]
    assert len(ties) == 1 and ties[0].startswith(f"[tuning] UserWarning: {TIES}: 100 cells")


def test_the_terminal_prints_each_caveat_once_with_its_count(tuning_report, capsys):
    from benchverdict.report._cli import _print_warnings

    _print_warnings(tuning_report.warnings)
    err = capsys.readouterr().err.splitlines()
    assert sum(TIES in line for line in err) == 1
    assert any("100 cells" in line for line in err)
    assert not any("more (all of them" in line for line in err)


def test_the_tuning_command_prints_the_ties_caveat_once(tmp_path, capsys, recwarn):
    from benchverdict.cli import main

    rng = np.random.default_rng(1)
    rows = [(alg, f"b{b}", s, round(rng.uniform(), 1)) for alg in ("A", "B", "C")
            for b in range(4) for s in range(30)]  # one decimal: ties in every cell
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows, columns=["alg", "bench", "seed", "acc"]).to_csv(path, index=False)
    assert main(["tuning", str(path), "--algorithm", "alg", "--benchmark", "bench", "--seed",
                 "seed", "--score", "acc", "--objective", "maximize", "--kind", "trials",
                 "--no-progress", "--budgets", "1,5"]) == 0
    assert not [str(w.message) for w in recwarn]  # nothing escapes as a raw warning
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1, notes
    assert notes[0].startswith(f"note: {TIES}: 12 cells (algorithms A, B, C; benchmarks b0, "
                               f"b1, b2, b3). The first, A on b0: ")


def test_an_analysis_groups_other_libraries_warnings_and_splits_multi_line_notes():
    def runner(results, options):
        run = AnalysisRun("fake", "ok")
        run.notes.append("Heading line\n  first reason\n  result: p = 0.01")
        for i in range(5):
            warnings.warn(f"cell {i}: the fit did not converge in {i + 10} steps",
                          RuntimeWarning, stacklevel=1)
            with place(benchmark=f"b{i}"):
                caveat(TIES, f"{i} ties")
        return run

    run = run_analysis("fake", runner, None, Options())
    assert run.notes == ["Heading line", "first reason", "result: p = 0.01"]
    assert len(run.warnings) == 2
    ties = next(w for w in run.warnings if TIES in w)
    other = next(w for w in run.warnings if TIES not in w)
    assert ties.startswith(f"UserWarning: {TIES}: 5 places (benchmarks b0, b1,")
    assert other.startswith("RuntimeWarning: cell 0: the fit did not converge in 10 steps "
                            "(5 times: cell 0, cell 1")


# ------------------------------------------------------------------ progress bars
SUB_COMMANDS = ("tuning", "ranks", "lmem", "sanity", "dse", "plan", "report", "leaderboard")


def test_every_sub_command_has_no_progress():
    from benchverdict.cli import build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions
                   if isinstance(a, argparse._SubParsersAction)).choices
    for name in SUB_COMMANDS:
        text = choices[name].format_help()
        assert "--no-progress" in text and "--progress" in text, name
    args = choices["ranks"].parse_args(["--example", "--no-progress"])
    assert show_progress(args) is False
    with pytest.raises(SystemExit):
        choices["ranks"].parse_args(["--example", "--progress", "--no-progress"])


class _Stderr(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(("flags", "tty", "shown"), [
    ([], False, False), ([], True, True), (["--no-progress"], True, False),
    (["--progress"], False, True)])
def test_bars_only_on_a_terminal_unless_asked(monkeypatch, flags, tty, shown):
    monkeypatch.setattr("sys.stderr", _Stderr(tty))
    assert show_progress(progress_options().parse_args(flags)) is shown


def _runs() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = [(alg, f"b{b}", s, t, rng.normal(shift + 0.1 * t))
            for alg, shift in (("A", 0.0), ("B", 0.5), ("C", 1.0)) for b in range(4)
            for s in range(3) for t in range(1, 6)]
    df = pd.DataFrame(rows, columns=["alg", "bench", "seed", "t", "y"])
    # incumbents: the best so far along each run
    df["y"] = df.groupby(["alg", "bench", "seed"])["y"].cummax()
    return df


def test_no_bar_text_when_stderr_is_not_a_terminal(tmp_path, capsys):
    from benchverdict.cli import main

    path = tmp_path / "runs.csv"
    _runs().to_csv(path, index=False)
    roles = ["--algorithm", "alg", "--benchmark", "bench", "--seed", "seed", "--budget", "t",
             "--score", "y", "--objective", "maximize", "--kind", "runs"]
    assert main(["ranks", str(path), *roles, "--anytime"]) == 0
    err = capsys.readouterr().err
    assert "it/s" not in err and "%|" not in err and "anytime ranks" not in err, err
    # the same command asked for bars shows them (the check above can fail)
    assert main(["ranks", str(path), *roles, "--anytime", "--progress"]) == 0
    assert "anytime ranks" in capsys.readouterr().err
