"""The report under hostile input: names that are markup, colliding figure names, budgets in
any unit, failing sub-steps, and everything left out shown (issue 10).

Every test here runs the real analysis modules through ``compare`` and renders every
format, because the failures it guards against happened in the modules' figures and in
the renderers, not in stand-ins.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from benchverdict import analysis
from benchverdict._plain_text import file_stem as figure_file_name
from benchverdict._plain_text import plain_text
from benchverdict.exclusions import exclusions_frame
from benchverdict.lmem import runner as lmem_runner
from benchverdict.methods import register_method
from benchverdict.plotting import theme
from benchverdict.ranks import runner as ranks_runner
from benchverdict.ranks.runner import block_exclusions
from benchverdict.report.figures import outcome_grid
from benchverdict.report.latex import latex_escape
from benchverdict.report.markdown import md_escape
from benchverdict.report.runner import (
    EXCLUSION_COLUMNS,
    AnalysisRun,
    Options,
    ReportFigure,
    compare,
)
from benchverdict.results import Results

# Stand-in analyses emit "<family>.fake" verdicts; like every method, they are declared.
for _family in ("tuning", "dse", "ranks", "lmem"):
    register_method(f"{_family}.fake", _family, "a stand-in method for tests", paired=True,
                    unit="benchmark", aspect="centre", assumptions="none",
                    error_control="per comparison", votes=True)


# CJK glyphs and control characters are missing from matplotlib's default font.
pytestmark = pytest.mark.filterwarnings("ignore:Glyph:UserWarning")

#: Names that are (broken) mathtext, TeX and format markup.
MATH_ALGORITHMS = ["$x^$", "a_b^{c}", "\\frac{$"]
MATH_BENCHMARKS = ["$b1", "b_2^", "c{d}$", "\\e$x$", "p"]


def trials_frame(algorithms, benchmarks, *, seeds=3, trials=6, budget=lambda t: float(t),
                 score=None, rng=0) -> pd.DataFrame:
    """Random-search trials with a trial order: every analysis applies to them."""
    rng = np.random.default_rng(rng)
    rows = []
    for i, alg in enumerate(algorithms):
        for bench in benchmarks:
            for seed in range(seeds):
                for t in range(1, trials + 1):
                    value = rng.normal(0.3 * i, 1.0) if score is None else score(i, bench, seed, t)
                    rows.append({"alg": alg, "task": bench, "seed": seed, "trial": budget(t),
                                 "acc": value})
    return pd.DataFrame(rows)


def as_results(frame: pd.DataFrame, kind: str = "trials", **kwargs) -> Results:
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              budget="trial", score="acc", objective="maximize", kind=kind,
                              **kwargs)


def svg_text(figure: ReportFigure) -> str:
    return base64.b64decode(figure.data_uri().split(",", 1)[1]).decode("utf-8")


def render_everything(comparison, tmp_path):
    """Every output format; returns the HTML, Markdown and LaTeX paths' texts."""
    html = comparison.to_html(tmp_path / "report.html")
    md = comparison.to_markdown(tmp_path / "report.md")
    tex = comparison.to_latex(tmp_path / "latex").read_text(encoding="utf-8")
    doc = json.loads(comparison.to_json(tmp_path / "report.json"))
    return html, md, tex, doc


# ----------------------------------------------------------------------------- 1. names are text
def test_the_theme_draws_dollar_signs_literally():
    """Broken mathtext in a title, a legend and tick labels saves without error."""
    with theme():
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1], label="$x^$")
        ax.legend()
        ax.set_title("cost in $ and $\\frac{")
        ax.set_xticks([0, 1], ["a_b^{c}", "$y$"])
    import io

    assert plt.rcParams["text.parse_math"]  # the theme does not leak
    fig.savefig(io.BytesIO(), format="svg")  # outside the theme, as a user would
    fig.savefig(io.BytesIO(), format="pdf")
    assert ax.title.get_parse_math() is False
    assert all(not t.get_parse_math() for t in ax.get_xticklabels())


