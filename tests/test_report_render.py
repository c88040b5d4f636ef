"""compare() with stand-in analyses, and every renderer: schema, escaping, errors, CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict import _latex_text
from benchverdict.methods import register_method
from benchverdict.report import latex, markdown, render
from benchverdict.report.runner import (
    AnalysisRun,
    ReportFigure,
    applicability,
    compare,
)
from benchverdict.results import Results, _example_small
from benchverdict.verdict import (
    Effect,
    Evidence,
    Scope,
    Verdict,
    verdict_from_dict,
    verdict_to_dict,
)

# Stand-in analyses emit "<family>.fake" verdicts; like every method, they are declared.
for _family in ("tuning", "dse", "ranks", "lmem"):
    register_method(f"{_family}.fake", _family, "a stand-in method for tests", paired=True,
                    unit="benchmark", aspect="centre", assumptions="none",
                    error_control="per comparison", votes=True)


# CJK glyphs are missing from matplotlib's default font; the SVG keeps them as text.
pytestmark = pytest.mark.filterwarnings("ignore:Glyph:UserWarning")

#: Names built to break every renderer that forgets to escape.
EVIL = '<script>alert("x")</script>'
QUOTES = "O'Brien \"quoted\" & $x_1$ {50%} #1 ~^\\"
UNICODE = "Ünïcødé-算法 |pipe| *star* `tick`"
NAMES = [EVIL, QUOTES, UNICODE]


# Stand-in analyses emit "<family>.fake" verdicts; like every method, they are declared
# (with the same traits as in test_report_robustness.py: one name, one declaration).
for _family in ("tuning", "dse", "ranks", "lmem"):
    register_method(f"{_family}.fake", _family, "a stand-in method for tests", paired=True,
                    unit="benchmark", aspect="centre", assumptions="none",
                    error_control="per comparison", votes=True)


def evil_results(kind: str = "trials") -> Results:
    rng = np.random.default_rng(0)
    rows = []
    for i, alg in enumerate(NAMES):
        for bench in ["b<1>", "b&2", "b_3"]:
            for seed in range(4):
                for trial in (1, 2, 3):
                    rows.append({"alg": alg, "task": bench, "seed": seed, "trial": trial,
                                 "acc": 0.5 + 0.1 * i + rng.normal(0, 0.05)})
    df = pd.DataFrame(rows)
    if kind == "runs":
        df["acc"] = df.groupby(["alg", "task", "seed"])["acc"].cummax()
    return Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed",
                              budget="trial", score="acc", objective="maximize", kind=kind)


def fake_runner(name: str, outcomes=("a", "b", "inconclusive")):
    """A stand-in analysis: one verdict per pair, a figure and a table, all with the names."""

    def run(results: Results, options) -> AnalysisRun:
        algs = results.algorithms
        pairs = [(algs[i], algs[j]) for i in range(len(algs)) for j in range(i + 1, len(algs))]
        out = AnalysisRun(name, "ok")
        for (a, b), outcome in zip(pairs, outcomes):
            out.verdicts.append(Verdict(
                a, b, outcome, f"{name}.fake", Scope(), Evidence("p_value", 0.01, options.alpha),
                results.objective, f"{a} vs {b} <b>bold</b>",
                effect=Effect("diff", 0.1, float("nan"), float("inf")), unit="benchmark",
                n=3, details={"note": EVIL, "x": float("nan")}))
        fig, ax = plt.subplots()
        ax.bar(range(len(algs)), np.arange(len(algs)) + 1.0)
        ax.set_xticks(range(len(algs)), algs)  # names are text: the theme turns mathtext off
        out.figures.append(ReportFigure(f"{name}-bars <&>", f"Bars of {EVIL}", fig, QUOTES))
        out.tables[f"table {EVIL}"] = pd.DataFrame({"algorithm": algs, "value": [1.0, 2.0, 3.0]})
        out.notes.append(f"note about {EVIL}")
        out.sanity.append({"name": f"check {QUOTES}", "conclusion": f"fine for {UNICODE}"})
        warnings_module = __import__("warnings")
        warnings_module.warn(f"careful with {EVIL}", UserWarning, stacklevel=1)
        return out

    return run


def failing_runner(results, options):
    raise RuntimeError("the module broke")


@pytest.fixture(scope="module")
def comparison():
    runners = {"ranks": fake_runner("ranks"), "lmem": fake_runner("lmem", ("a", "a", "a")),
               "tuning": fake_runner("tuning"), "dse": failing_runner}
    return compare(evil_results(), runners=runners, progress=False)


# ----------------------------------------------------------------------------- runner
def test_applicability_by_kind():
    trials = evil_results("trials")
    runs = evil_results("runs")
    assert all(applicability(trials, a)[0] for a in ("tuning", "dse", "ranks", "lmem"))
    assert [applicability(runs, a)[0] for a in ("tuning", "dse", "ranks", "lmem")] == [
        False, False, True, True]
    no_budget = Results.from_frame(
        pd.DataFrame({"a": ["x", "y"] * 3, "s": range(6), "v": np.arange(6.0)}),
        algorithm="a", seed="s", score="v", objective="minimize", kind="trials")
    ok, why = applicability(no_budget, "ranks")
    assert not ok and "no budget column" in why
    with pytest.raises(ValueError, match="unknown analysis"):
        applicability(trials, "magic")


def test_final_view_is_one_best_row_per_run():
    res = _example_small()
    inc = res.final()
    assert inc.kind == "runs" and len(inc) == 8
    assert inc.table["score"].tolist() == res._incumbent_rows()["score"].tolist()
    assert res.incumbents(1).table["score"].tolist() == res._incumbent_rows(1)[
        "score"].tolist()


@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_incumbent_trajectories_agree_with_at_budget(objective):
    res = evil_results()
    res = Results.from_frame(res.table.reset_index(drop=True), algorithm="algorithm",
                             benchmark="benchmark", seed="seed", budget="budget", score="score",
                             objective=objective, kind="trials")
    traj = res.incumbent_trajectories()
    assert traj.kind == "runs" and len(traj) == len(res)
    keys = ["algorithm", "benchmark", "seed"]
    for b in (1.0, 2.0, 3.0):
        got = traj.at_budget(b).table.sort_values(keys)["score"].to_numpy()
        want = res.at_budget(b).table.sort_values(keys)["score"].to_numpy()
        np.testing.assert_allclose(got, want)
    runs = res.final()
    assert runs.incumbent_trajectories() is runs
    no_order = Results.from_frame(runs.table.drop(columns="budget"), algorithm="algorithm",
                                  benchmark="benchmark", seed="seed", score="score",
                                  objective=objective, kind="trials")
    with pytest.raises(ValueError, match="trial order"):
        no_order.incumbent_trajectories()


def test_errors_and_warnings_are_recorded_not_hidden(comparison):
    status = {r.name: r.status for r in comparison.runs}
    assert status == {"tuning": "ok", "dse": "error", "ranks": "ok", "lmem": "ok"}
    dse = next(r for r in comparison.runs if r.name == "dse")
    assert "the module broke" in dse.reason
    assert any("the module broke" in w for w in comparison.warnings)
    assert any("careful with" in w for w in comparison.warnings)
    assert [r.name for r in comparison.errors] == ["dse"]


def test_comparison_tables(comparison):
    assert len(comparison.verdict_table) == 9
    assert set(comparison.verdict_table["module"]) == {"ranks", "lmem", "tuning"}
    assert comparison.table is comparison.agreement
    assert len(comparison.agreement) == 3
    assert (comparison.conflicts["explanation"].str.len() > 0).all()
    assert comparison.rankings[0].status in ("ranked", "inconclusive")
    assert comparison.plot().get_title().startswith("Who beats whom")  # the answer
    ax = comparison.plot("agreement")
    assert ax.get_title() == "Agreement between methods"
    assert comparison.plot("outcomes").get_title().startswith("Verdicts by method")
    with pytest.raises(ValueError):
        comparison.plot("pie")


def test_compare_validates_its_options():
    res = _example_small()
    with pytest.raises(ValueError, match="unknown analysis"):
        compare(res, analyses=["magic"], progress=False)
    with pytest.raises(ValueError, match="confidence"):
        compare(res, confidence=1.5, progress=False)
    with pytest.raises(ValueError, match="alpha"):
        compare(res, alpha=0, progress=False)
    for bad in (float("nan"), float("inf"), "3"):
        with pytest.raises(ValueError, match="budget"):
            compare(res, budget=bad, progress=False)


def test_requested_analysis_that_does_not_apply_is_reported():
    res = evil_results("runs")
    comp = compare(res, analyses=["tuning"], runners={"tuning": fake_runner("tuning")},
                   progress=False)
    assert [(r.name, r.status) for r in comp.runs] == [("tuning", "not applicable")]
    assert comp.verdict_table.empty
    doc = comp.to_dict()
    assert doc["verdicts"] == [] and doc["rankings"] == []


def test_missing_runner_is_unavailable_and_an_error_only_when_requested():
    res = evil_results()
    comp = compare(res, analyses=["ranks"], runners={}, progress=False)
    assert comp.runs[0].status == "unavailable"
    assert comp.errors and "not run" in comp.warnings[0]
    comp = compare(res, runners={"ranks": fake_runner("ranks")}, progress=False)
    assert not comp.errors


# ----------------------------------------------------------------------------- JSON
def test_json_matches_the_golden_schema(comparison):
    jsonschema = pytest.importorskip("jsonschema")
    schema = render.load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    text = comparison.to_json()
    doc = json.loads(text)  # strict: no NaN/Infinity literals
    assert "NaN" not in text and "Infinity" not in text
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["schema_version"] == render.REPORT_SCHEMA_VERSION == 3
    # Verdicts round-trip losslessly, including nan and inf.
    back = [verdict_from_dict(v) for v in doc["verdicts"]]
    assert [verdict_to_dict(v) for v in back] == [
        verdict_to_dict(v) for v in comparison.verdicts()]  # (nan != nan, so compare encoded)
    assert [(v.a, v.b, v.outcome) for v in back] == [
        (v.a, v.b, v.outcome) for v in comparison.verdicts()]
    assert np.isinf(back[0].effect.upper) and np.isnan(back[0].effect.lower)
    # Names survive exactly.
    assert set(doc["data"]["algorithms"]) == set(NAMES)
    assert {c["algorithm"] for c in doc["paper"]["results_table"]["cells"]} == set(NAMES)


def test_schema_rejects_broken_documents(comparison):
    jsonschema = pytest.importorskip("jsonschema")
    schema = render.load_schema()
    doc = comparison.to_dict()
    for mutate in (
        lambda d: d.pop("verdicts"),
        lambda d: d.__setitem__("schema_version", 1),
        lambda d: d["verdicts"][0].__setitem__("outcome", "maybe"),
        lambda d: d["agreement"][0].__setitem__("agreement", 1.5),
        lambda d: d["conflicts"][0].__setitem__("rules", []),
        lambda d: d.__setitem__("surprise", 1),
        lambda d: d["paper"]["results_table"]["cells"][0].__setitem__("bold", "yes"),
    ):
        broken = json.loads(json.dumps(doc))
        mutate(broken)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


# ----------------------------------------------------------------------------- HTML
class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.imgs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.imgs.append(dict(attrs)["src"])

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_self_contained_and_names_stay_inert(comparison, tmp_path):
    page = comparison.to_html(tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags
    assert "b" not in parser.tags  # the verdict's "<b>bold</b>" stays text
    assert "&lt;script&gt;" in page
    text = "".join(parser.text)
    for name in NAMES:
        assert name in text  # shown, as text
    # Offline: no external references; figures are inline SVG, each figure once.
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert not parser.imgs
    assert "Content-Security-Policy" in page
    # The ranking diagram, the method-agreement heat map and one figure per successful
    # analysis (there is no second scope, so no per-scope diagram).
    assert [f.name for f in comparison.figures[:2]] == ["report-ranking", "report-agreement"]
    assert parser.tags.count("svg") == 2 + 3
    # The summary comes first: the headline sentence, then the matrix, then the diagram.
    assert page.index('id="headline"') < page.index('id="matrix"') < page.index(
        'id="ranking-diagram"') < page.index('id="contradictions"')


def test_svg_figures_escape_names(comparison):
    import base64

    fig = next(f for r in comparison.runs for f in r.figures)
    svg = base64.b64decode(fig.data_uri().split(",", 1)[1]).decode("utf-8")
    assert "<script" not in svg.lower()


# ----------------------------------------------------------------------------- Markdown
def test_markdown_escapes_names(comparison):
    md = comparison.to_markdown()
    assert "<script>" not in md and "&lt;script&gt;" in md
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(md)
    parser = _Tags()
    parser.feed(html)
    assert "script" not in parser.tags and "b" not in parser.tags
    text = "".join(parser.text)
    for name in NAMES:
        assert name in text
    # Pipes in names do not break the tables: every matrix row keeps one cell per
    # algorithm plus the row name.
    section = md.split("## Summary")[1].split("##")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    cells = [len(re.split(r"(?<!\\)\|", row)) - 2 for row in rows]
    assert len(rows) == 1 + 3 and set(cells) == {1 + 3}


def test_md_escape_examples():
    assert markdown.md_escape("a|b") == "a\\|b"
    assert markdown.md_escape("x\ny") == "x y"
    assert markdown.md_escape("<i>&") == "&lt;i&gt;&amp;"


# ----------------------------------------------------------------------------- LaTeX
def test_latex_escapes_every_special(comparison, tmp_path):
    path = comparison.to_latex(tmp_path / "tex")
    doc = path.read_text(encoding="utf-8")
    tables = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "tex" / "tables").glob(
        "*.tex")}
    assert {"matrix.tex", "relations.tex", "data.tex"} <= set(tables)
    figures = sorted(p.name for p in (tmp_path / "tex" / "figures").glob("*.pdf"))
    # The ranking diagram and one figure per successful analysis.
    assert len(figures) == 4 and all(re.fullmatch(r"[A-Za-z0-9_-]+\.pdf", f) for f in figures)
    for name in figures:
        assert f"figures/{name}" in doc
    body = "\n".join([doc, *tables.values()])
    assert "<script>" not in body and r"\textless{}script\textgreater{}" in body
    assert r"\toprule" in tables["relations.tex"] and r"\bottomrule" in tables["relations.tex"]
    # Escaped text has balanced braces and no bare specials. The results table typesets its
    # numbers in math mode and comments its set-up (its escaping: test_paper_table.py).
    assert r"\textless{}script\textgreater{}" in tables.pop("results_table.tex")
    for text in tables.values():
        assert text.startswith(latex.BVU_FALLBACK)  # the one "#": a macro parameter
        stripped = re.sub(r"\\[{}%$&#_]", "", text.removeprefix(latex.BVU_FALLBACK))
        assert stripped.count("{") == stripped.count("}")
        assert not re.search(r"(?<!\\)[%$#]", stripped)


def test_a_tall_figure_is_printed_in_parts_cut_between_its_rows(tmp_path):
    # Review: the per-scope ranking figure of 86 benchmarks (530 x 4778 pt) was scaled to
    # one page's height in report.tex, 44 pt wide: unreadable. It is printed in parts now,
    # each a few whole rows of panels, tick labels and titles included (a first version cut
    # at the panels' edges and moved a row's tick labels to the next part).
    from benchverdict.report.latex import MAX_PART_RATIO

    rng = np.random.default_rng(3)
    rows = [(a, f"bench{j:02d}", s, i * 0.1 + rng.normal(0, 0.3)) for i, a in enumerate("ABCD")
            for j in range(24) for s in range(3)]
    res = Results.from_frame(pd.DataFrame(rows, columns=["a", "b", "s", "y"]), algorithm="a",
                             benchmark="b", seed="s", score="y", objective="maximize",
                             kind="runs")
    comp = compare(res, analyses=["lmem"], progress=False)  # a scope per benchmark
    tex = comp.to_latex(tmp_path / "tex").read_text(encoding="utf-8")
    figures = {f.name: f for f in comp.figures}

    def parts_of(name):
        width, height = figures[name].page_size()
        trims = re.findall(r"trim=0 ([\d.]+)bp 0 ([\d.]+)bp,clip\]\{figures/"
                           + re.escape(name) + r"\.pdf\}", tex)
        return width, height, [(float(low), height - float(top)) for low, top in trims]

    width, height, parts = parts_of("report-ranking-scopes")
    assert len(parts) >= 2 and f"(part 1 of {len(parts)})" in tex
    # The parts tile the figure from its top down, each within the shape a page holds.
    assert parts[0][1] == pytest.approx(height, abs=0.01) and parts[-1][0] == 0
    assert all(hi == pytest.approx(lo_above, abs=0.01)
               for (_, hi), (lo_above, _) in zip(parts[1:], parts))
    assert all(hi - lo <= MAX_PART_RATIO * width + 0.01 for lo, hi in parts)
    # No panel is cut: every axes, with its tick labels, labels and title, lies in one part.
    for name in figures:
        fig = figures[name]
        if fig._bbox is None:
            continue
        width, height, parts = parts_of(name)
        renderer = fig.figure._get_renderer()
        for ax in fig.figure.axes:
            box = ax.get_tightbbox(renderer)
            low, high = ((y / fig.figure.dpi - fig._bbox.y0) * 72 for y in (box.y0, box.y1))
            assert not parts or any(lo - 0.01 <= low and high <= hi + 0.01
                                    for lo, hi in parts), (name, low, high, parts)
    # A colour bar beside its heat map is never a row of its own.
    agreement = figures.get("report-agreement")
    if agreement is not None and agreement._bbox is not None:
        heat = agreement.figure.axes[0].get_tightbbox(agreement.figure._get_renderer())
        low, high = ((y / agreement.figure.dpi - agreement._bbox.y0) * 72
                     for y in (heat.y0, heat.y1))
        assert not any(low < c < high for c in agreement.row_cuts())


def test_row_cuts_pass_between_labelled_rows_and_keep_a_colour_bar_with_its_map():
    from benchverdict.analysis import ReportFigure

    fig, axes = plt.subplots(3, 2, figsize=(5, 7), layout="constrained")
    for i, ax in enumerate(axes.flat):
        ax.plot([0, 1], [i, i + 1])
        ax.set_title(f"panel {i}")
        ax.set_xlabel("score (higher is better)")
    grid = ReportFigure("grid", "Grid", fig)
    grid.svg()
    cuts = grid.row_cuts()
    assert len(cuts) == 2
    renderer = fig._get_renderer()
    for ax in fig.axes:  # every panel, labels and title included, lies between two cuts
        box = ax.get_tightbbox(renderer)
        low, high = ((y / fig.dpi - grid._bbox.y0) * 72 for y in (box.y0, box.y1))
        assert not any(low < c < high for c in cuts), (low, high, cuts)
    heat_fig, ax = plt.subplots(figsize=(5, 4), layout="constrained")
    image = ax.imshow(np.arange(12.0).reshape(3, 4))
    heat_fig.colorbar(image, ax=ax, shrink=0.4)
    heat = ReportFigure("heat", "Heat map", heat_fig)
    heat.svg()
    assert heat.row_cuts() == ()
    plt.close(fig)
    plt.close(heat_fig)


@pytest.mark.parametrize("text", [*NAMES, "50% & more", "a\\b", "~^_"])
def test_latex_escape_leaves_no_command_or_group(text):
    out = latex.latex_escape(text)
    # Undo the escapes we emit; what remains must be the original text.
    undo = re.sub(r"\\bvu\{(.)\}\{[0-9A-F]{4,6}\}", "\\1", out.replace(r"\allowbreak{}", ""))
    for raw, esc in _latex_text.LATEX_SPECIAL.items():
        undo = undo.replace(esc, "\0" + raw)
    assert undo.replace("\0", "") == text
    assert not re.search(r"\\(?!textbackslash|textasciitilde|textasciicircum|textless|"
                         r"textgreater|textquotedbl|textbar|bvu|allowbreak|[&%$#_{}])", out)


# ----------------------------------------------------------------------------- CLI
def _write_csv(tmp_path):
    res = evil_results()
    frame = res.table.reset_index(drop=True)
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path


def _cli(monkeypatch, runners, argv):
    import dataclasses

    from benchverdict import cli, families

    # The report runs the registry's families; these tests swap in fake runners.
    for name, runner in runners.items():
        entry = dataclasses.replace(families.get_family(name), runner=runner)
        monkeypatch.setitem(families._REGISTRY, name, entry)
    return cli.main(argv)


ROLE_ARGS = ["--algorithm", "algorithm", "--seed", "seed", "--score", "score", "--objective",
             "maximize", "--benchmark", "benchmark", "--budget", "budget"]


def test_cli_writes_every_format_and_exit_codes(tmp_path, monkeypatch, capsys):
    path = _write_csv(tmp_path)
    out = tmp_path / "out"
    runners = {"ranks": fake_runner("ranks"), "lmem": fake_runner("lmem", ("a", "a", "a"))}
    code = _cli(monkeypatch, runners, ["report", str(path), *ROLE_ARGS, "-o", str(out),
                                       "--analyses", "ranks,lmem", "--no-progress"])
    assert code == 0
    for name in ("report.html", "report.md", "report.json", "verdicts.csv", "latex/report.tex",
                 "results_table.tex", "results_table.csv"):
        assert (out / name).is_file()
    captured = capsys.readouterr()
    assert "Wrote" in captured.out
    # --json prints the document.
    code = _cli(monkeypatch, runners, ["report", str(path), *ROLE_ARGS, "-o", str(out),
                                       "--analyses", "ranks", "--json", "--no-progress"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "benchverdict.report"
    # An analysis that raises: exit code 1, the other analyses still reported.
    runners["lmem"] = failing_runner
    code = _cli(monkeypatch, runners, ["report", str(path), *ROLE_ARGS, "-o", str(out),
                                       "--analyses", "ranks,lmem", "--no-progress"])
    assert code == 1
    err = capsys.readouterr().err
    assert "the module broke" in err
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {a["name"]: a["status"] for a in doc["analyses"]} == {"ranks": "ok", "lmem": "error"}


@pytest.mark.parametrize(
    "extra",
    [["--alpha", "2"], ["--confidence", "x"], ["--analyses", "magic"], ["--at-budget", "nan"],
     ["--at-budget", "inf"], ["--progress", "--no-progress"],
     ["--cvar-levels", "0.5,1.2"], ["--cvar-levels", "x"]],
)
def test_cli_usage_errors_exit_2(tmp_path, extra):
    from benchverdict import cli

    path = _write_csv(tmp_path)
    with pytest.raises(SystemExit) as info:
        cli.main(["report", str(path), *ROLE_ARGS, *extra])
    assert info.value.code == 2


def test_cli_missing_roles_exit_2(tmp_path, capsys):
    from benchverdict import cli

    path = _write_csv(tmp_path)
    assert cli.main(["report", str(path), "--no-progress"]) == 2
    assert "missing --algorithm" in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40),
    # Markdown's special characters, densely, to hit list markers, rules and headings.
    st.text(alphabet="#-=+*_`[]()!|<>&\\ ~:0123456789.)ab", max_size=12),
))
def test_md_escape_renders_as_the_literal_text(text):
    """Property: any string, escaped, renders in CommonMark as exactly that text."""
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(
        "- " + markdown.md_escape(text))
    parser = _Tags()
    parser.feed(html)
    assert set(parser.tags) <= {"ul", "li", "p"}
    assert " ".join("".join(parser.text).split()) == " ".join(text.split())


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_report_compiles(comparison, tmp_path):
    """The standalone report.tex, with hostile names, compiles with pdfLaTeX."""
    path = comparison.to_latex(tmp_path / "tex")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path.name],
        cwd=path.parent, capture_output=True, text=True, errors="replace", timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (path.parent / "report.pdf").stat().st_size > 10_000


def test_markdown_with_a_path_embeds_svg_figures(comparison, tmp_path):
    path = tmp_path / "report.md"
    md = comparison.to_markdown(path)
    assert path.read_text(encoding="utf-8") == md
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    # Every figure but the method-agreement heat map (HTML only): the ranking diagram and
    # one per successful analysis.
    assert len(links) == len(comparison.figures) - 1 == 4
    for link in links:
        assert link.startswith("report_figures/") and link.endswith(".svg")
        svg = (tmp_path / link).read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<?xml") and "<script" not in svg.lower()
    # Full tables are CSV files beside it, linked, not inlined.
    tables = re.findall(r"\]\((report_tables/[^)]+\.csv)\)", md)
    assert "report_tables/relations.csv" in tables
    for link in tables:
        assert (tmp_path / link).is_file(), link
    assert len(pd.read_csv(tmp_path / "report_tables" / "relations.csv")) == len(
        comparison.reconciliation.relations)
    markdown_it = pytest.importorskip("markdown_it")
    parser = _Tags()
    parser.feed(markdown_it.MarkdownIt("commonmark").enable("table").render(md))
    assert "script" not in parser.tags and parser.tags.count("img") == 4


def _compact_svg_reference(svg: bytes) -> bytes:
    """compact_svg as first written: a function per number (the rule, plainly)."""
    from benchverdict.report.html import _SVG_GEOMETRY, _SVG_PROLOG

    number = re.compile(rb"(-?\d+\.\d)\d+")
    svg = _SVG_PROLOG.sub(b"", svg, count=1)
    return _SVG_GEOMETRY.sub(
        lambda m: m.group(1) + number.sub(lambda n: n.group(1), m.group(2)) + m.group(3), svg)


def test_compact_svg_equals_its_plain_rule():
    # The extra digits are now removed by a literal replacement in C (issue 25: 0.85 s of a
    # 10^6-draw report's HTML); the bytes must be those of the plain per-number rule, on
    # generated attributes and on a real figure.
    import io

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchverdict.report.html import compact_svg

    # Attributes as matplotlib writes them: numbers (any digits, signs, exponents) and
    # path commands, separated by spaces, commas or brackets.
    digits = st.text(alphabet="0123456789", min_size=1, max_size=8)
    number = st.one_of(
        st.tuples(st.sampled_from(["", "-"]), digits, st.sampled_from(["", "."]),
                  st.text(alphabet="0123456789", max_size=8),
                  st.sampled_from(["", "e-05", "e+12"])).map("".join),
        st.sampled_from(["1.23456", "-0.5", ".75", "12.0", "7.123e-05", "0", "-"]))
    part = st.one_of(number, st.sampled_from(["M", "L", "z", "C", "matrix", "translate"]))
    separator = st.sampled_from([" ", ",", "(", ")", " \n", ""])
    value = st.lists(st.tuples(part, separator), max_size=20).map(
        lambda parts: "".join(p + (sep or (" " if p[-1:] in set("0123456789.-") else ""))
                              for p, sep in parts))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(["d", "x", "transform", "points", "id", "r"]),
                              value), max_size=6), value)
    def check(attributes, text):
        inner = "".join(f' {name}="{v}"' for name, v in attributes)
        svg = f'<?xml version="1.0"?>\n<svg><path{inner}/><text>{text}</text></svg>'.encode()
        assert compact_svg(svg) == _compact_svg_reference(svg)

    check()
    fig, ax = plt.subplots()
    rng = np.random.default_rng(0)
    ax.plot(rng.normal(size=300).cumsum(), label="a 1.23456 label")
    ax.fill_between(np.arange(300), -5, rng.normal(size=300), alpha=0.2)
    ax.legend()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    real = buffer.getvalue()
    assert compact_svg(real) == _compact_svg_reference(real)
    assert len(compact_svg(real)) < 0.8 * len(real)
