"""The report's summaries read typed records, not text split back into structure (issue 21)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchverdict import Results
from benchverdict.report import compare
from benchverdict.report.summary import scope_summaries


def test_an_algorithm_named_with_a_comma_stays_one_algorithm_in_the_groups():
    rng = np.random.default_rng(0)
    rows = []
    for b in range(10):
        offset = rng.normal(0, 1)
        for alg, gap in (("SVM, rbf", 0.0), ("LR", 0.0), ("MLP", 3.0)):
            rows += [(alg, f"d{b}", s, 1, offset + gap + rng.normal(0, 0.3)) for s in range(3)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])
    res = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                             budget="budget", score="score", objective="maximize")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(res, analyses=["ranks"], progress=False, figures=False)
    rec = comp.reconciliation
    overall = scope_summaries(rec, list(res.algorithms))[0]
    names = {a for group in overall.groups for a in group}
    assert "SVM, rbf" in names and not {"SVM", "rbf"} & names
    assert names <= set(res.algorithms)
    # The typed scope records are what the tables are built from.
    assert set(rec.scopes) == set(rec.relations["scope"])


#: The only places in the report that read ``Verdict.details``: prose that describes a
#: method (its traits, why a small p-value made no decision, its adjustment). What the
#: report decides by -- p-values, directions, estimands, units, votes, caveats, CVaR
#: levels, single draws -- is in the verdict's typed fields.
DETAILS_FOR_DISPLAY = {("explain.py", "method_traits"), ("explain.py", "undecided_reason"),
                       ("explain.py", "_adjustment"),
                       # "12 independent replicates of 24 benchmarks": the count is the
                       # verdict's typed n; the details give the 24 for the words.
                       ("relations.py", "_replicate_words")}


def _details_readers(path):
    import ast

    tree = ast.parse(path.read_text())
    found = set()

    def visit(node, where):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            where = node.name
        if isinstance(node, ast.Attribute) and node.attr == "details":
            found.add((path.name, where))
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    visit(tree, "<module>")
    return found


def test_the_report_decides_nothing_by_verdict_details():
    from pathlib import Path

    import benchverdict.report

    report_dir = Path(benchverdict.report.__file__).parent
    readers = set().union(*(_details_readers(p) for p in sorted(report_dir.glob("*.py"))))
    assert readers <= DETAILS_FOR_DISPLAY, sorted(readers - DETAILS_FOR_DISPLAY)


def test_the_details_check_finds_a_reader(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def decide(v):\n    return v.details.get('p_value')\n")
    assert _details_readers(probe) == {("probe.py", "decide")}


def test_module_verdicts_reconciled_directly_give_the_reports_answer():
    # Item 1 of issue 21: the families' runners emit final verdicts (scope, parameters,
    # caveats), so reconcile() on them answers as compare() does.
    from benchverdict.analysis import Options, final_trials
    from benchverdict.report import reconcile
    from benchverdict.tuning.runner import run_tuning

    rng = np.random.default_rng(2)
    # One draw per run (IID by the data's structure), B better on every benchmark.
    rows = [(alg, f"d{b}", s, 1, rng.normal(gap, 1.0))
            for b in range(3) for alg, gap in (("A", 0.0), ("B", 3.0)) for s in range(40)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])
    res = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                             budget="budget", score="score", objective="maximize",
                             kind="trials")
    options = Options(figures=False, estimand="these")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(res, analyses=["tuning"], progress=False, figures=False,
                       estimand="these")
        run = run_tuning(res, options)
    direct = reconcile(run.verdicts, algorithms=list(res.algorithms),
                       final_budget=float(res.budgets.max()),
                       final_trials=final_trials(res, options), benchmarks=res.benchmarks,
                       estimand="these")
    assert set(direct.relations["status"]) == {"settled"}
    assert set(direct.relations["winner"]) == {"B"}
    cols = ["scope", "a", "b", "status", "winner"]
    cols = [c for c in cols if c in direct.relations.columns]
    pd.testing.assert_frame_equal(direct.relations[cols].reset_index(drop=True),
                                  comp.reconciliation.relations[cols].reset_index(drop=True))