def test_every_figure_of_the_report_draws_markup_names_as_text(tmp_path):
    """Issue 10: a "$" in a name was parsed as mathtext and aborted the whole report."""
    res = as_results(trials_frame(MATH_ALGORITHMS, MATH_BENCHMARKS))
    comp = compare(res, progress=False)
    assert {r.name: r.status for r in comp.runs} == dict.fromkeys(
        ["tuning", "dse", "ranks", "lmem"], "ok")
    assert not [c for r in comp.runs for c in r.failed_steps]
    html, md, tex, doc = render_everything(comp, tmp_path)
    kinds = {"tuning" if f.name.startswith("tuning-") else f.name for f in comp.figures}
    assert kinds == {"report-ranking", "report-ranking-scopes", "report-agreement", "tuning",
                     "dse-cdf",
                     "dse-cdf-pooled", "ranks-cd-nemenyi", "ranks-win-tie-loss",
                     "ranks-anytime", "ranks-autorank", "lmem-cd", "lmem-sanity"}
    assert set(doc["data"]["algorithms"]) == set(MATH_ALGORITHMS)
    for name in MATH_ALGORITHMS:
        assert latex_escape(name) in tex and md_escape(name) in md and name in html
    texts = ""
    for figure in comp.figures:
        svg = svg_text(figure)
        ET.fromstring(svg)  # valid XML
        texts += svg
        assert "$" in svg or figure.name in ("report-agreement",), figure.name
    # svg.fonttype "none": names are kept as text, literally (no "\$", no math layout).
    for name in MATH_ALGORITHMS + MATH_BENCHMARKS[:4]:
        assert name in texts, name
    assert "\\$" not in texts
    # Every figure was written for LaTeX and Markdown, one file each (not the HTML-only
    # method-agreement heat map, and a picture repeated within an analysis once).
    from benchverdict.report.render import _unique_figures

    expected = sum(f.name.startswith("report-ranking") for f in comp.figures) + sum(
        len(_unique_figures(r.figures)) for r in comp.runs)
    assert len(list((tmp_path / "latex" / "figures").glob("*.pdf"))) == expected
    assert len(list((tmp_path / "report_figures").glob("*.svg"))) == expected


def test_outcome_grid_labels_are_the_names_unescaped():
    res = as_results(trials_frame(MATH_ALGORITHMS, MATH_BENCHMARKS[:2], seeds=2, trials=3))
    comp = compare(res, analyses=["ranks"], progress=False)
    labels = [t.get_text() for t in outcome_grid(comp.reconciliation).get_yticklabels()]
    assert any("$x^$" in label for label in labels)
    assert not any("\\$" in label for label in labels)


# ----------------------------------------------------------------------------- 2. file names
COLLIDING = ["a b", "a_b", "a/b", "a<b", "A_B", "a\\b", "a:b"]


def test_figure_file_names_are_unique_safe_and_short():
    names = [f"tuning-{b}" for b in COLLIDING] + ["tuning-" + "x" * 300, "ranks-cd-nemenyi"]
    files = [figure_file_name(n) for n in names]
    assert len(set(files)) == len(files)
    # Unique also on case-insensitive file systems.
    assert len({f.lower() for f in files}) == len(files)
    assert all(re.fullmatch(r"[a-z0-9_-]{1,80}", f) for f in files)
    assert figure_file_name("ranks-cd-nemenyi") == "ranks-cd-nemenyi"


def test_figure_file_names_are_stable_across_processes():
    names = [f"tuning-{b}" for b in COLLIDING]
    code = ("import json, sys; from benchverdict._plain_text import file_stem as figure_file_name; "
            f"print(json.dumps([figure_file_name(n) for n in {names!r}]))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert json.loads(out) == [figure_file_name(n) for n in names]


def test_colliding_benchmark_names_get_their_own_figures_and_labels(tmp_path):
    """Issue 10: "a b", "a_b", "a/b", "a<b" all became tuning-a_b (one figure, four captions)."""
    frame = trials_frame(["A", "B"], COLLIDING[:4], seeds=2, trials=5)
    comp = compare(as_results(frame), analyses=["tuning"], progress=False)
    shuffled = compare(as_results(frame.sample(frac=1.0, random_state=3)),
                       analyses=["tuning"], progress=False)
    files = [f.file_name for f in comp.figures]
    own = [f for f in comp.figures if f.name.startswith("report-")]
    assert sum(f.startswith("tuning-") for f in files) == 4
    assert len(files) == len(set(files)) == len(own) + 4
    assert sorted(files) == sorted(f.file_name for f in shuffled.figures)  # row order
    tex = comp.to_latex(tmp_path / "latex").read_text(encoding="utf-8")
    labels = re.findall(r"\\label\{(fig:[^}]*)\}", tex)
    # LaTeX holds the ranking diagrams (not the method-agreement heat map) and the 4 curves.
    in_tex = len([f for f in own if f.name.startswith("report-ranking")]) + 4
    assert len(labels) == len(set(labels)) == in_tex
    assert len(list((tmp_path / "latex" / "figures").glob("*.pdf"))) == in_tex
    # Each caption names its own benchmark, and its file is drawn from that benchmark.
    for bench in COLLIDING[:4]:
        figure = next(f for f in comp.figures if f.title.endswith(f" on {bench}"))
        assert latex_escape(bench) in tex
        assert f"figures/{figure.file_name}.pdf" in tex


def test_two_figures_with_one_name_still_get_two_files():
    def runner(results, options):
        run = AnalysisRun("ranks", "ok")
        for _ in range(2):
            fig, _ax = plt.subplots()
            run.figures.append(ReportFigure("ranks-same", "same", fig))
        return run

    res = as_results(trials_frame(["A", "B"], ["p", "q"], seeds=2, trials=2))
    comp = compare(res, analyses=["ranks"], runners={"ranks": runner}, progress=False)
    files = [f.file_name for f in comp.figures if f.name == "ranks-same"]
    assert files == ["ranks-same", "ranks-same-2"]


# ----------------------------------------------------------------------------- 3. budgets
@pytest.fixture
def spy_guidance(monkeypatch):
    """Record every k the tuning module's guidance is asked about; refuse any k > limit."""
    from benchverdict import tuning
    from benchverdict.tuning import runner as tuning_runner

    calls = {"sample_size": [], "limit": None}
    real = tuning.sample_size

    def sample_size(k, *args, **kwargs):
        calls["sample_size"].append(k)
        if calls["limit"] is not None and k > calls["limit"]:
            raise AssertionError(f"sample_size asked for k = {k} > {calls['limit']} trials")
        return real(k, *args, **kwargs)

    monkeypatch.setattr(tuning, "sample_size", sample_size)
    # The tuning family's guide (tuning.runner.TuningGuide) calls it from its module.
    monkeypatch.setattr(tuning_runner, "sample_size", sample_size)
    return calls


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e9])
def test_guidance_sizes_by_trials_not_by_budget_values(spy_guidance, scale):
    """Issue 10: budgets reached sample_size as k (1e9 was killed for memory)."""
    trials = 6
    spy_guidance["limit"] = trials
    # Equal distributions: every pair stays unsettled and asks for guidance.
    rng = np.random.default_rng(1)
    frame = trials_frame(["A", "B"], ["p", "q"], seeds=3, trials=trials,
                         budget=lambda t: t * scale, score=lambda *_: rng.normal())
    comp = compare(as_results(frame), progress=False)
    assert spy_guidance["sample_size"], "no guidance was computed"
    assert max(spy_guidance["sample_size"]) <= trials
    guidance = " ".join(g for r in comp.rankings for g in r.guidance)
    assert f"k = {trials} trials" in guidance
    comp = compare(as_results(frame), budget=3 * scale, progress=False)
    assert max(spy_guidance["sample_size"]) <= trials
    assert "k = 3 trials" in " ".join(g for r in comp.rankings for g in r.guidance)


@pytest.mark.parametrize("budget", [lambda t: t / 10.0, lambda t: t - 100.0,
                                    lambda t: t * 1e12])
def test_fractional_negative_and_huge_budgets_never_abort_the_report(spy_guidance, budget,
                                                                     tmp_path):
    """Issue 10: "k must be at least 1" aborted the report even with --analyses ranks."""
    frame = trials_frame(["A", "B", "C"], ["p", "q", "r"], seeds=3, trials=4, budget=budget)
    res = as_results(frame)
    comp = compare(res, analyses=["ranks"], progress=False)
    assert comp.runs[0].status == "ok" and comp.rankings
    # Only the analyses that ran give guidance: no tuning-curve advice without tuning.
    assert spy_guidance["sample_size"] == []
    assert not any("draws per algorithm" in g for r in comp.rankings for g in r.guidance)
    for at in (None, budget(2), budget(1) - abs(budget(1)) - 1.0):
        comp = compare(res, budget=at, analyses=["tuning", "ranks", "lmem"], progress=False)
        assert {r.name: r.status for r in comp.runs}["tuning"] == "ok"
        assert not comp.errors, comp.warnings
    render_everything(comp, tmp_path)


def test_a_budget_before_every_observation_is_reported_not_raised():
    res = as_results(trials_frame(["A", "B"], ["p", "q"], seeds=2, trials=3))
    comp = compare(res, budget=0.5, analyses=["ranks", "lmem"], progress=False)
    status = {r.name: (r.status, r.reason) for r in comp.runs}
    assert status["lmem"][0] == "not applicable" and "no run" in status["lmem"][1]
    assert status["ranks"][0] == "not applicable" and "no run" in status["ranks"][1]
    assert not comp.errors
    assert (comp.exclusions["unit"] == "run").sum() == 2 * 2 * 2 * 2  # both analyses
    # No incumbents, no results table: the report says why instead of aborting.
    section = comp.document().results_table.get()
    assert section.frame is None and "no run has an observation" in section.note
    assert "results_table" not in comp.to_dict()["paper"]


# ----------------------------------------------------------------------------- 4. isolation
@pytest.fixture(scope="module")
def small_trials():
    frame = trials_frame(["A", "B", "C"], [f"b{i}" for i in range(5)], seeds=3, trials=4)
    frame["prior"] = np.where(frame["task"].isin(["b0", "b1"]), "good", "bad")
    return as_results(frame, metafeatures=["prior"])


def test_a_failing_lmem_sanity_check_keeps_the_lmem_analysis(monkeypatch, small_trials,
                                                             tmp_path):
    """Issue 10: an exception in _lmem_sanity lost the whole LMEM section."""

    def broken(*args, **kwargs):
        raise ValueError("the larger model has a lower log-likelihood (-27.220408 < -27.22)")

    # The LMEM family's runner calls it from its module (benchverdict.lmem.runner).
    monkeypatch.setattr(lmem_runner, "sanity_checks", broken)
    comp = compare(small_trials, analyses=["lmem"], progress=False)
    run = comp.runs[0]
    assert run.status == "ok" and run.verdicts and "pairwise contrasts (Tukey)" in run.tables
    entry = next(c for c in run.sanity if c["name"] == "LMEM sanity checks")
    assert entry["status"] == "not run" and "lower log-likelihood" in entry["conclusion"]
    html, md, _, doc = render_everything(comp, tmp_path)
    assert "lower log-likelihood" in html and "lower log-likelihood" in md
    assert any(s["name"] == "LMEM sanity checks" for s in doc["sanity"])


def test_a_sanity_check_that_records_its_own_failure_is_shown_as_failed(monkeypatch,
                                                                        small_trials):
    """The lmem module records a check it could not run in ``details["error"]``."""
    from benchverdict import lmem

    real = lmem.sanity_checks

    def partly_failed(*args, **kwargs):
        report = real(*args, **kwargs)
        first = report.checks[0]
        failed = dataclasses.replace(first, details={**first.details,
                                                     "error": "ZeroDivisionError: x"})
        assert failed.failed
        return dataclasses.replace(report, checks=(failed, *report.checks[1:]))

    monkeypatch.setattr(lmem_runner, "sanity_checks", partly_failed)
    comp = compare(small_trials, analyses=["lmem"], progress=False)
    run = comp.runs[0]
    assert run.status == "ok" and run.verdicts
    failed = {c["name"]: c for c in run.failed_steps}
    assert "ZeroDivisionError" in failed["LMEM sanity check: seed dependency"]["conclusion"]
    kept = [c["name"] for c in run.sanity if c["status"] == "ok"]
    assert "benchmark informativeness" in kept
    assert any(f.name == "lmem-sanity" for f in run.figures)  # drawn from the checks that ran


def test_each_ranks_step_fails_alone(monkeypatch, small_trials):

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    for name in ("autorank", "anytime_ranks", "win_tie_loss"):
        monkeypatch.setattr(ranks_runner, name, boom)
    comp = compare(small_trials, analyses=["ranks"], progress=False)
    run = comp.runs[0]
    assert run.status == "ok"
    assert {v.method for v in run.verdicts} >= {"ranks.nemenyi", "ranks.wilcoxon_holm"}
    assert {c["name"] for c in run.failed_steps} == {"Autorank", "anytime ranks",
                                                     "win/tie/loss"}
    assert all("RuntimeError: boom" in c["conclusion"] for c in run.failed_steps)
    assert comp.warnings[0].startswith("[ranks] ") and "boom" in comp.warnings[0]
    assert not comp.errors  # a failed sub-step is a warning, not a failed analysis


def test_a_failing_per_level_fit_or_figure_keeps_the_rest(monkeypatch, small_trials):
    from benchverdict import lmem, tuning

    real_fit = lmem.fit

    def fit(data, formula, *args, **kwargs):
        if "*" in formula:
            raise np.linalg.LinAlgError("SVD did not converge")
        return real_fit(data, formula, *args, **kwargs)

    monkeypatch.setattr(lmem_runner, "fit", fit)

    def plot(self, *args, **kwargs):
        raise RuntimeError("no figure today")

    monkeypatch.setattr(tuning.TuningCurves, "plot", plot)
    comp = compare(small_trials, analyses=["lmem", "tuning"], progress=False)
    runs = {r.name: r for r in comp.runs}
    assert runs["lmem"].status == runs["tuning"].status == "ok"
    assert [c["name"] for c in runs["lmem"].failed_steps] == ["LMEM per level of prior"]
    assert runs["lmem"].verdicts and runs["tuning"].verdicts
    assert not runs["tuning"].figures
    assert all(c["name"].startswith("figure ") for c in runs["tuning"].failed_steps)


def test_keyboard_interrupt_is_not_swallowed_by_a_step():
    run = AnalysisRun("ranks", "ok")

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run.attempt("x", interrupted)


# ----------------------------------------------------------------------------- 5. exclusions
def late_runs_frame() -> pd.DataFrame:
    """HPO runs; B's runs on p with seeds 0 and 1 start only at budget 3."""
    rows = []
    rng = np.random.default_rng(2)
    for alg in ("A", "B", "C"):
        for bench in ("p", "q", "r", "s", "t"):
            for seed in range(3):
                best = 0.0
                start = 3 if (alg == "B" and bench == "p" and seed < 2) else 1
                for budget in range(start, 6):
                    best = max(best, rng.uniform())
                    rows.append({"alg": alg, "task": bench, "seed": seed, "trial": budget,
                                 "acc": best})
    return pd.DataFrame(rows)


def test_runs_without_an_incumbent_are_counted_and_named(tmp_path):
    """Issue 10: runs that start after the budget were left out of the LMEM without a word."""
    res = as_results(late_runs_frame(), kind="runs")
    comp = compare(res, budget=2, analyses=["ranks", "lmem"], progress=False)
    ex = comp.exclusions
    assert list(ex.columns) == list(EXCLUSION_COLUMNS)
    for name in ("lmem", "ranks"):
        runs = ex[(ex["analysis"] == name) & (ex["unit"] == "run")]
        assert sorted(runs["seed"]) == [0, 1]
        assert set(runs["algorithm"]) == {"B"} and set(runs["benchmark"]) == {"p"}
        assert runs["reason"].str.contains("budget 2").all()
    lmem_run = next(r for r in comp.runs if r.name == "lmem")
    assert "2 run(s)" in lmem_run.reason
    summary = comp.exclusion_summary
    assert summary.loc[summary["analysis"] == "lmem", "count"].tolist() == [2]
    html, md, _, doc = render_everything(comp, tmp_path)
    assert "B / p / seed 0" in html and "B / p / seed 0" in md
    assert "B / p / seed 0" in (tmp_path / "latex" / "tables" / "exclusions.tex").read_text(
        encoding="utf-8")
    assert {(e["analysis"], e["what"], e["count"]) for e in doc["exclusions"]} >= {
        ("lmem", "run", 2), ("ranks", "run", 2)}
    jsonschema = pytest.importorskip("jsonschema")
    from benchverdict.report.render import load_schema

    jsonschema.Draft202012Validator(load_schema()).validate(doc)


def test_validation_and_tuning_exclusions_are_listed(monkeypatch):
    frame = trials_frame(["A", "B"], ["p", "q"], seeds=2, trials=4)
    frame.loc[[0, 5], "acc"] = np.nan
    res = as_results(frame, on_invalid="drop")
    from benchverdict.tuning import collection

    real = collection.tuning_curve

    def curve(values, *args, name=None, **kwargs):
        if name == "B":
            raise ValueError("too few distinct scores")
        return real(values, *args, name=name, **kwargs)

    monkeypatch.setattr(collection, "tuning_curve", curve)
    comp = compare(res, analyses=["tuning"], progress=False)
    ex = comp.exclusions
    validation = ex[ex["analysis"] == "validation"]
    assert sorted(validation["row"].unique()) == [0, 5]
    cells = ex[(ex["analysis"] == "tuning") & (ex["unit"] == "cell")]
    assert sorted(cells["benchmark"]) == ["p", "q"] and set(cells["algorithm"]) == {"B"}
    assert (cells["reason"] == "too few distinct scores").all()


@pytest.mark.parametrize("layout", ["block", "seed"])
def test_block_exclusions_whole_blocks_and_seeds(layout):
    if layout == "block":
        ex = exclusions_frame([{"algorithm": a} for a in ("A", "B")], step="rank blocks",
                              unit="cell", benchmark="p", reason="missing cell")
    else:
        ex = exclusions_frame([{"algorithm": "A", "reason": "seed 3 missing for A: dropped"},
                               {"algorithm": "B", "reason": "seed 3 dropped"}],
                              step="rank blocks", unit="run", benchmark="p", seed=3)
    what, frame = block_exclusions(SimpleNamespace(unit="benchmark", exclusions=ex))
    assert what == ("benchmark" if layout == "block" else "seed")
    assert frame["benchmark"].tolist() == ["p", "p"]
    assert frame["algorithm"].tolist() == ["A", "B"]
    if layout == "seed":
        assert frame["seed"].tolist() == [3, 3]
    else:
        assert frame["reason"].str.contains("whole benchmark is left out").all()
    run = AnalysisRun("ranks", "ok")
    assert run.exclude("rank blocks", what, frame) == 2


def test_incomplete_rank_blocks_are_listed(small_trials):
    frame = small_trials.table.reset_index(drop=True)
    keep = ~((frame["algorithm"] == "A") & (frame["benchmark"] == "b0"))
    res = Results.from_frame(frame[keep], algorithm="algorithm", benchmark="benchmark",
                             seed="seed", budget="budget", score="score",
                             objective="maximize", kind="trials")
    comp = compare(res, analyses=["ranks"], progress=False)
    ex = comp.exclusions
    blocks = ex[(ex["analysis"] == "ranks") & (ex["step"] == "rank blocks")]
    assert len(blocks) >= 1 and set(blocks["benchmark"]) == {"b0"}


# ----------------------------------------------------------------------------- 8. hostile data
def test_constant_scores_give_a_report(tmp_path):
    frame = trials_frame(["A", "B", "C"], ["p", "q", "r"], seeds=3, trials=3,
                         score=lambda *a: 0.5)
    comp = compare(as_results(frame), progress=False)
    render_everything(comp, tmp_path)
    assert {r.name for r in comp.runs} == {"tuning", "dse", "ranks", "lmem"}


def test_one_benchmark_gives_a_report(tmp_path):
    comp = compare(as_results(trials_frame(["A", "B"], ["only"], seeds=4, trials=4)),
                   progress=False)
    status = {r.name: r.status for r in comp.runs}
    # One benchmark: no blocks to rank, but its runs are replicates for a claim about it.
    assert status["ranks"] == "not applicable"
    assert status["tuning"] == status["dse"] == status["lmem"] == "ok"
    lmem_votes = comp.reconciliation.votes
    lmem_votes = lmem_votes[lmem_votes["family"] == "lmem"]
    assert set(lmem_votes["scope_type"]) == {"per benchmark"}
    render_everything(comp, tmp_path)


CONTROL = ["nul\x00", "rlo\u202etxt", "bell\x07", "surrogate\ud800"]


@pytest.mark.parametrize(
    "render", ["svg", "markdown", "latex", "html"])
def test_control_characters_are_made_visible_in_every_format(render, tmp_path):
    text = "A" + "".join(CONTROL)
    if render == "svg":
        fig, ax = plt.subplots()
        ax.set_title(text)
        svg = ReportFigure("x", text, fig).svg().decode("utf-8")
        root = ET.fromstring(svg)  # NUL would make it invalid XML
        assert "\\x00" in svg and "\\u202e" in svg
        assert root is not None
    elif render == "markdown":
        out = md_escape(text)
        assert "\x00" not in out and "\u202e" not in out and "\\\\x00" in out
    elif render == "latex":
        out = latex_escape(text)
        assert "\x00" not in out and "\u202e" not in out and "\\textbackslash{}x00" in out
    else:
        from benchverdict.report.html import html_environment

        out = html_environment().from_string("<p>{{ name }}</p>").render(name=text)
        assert out.encode("utf-8")  # a lone surrogate would not encode
        assert "\x00" not in out and "\u202e" not in out and "\x07" not in out
        assert "\\x00" in out and "\\u202e" in out


def test_names_with_control_characters_give_a_report_or_a_clear_error(tmp_path):
    """Names that slip through validation must not break the report's files."""
    frame = trials_frame(["A\x00", "B\u202e", "C"], ["p\x07", "q"], seeds=2, trials=3)
    try:
        res = as_results(frame)
    except ValueError as err:  # validation may reject them: then with a clear message
        assert "name" in str(err).lower() or "control" in str(err).lower()
        return
    comp = compare(res, progress=False)
    html, md, tex, _ = render_everything(comp, tmp_path)
    for text in (html, md, tex):
        assert "\x00" not in text and "\u202e" not in text and "\x07" not in text
    for svg in (tmp_path / "report_figures").glob("*.svg"):
        ET.parse(svg)


def test_plain_text_covers_text_drawn_outside_the_theme():
    fig, ax = plt.subplots()  # not themed: mathtext on
    ax.set_xlabel("$\\frac{")
    plain_text(fig)
    import io

    fig.savefig(io.BytesIO(), format="svg")
    assert ax.xaxis.label.get_parse_math() is False


# ----------------------------------------------------------------------------- many algorithms
def test_figures_with_too_many_algorithms_are_not_drawn_and_say_so():
    run = AnalysisRun("ranks", "ok")
    calls = []
    options = Options()
    analysis.add_figure(run, options, "ranks-x", "CD", lambda: calls.append(1),
                          n_algorithms=analysis.MAX_FIGURE_ALGORITHMS + 1)
    analysis.add_figure(run, options, "ranks-y", "W/T/L", lambda: calls.append(1),
                          n_pairs=analysis.MAX_FIGURE_PAIRS + 1)
    assert not calls and not run.figures
    assert len(run.notes) == 2
    assert run.notes[0].startswith(
        f"Figure 'CD' is not drawn: with {analysis.MAX_FIGURE_ALGORITHMS + 1} algorithms")
    assert run.notes[1].startswith(
        f"Figure 'W/T/L' is not drawn: with {analysis.MAX_FIGURE_PAIRS + 1} pairs")


def test_documents_show_at_most_max_rows_and_json_keeps_all(monkeypatch, tmp_path):
    """With 1000 algorithms (500,000 pairs) no page can show every row."""
    import test_report_render  # noqa: F401  (declares the stand-in method ranks.fake)
    from benchverdict.report import render

    monkeypatch.setattr(render, "MAX_DOCUMENT_ROWS", 25)
    names = [f"alg{i:02d}" for i in range(12)]  # 66 pairs

    def runner(results, options):
        run = AnalysisRun("ranks", "ok")
        from benchverdict.verdict import Evidence, Scope, Verdict

        for i, a in enumerate(results.algorithms):
            for b in results.algorithms[i + 1:]:
                run.verdicts.append(Verdict(a, b, "inconclusive", "ranks.fake", Scope(),
                                            Evidence("p_value", 0.5, 0.05), "maximize", "x"))
        # A family's advice comes with its run (the rank tests' own guide).
        run.guide = ranks_runner.RankUnitsGuide(results)
        return run

    res = as_results(trials_frame(names, ["p", "q"], seeds=2, trials=2))
    comp = compare(res, analyses=["ranks"], runners={"ranks": runner}, progress=False)
    html, md, _, doc = render_everything(comp, tmp_path)
    tex = (tmp_path / "latex" / "tables" / "relations.tex").read_text(encoding="utf-8")
    assert len(doc["agreement"]) == len(doc["verdicts"]) == 66
    note = "41 more rows are not shown here"
    assert note in html and note in tex
    assert sum(line.startswith("| alg") for line in tex.splitlines()) == 0
    assert tex.count("alg") <= 25 * 4  # at most 25 rows, each naming at most 4 times
    # Markdown shows the pairwise matrix (one row per algorithm), not a row per pair.
    section = md.split("## Summary")[1].split("##")[0]
    assert sum(line.startswith("| alg") for line in section.splitlines()) == 12
    # Guidance names a bounded number of pairs.
    guidance = " ".join(g for r in comp.rankings for g in r.guidance)
    assert "and 46 more pair(s)" in guidance


def test_validation_exclusions_keep_their_reasons_in_the_report():
    """Rows dropped at validation reach exclusions.csv with their reasons (were blank)."""
    frame = pd.DataFrame({"alg": ["a", "a", "b", "b", "c", "c"], "seed": [0, 1] * 3,
                          "acc": [0.5, float("nan"), 0.6, 0.7, float("inf"), 0.4]})
    res = Results.from_frame(frame, algorithm="alg", seed="seed", score="acc",
                             objective="maximize", on_invalid="drop", kind="runs")
    comp = compare(res, analyses=["ranks"], progress=False)
    rows = comp.exclusions[comp.exclusions["analysis"] == "validation"]
    assert len(rows) == 2
    # The column at fault is the record's own field (it was a prefix of the reason).
    assert (rows["columns"] == "acc").all() and all(rows["reason"].str.len() > 0)
    summary = comp.exclusion_summary
    assert summary.loc[summary["analysis"] == "validation", "reason"].str.startswith(
        "acc: ").all()
