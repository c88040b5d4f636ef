"""Issue 25: the files the project writes are safe for the user's folder and its readers.

- ``report -o DIR`` never deletes or overwrites a file it did not write, and never an input;
  an interrupted publishing leaves a folder the next run recognises.
- No CSV cell the project writes can run as a spreadsheet formula.
- Hostile names cannot inject LaTeX, Markdown or HTML, and the LaTeX report compiles.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchverdict import _output_dir as _output
from benchverdict import cli
from benchverdict._safe_output import _NUMBER, FORMULA_START, neutralise_cell, write_csv

#: A quick report: the built-in example, rank tests only.
QUICK = ["report", "--example", "--analyses", "ranks", "--no-progress"]


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with the SHA-256 of its content."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*")) if p.is_file()
    }


def users_work(folder: Path) -> dict[str, str]:
    """A user's thesis and figures in ``folder``; their digests."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thesis.tex").write_text("\\documentclass{book} years of work\n")
    (folder / "figures").mkdir(exist_ok=True)
    (folder / "figures" / "plot.pdf").write_bytes(os.urandom(2048))
    return {k: v for k, v in snapshot(folder).items()
            if k == "thesis.tex" or k.startswith("figures")}


# ----------------------------------------------------------------------------- the -o folder
def test_a_folder_that_merely_holds_a_report_json_is_refused_and_kept(tmp_path, capsys):
    """Issue 25: such a folder was replaced whole (thesis.tex and figures/ deleted), exit 0."""
    folder = tmp_path / "thesis"
    users_work(folder)
    (folder / "report.json").write_text('{"schema": "benchverdict.report", "version": 1}')
    before = snapshot(folder)
    assert cli.main([*QUICK, "-o", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "no benchverdict manifest" in err and "another -o" in err
    assert snapshot(folder) == before


def test_files_the_report_did_not_write_survive_a_rerun_byte_identical(tmp_path):
    out = tmp_path / "out"
    assert cli.main([*QUICK, "-o", str(out)]) == 0
    mine = users_work(out)
    (out / "latex" / "notes.tex").write_text("my notes beside the report's LaTeX")
    mine["latex/notes.tex"] = snapshot(out)["latex/notes.tex"]
    assert cli.main([*QUICK, "-o", str(out)]) == 0
    after = snapshot(out)
    assert {k: after.get(k) for k in mine} == mine
    listed = _output.read_manifest(out)
    assert not set(listed) & set(mine)
    assert {k for k in after if k != _output.MARKER} == set(mine) | set(listed)
    for rel, digests in listed.items():
        assert after[rel] in digests
    assert json.loads((out / _output.MARKER).read_text())["complete"] is True


def test_a_report_file_edited_since_it_was_written_is_not_replaced(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main([*QUICK, "-o", str(out)]) == 0
    (out / "report.md").write_text("my edited summary")
    before = snapshot(out)
    capsys.readouterr()
    assert cli.main([*QUICK, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "report.md" in err and "changed since benchverdict wrote them" in err
    assert snapshot(out) == before


def staged(target: Path, files: dict[str, str], inputs=()) -> None:
    with _output.staged_directory(target, inputs) as stage:
        for rel, text in files.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_text(text)


def test_a_foreign_file_where_the_report_would_write_is_refused(tmp_path):
    target = tmp_path / "out"
    staged(target, {"a.txt": "ours"})
    (target / "b.txt").write_text("the user's")
    (target / "sub").write_text("a file where the report wants a folder")
    before = snapshot(target)
    for files in ({"b.txt": "new"}, {"sub/c.txt": "new"}):
        with pytest.raises(_output.OutputError, match="did not write"):
            staged(target, files)
        assert snapshot(target) == before


def test_an_input_among_the_report_files_is_refused(tmp_path):
    target = tmp_path / "out"
    staged(target, {"data/runs.csv": "a,b\n1,2\n", "x.txt": "x"})
    before = snapshot(target)
    for given in (target / "data" / "runs.csv", target / "data"):
        with pytest.raises(_output.OutputError, match="input"):
            staged(target, {"x.txt": "y"}, inputs=[given])
        assert snapshot(target) == before
    staged(target, {"x.txt": "y"}, inputs=[tmp_path / "elsewhere.csv"])
    assert (target / "x.txt").read_text() == "y"


def test_a_manifest_naming_paths_outside_the_folder_is_refused(tmp_path):
    target = tmp_path / "out"
    staged(target, {"a.txt": "ours"})
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    manifest = json.loads((target / _output.MARKER).read_text())
    manifest["files"]["../victim.txt"] = [hashlib.sha256(b"keep").hexdigest()]
    (target / _output.MARKER).write_text(json.dumps(manifest))
    with pytest.raises(_output.OutputError, match="outside the folder"):
        staged(target, {"a.txt": "new"})
    assert victim.read_text() == "keep"


KILL_DRIVER = """
import os, sys
from pathlib import Path
from benchverdict import _output_dir as _output
kill_at = int(sys.argv[2])
real, calls = os.replace, []
def replace(src, dst):
    calls.append(dst)
    if len(calls) == kill_at:
        os._exit(9)  # a crash: no clean-up runs
    return real(src, dst)
_output.os.replace = replace
with _output.staged_directory(Path(sys.argv[1])) as stage:
    (stage / "a.txt").write_text("new a")
    (stage / "sub").mkdir()
    (stage / "sub" / "c.txt").write_text("new c")
"""


@pytest.mark.parametrize("kill_at", range(1, 6))
def test_a_crash_while_publishing_leaves_a_folder_the_next_run_replaces(tmp_path, kill_at):
    target = tmp_path / "out"
    staged(target, {"a.txt": "old a", "b.txt": "old b"})
    mine = users_work(target)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(_output.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", KILL_DRIVER, str(target), str(kill_at)],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode in (0, 9), proc.stderr
    now = snapshot(target)
    assert {k: now.get(k) for k in mine} == mine
    # Each file is the old or the new version, never missing or another.
    assert (target / "a.txt").read_text() in ("old a", "new a")
    assert {p.name for p in tmp_path.iterdir()} <= {"out"} | {
        p.name for p in tmp_path.iterdir() if p.name.startswith((".out.partial-",
                                                                  ".out.previous-"))}
    staged(target, {"a.txt": "newest a"})
    assert (target / "a.txt").read_text() == "newest a"
    assert not (target / "b.txt").exists() and not (target / "sub").exists()
    now = snapshot(target)
    assert {k: now.get(k) for k in mine} == mine
    assert set(_output.read_manifest(target)) == {"a.txt"}


# ----------------------------------------------------------------------------- CSV injection
HOSTILE_ALGORITHMS = ['=HYPERLINK("http://x")', "@SUM(A1)", "+1", "-cmd", "SVM"]


def is_number(cell: str) -> bool:
    """A number as pandas writes one (``-0.5``, ``-inf`` in a numeric column)."""
    return bool(_NUMBER.fullmatch(cell)) or cell.lower() in ("-inf", "+inf")


def formula_cells(directory: Path) -> list[tuple[str, str]]:
    """Every CSV cell under ``directory`` that a spreadsheet would run as a formula."""
    found = []
    for path in sorted(directory.rglob("*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f):
                found += [(path.name, c) for c in row
                          if c.startswith(FORMULA_START) and not is_number(c)]
    return found


@pytest.fixture(scope="module")
def hostile_table(tmp_path_factory) -> Path:
    import numpy as np

    rng = np.random.default_rng(0)
    rows = [{"algorithm": a, "benchmark": b, "seed": s,
             "score": i * 0.1 + rng.normal(0, 0.05) - 0.3}
            for i, a in enumerate(HOSTILE_ALGORITHMS)
            for b in ["-b1", "=cmd|' /C calc'!A0", "b3", "b4", "b5"] for s in range(4)]
    path = tmp_path_factory.mktemp("hostile") / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


ROLES = ["--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
         "--score", "score", "--objective", "maximize", "--kind", "runs"]


def test_no_csv_cell_of_a_report_is_a_formula(hostile_table, tmp_path):
    """Issue 25: names starting with = @ + - were written unquoted (agreement.csv and others)."""
    out = tmp_path / "out"
    code = cli.main(["report", str(hostile_table), *ROLES,
                     "--analyses", "ranks,lmem", "--no-progress", "-o", str(out)])
    assert code == 0
    assert len(list(out.rglob("*.csv"))) >= 5
    assert formula_cells(out) == []
    agreement = (out / "agreement.csv").read_text(encoding="utf-8")
    assert "'-cmd" in agreement and "'@SUM(A1)" in agreement
    assert "'=HYPERLINK(\"\"http://x\"\")" in agreement


@pytest.mark.parametrize("command", ["ranks", "lmem"])
def test_no_csv_cell_of_a_command_is_a_formula(hostile_table, tmp_path, command):
    out = tmp_path / "out"
    assert cli.main([command, str(hostile_table), *ROLES, "-o", str(out)]) in (0, 1)
    assert list(out.glob("*.csv"))
    assert formula_cells(out) == []


def test_write_csv_keeps_numbers_and_neutralises_names_index_and_header(tmp_path):
    frame = pd.DataFrame({"=name": ["-cmd", "-0.5", "\t=1", None], "d": [-0.5, 1.0, -2, None]},
                         index=pd.Index(["@i", "j", "k", "l"], name="+idx"))
    frame["cat"] = pd.Categorical(["=a", "b", "=a", "b"])
    path = write_csv(frame, tmp_path / "t.csv", index=True)
    back = pd.read_csv(path, keep_default_na=False)
    assert list(back.columns) == ["'+idx", "'=name", "d", "cat"]
    assert back["'+idx"].tolist() == ["'@i", "j", "k", "l"]
    assert back["'=name"].tolist() == ["'-cmd", "-0.5", "'\t=1", ""]
    assert back["d"].tolist() == ["-0.5", "1.0", "-2.0", ""]  # numbers, written as numbers
    assert back["cat"].tolist() == ["'=a", "b", "'=a", "b"]
    assert neutralise_cell("\r=1") == "'\r=1" and neutralise_cell("+1e-3") == "+1e-3"


# ----------------------------------------------------------------------------- LaTeX
LONG = "L" * 9_990 + "0123456789"
LATEX_NAMES = ["[x]", "*y", LONG, "é", "東京", "\\input{/etc/passwd}", "%", "$", "&", "#",
               "_", "^", "~", "{", "}", "''q''", "``b``", ",,c", "!`d"]


def latex_comparison(names: list[str]):
    """A comparison on ``names`` by stand-in analyses (every pair decided, a table, a note)."""
    import matplotlib.pyplot as plt
    import numpy as np

    from benchverdict.methods import register_method
    from benchverdict.report.runner import AnalysisRun, ReportFigure, compare
    from benchverdict.results import Results
    from benchverdict.verdict import Effect, Evidence, Scope, Verdict

    for family in ("ranks", "lmem"):
        register_method(f"{family}.fake", family, "a stand-in method for tests", paired=True,
                        unit="benchmark", aspect="centre", assumptions="none",
                        error_control="per comparison", votes=True)

    def runner(name):
        def run(results, options):
            algs = results.algorithms
            out = AnalysisRun(name, "ok")
            for i in range(len(algs)):
                for j in range(i + 1, len(algs)):
                    out.verdicts.append(Verdict(
                        algs[i], algs[j], "a" if (i + j) % 3 else "inconclusive",
                        f"{name}.fake", Scope(), Evidence("p_value", 0.001, options.alpha),
                        results.objective, f"{algs[i]} vs {algs[j]}",
                        effect=Effect("diff", 0.1, 0.05, 0.2), unit="benchmark", n=3))
            fig, ax = plt.subplots()
            ax.bar(range(len(algs)), np.arange(len(algs)) + 1.0)
            out.figures.append(ReportFigure(f"{name}-bars", "Bars", fig, "caption"))
            out.tables["values"] = pd.DataFrame({"algorithm": algs,
                                                 "value": np.arange(len(algs)) * 1.0})
            out.notes.append("a note naming a\tb")
            return out
        return run

    def failing(results, options):
        raise RuntimeError("not needed here")

    rng = np.random.default_rng(0)
    rows = [{"alg": a, "task": b, "seed": s, "trial": t, "acc": 0.5 + 0.01 * i
             + rng.normal(0, .05)}
            for i, a in enumerate(names) for b in ["[b]", "b2"] for s in range(3)
            for t in (1, 2)]
    results = Results.from_frame(pd.DataFrame(rows), algorithm="alg", benchmark="task",
                                 seed="seed", budget="trial", score="acc",
                                 objective="maximize", kind="trials")
    runners = {"ranks": runner("ranks"), "lmem": runner("lmem"), "tuning": failing,
               "dse": failing}
    return compare(results, runners=runners, progress=False)


def test_latex_escape_keeps_optional_arguments_ligatures_and_unicode_out():
    from benchverdict.report.latex import latex_escape

    assert latex_escape("[x]") == "{[}x{]}" and latex_escape("*y") == "{*}y"
    assert latex_escape("a--b") == "a-{}-b" and latex_escape("t-test") == "t-test"
    assert latex_escape("''q''") == "'{}'q'{}'" and latex_escape("O'Brien") == "O'Brien"
    assert latex_escape(",,c") == ",{},c" and latex_escape("a, b") == "a, b"
    assert latex_escape("!`d ``b``") == "!{}`d `{}`b`{}`"
    assert latex_escape("東") == r"\bvu{東}{6771}"
    assert latex_escape("a\tb") == r"a\textbackslash{}x09b"
    assert latex_escape("\\input{/etc/passwd}").replace(r"\allowbreak{}", "") == (
        r"\textbackslash{}input\{/etc/passwd\}")


def test_long_names_are_shortened_by_the_stated_rule_and_stay_distinct():
    from benchverdict._latex_text import MAX_WORD, latex_escape, short_word

    a, b = "x" * 10_000, "x" * 9_999 + "y"
    assert short_word(a) != short_word(b)
    assert len(short_word(a)) < MAX_WORD and short_word("x" * MAX_WORD) == "x" * MAX_WORD
    assert "x" * 41 not in latex_escape(a).replace(r"\allowbreak{}", "")


@pytest.mark.skipif(not __import__("shutil").which("pdflatex"), reason="pdflatex is not installed")
def test_latex_report_on_hostile_names_compiles_fits_and_shows_every_name(tmp_path):
    """Issue 25: "[x]" after \\midrule stopped pdflatex, a 10,000-character name gave
    "Dimension too large", names vanished from the PDF, and lines overflowed."""
    import re
    import shutil

    from benchverdict._latex_text import SHORTENING_RULE, latex_escape, short_word

    path = latex_comparison(LATEX_NAMES).to_latex(tmp_path / "tex")
    tex = path.read_text(encoding="utf-8")
    assert latex_escape(SHORTENING_RULE) in tex
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
         path.name], cwd=path.parent, capture_output=True, text=True, errors="replace",
        timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (path.parent / "report.log").read_text(encoding="utf-8", errors="replace")
    assert "/etc/passwd" not in re.sub(r"\\input\{/etc/passwd\}", "", log.replace("\n", ""))
    overfull = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt", log)]
    assert max(overfull, default=0) < 1, overfull
    if shutil.which("pdftotext") is None:
        return
    text = subprocess.run(["pdftotext", "report.pdf", "-"], cwd=path.parent,
                          capture_output=True, text=True, check=True).stdout
    assert "root:" not in text  # /etc/passwd was not read
    # T1 fonts show ' and ` as the apostrophe and opening-quote glyphs (one glyph per
    # character: no ligature joins two into a double quote).
    flat = "".join(text.split()).replace("\u2019", "'").replace("\u2018", "`")
    shown = {"東京": "[U+6771][U+4EAC]"}  # pdfLaTeX's fonts lack CJK: the code points
    for name in LATEX_NAMES:
        assert short_word(shown.get(name, name)) in flat, name[:20]
    assert "a\\x09b" in flat


# ----------------------------------------------------------------------------- Markdown, HTML
MARKUP_NAMES = ["<img src=x onerror=alert(1)>", "a|b", "|", "[x](javascript:alert(1))",
                "![y](http://evil/y.png)", "<script>alert(2)</script>", "&lt;b&gt;", "`code`",
                "SVM"]


class _Elements(__import__("html.parser").parser.HTMLParser):
    """Every element with its attributes, and the text."""

    def __init__(self):
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def assert_no_injected_markup(html: str, n_figures: int) -> None:
    parser = _Elements()
    parser.feed(html)
    tags = [t for t, _ in parser.elements]
    assert "script" not in tags
    assert tags.count("img") <= n_figures  # the report's own figures only
    for tag, attrs in parser.elements:
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
        assert not str(attrs.get("href", "")).startswith("javascript"), attrs
        assert not str(attrs.get("src", "")).startswith("http://evil"), attrs
    text = "".join(parser.text)
    for name in ("<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "&lt;b&gt;"):
        assert name in text  # shown as text, exactly


@pytest.fixture(scope="module")
def markup_comparison():
    return latex_comparison(MARKUP_NAMES)


def test_markdown_report_names_are_text_in_every_renderer(markup_comparison, tmp_path):
    """Issue 25 asked: can an <img onerror> or a | in a name inject markup in report.md?"""
    md = markup_comparison.to_markdown(tmp_path / "report.md")
    n_figures = md.count("](report_figures/")
    renderers = []
    markdown_it = pytest.importorskip("markdown_it")
    renderers.append(markdown_it.MarkdownIt("commonmark").enable("table").render)
    try:
        import markdown  # Python-Markdown, as MkDocs renders

        renderers.append(lambda text: markdown.markdown(text, extensions=["tables"]))
    except ModuleNotFoundError:
        pass
    for render in renderers:
        html = render(md)
        assert_no_injected_markup(html, n_figures)
        # "|" in a name does not split a table cell: every row of a table has its cells.
        for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
            widths = {len(re.findall(r"<t[dh][ >]", row))
                      for row in re.findall(r"<tr>.*?</tr>", table, flags=re.S)}
            assert len(widths) == 1, widths


def test_html_report_names_are_text(markup_comparison, tmp_path):
    html = markup_comparison.to_html(tmp_path / "report.html")
    assert_no_injected_markup(html, n_figures=0)


def test_a_report_of_an_earlier_version_is_refused_with_the_reason(tmp_path):
    target = tmp_path / "out"
    users_work(target)
    (target / _output.MARKER).write_text(
        "This directory is a benchverdict report. `benchverdict report -o` replaces it as a "
        "whole\nwhen it writes a new report here: do not keep other files in it.\n")
    before = snapshot(target)
    with pytest.raises(_output.OutputError, match="earlier benchverdict version"):
        staged(target, {"a.txt": "new"})
    assert snapshot(target) == before


def test_published_folders_have_the_umask_s_permissions(tmp_path):
    """A report folder (and a leaderboard version) published by renaming a private temporary
    folder gets the mode a plain mkdir would give, not mkdtemp's 0700 (others who may read
    the parent folder could not read the report)."""
    import stat

    from benchverdict.leaderboard import create_leaderboard
    from benchverdict.results import _example_small

    old = os.umask(0o022)
    try:
        target = tmp_path / "report"
        with _output.staged_directory(target) as stage:
            (stage / "a.txt").write_text("x")
        assert stat.S_IMODE(target.stat().st_mode) == 0o755
        assert stat.S_IMODE((target / _output.MARKER).stat().st_mode) == 0o644
        board = tmp_path / "board"
        create_leaderboard(board, _example_small(), analyses=["ranks"])
        assert stat.S_IMODE((board / "versions" / "v0001").stat().st_mode) == 0o755
        assert stat.S_IMODE((board / "site").stat().st_mode) == 0o755  # its current site too
    finally:
        os.umask(old)


@pytest.mark.parametrize("chunk", [1, 7, 50, 10**6])
def test_long_csv_files_are_written_in_chunks_with_the_same_bytes(chunk, tmp_path, monkeypatch):
    # verdicts.csv of a 200-algorithm report (278,600 rows) made the report's memory peak;
    # written chunk by chunk, the file must be byte for byte the one written at once.
    import numpy as np
    import pandas as pd

    from benchverdict import _safe_output

    rng = np.random.default_rng(0)
    n = 123
    frame = pd.DataFrame({
        "name": rng.choice(["=HYPERLINK(x)", "SVM", "-1", "+a", "@b", "x,y", "q\"r"], n),
        "value": np.where(rng.uniform(size=n) < 0.2, np.nan, rng.normal(size=n)),
        "count": rng.integers(-5, 5, n),
        "maybe": pd.array(rng.choice([None, "=x", "y"], n), dtype=object),
        "cat": pd.Categorical(rng.choice(["-c", "d"], n)),
        "flag": rng.uniform(size=n) < 0.5,
    })
    whole = tmp_path / "whole.csv"
    monkeypatch.setattr(_safe_output, "CSV_CHUNK_ROWS", 10**9)
    _safe_output.write_csv(frame, whole)
    monkeypatch.setattr(_safe_output, "CSV_CHUNK_ROWS", chunk)
    chunked = _safe_output.write_csv(frame, tmp_path / "chunked.csv")
    assert chunked.read_bytes() == whole.read_bytes()
    assert "'=HYPERLINK(x)" in whole.read_text(encoding="utf-8")


def test_fast_csv_rows_are_the_bytes_pandas_writes(tmp_path):
    # Long tables' rows are formatted column by column (issue 25: pandas took 3.4 s on the
    # million-row tuning table); the file must be byte for byte pandas' own, and any column
    # the fast path does not know (or a cell it would have to quote) must go to pandas.
    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from benchverdict import _safe_output

    floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                       st.sampled_from([0.0, -0.0, 1e16, 9999999999999998.0, 1e-5, 1e-4,
                                        5e-324, 1.7976931348623157e308, 0.1, 1.0, 123.0]))
    text = st.one_of(
        st.sampled_from(["SVM", "a b", " lead", "x,y", 'q"r', "=f", "-1", "+x", "@s", "é",
                         "\U0001f600", "", "line\nbreak", "cr\rx", "tab\t", "back\\slash",
                         "'", "nan", "None", "\ud800", '"', '""', ",", '"a,b"', "\x0c",
                         "\x85", "\u2028", "\x0b", "\x00"]),
        st.text(alphabet=st.sampled_from(list("ab, \"\n\r=+-@\t'é\u2212\\\x1e")),
                max_size=6))
    fast = ["float", "int", "uint", "bool", "object", "str", "category"]
    kinds = st.one_of(st.lists(st.sampled_from(fast), min_size=2, max_size=5),
                      st.lists(st.sampled_from([*fast, "float32", "Int64", "datetime"]),
                               min_size=1, max_size=5))

    def column(kind, rng_values, n):
        if kind == "float":
            return np.array(rng_values["floats"][:n], dtype=float)
        if kind == "float32":
            with np.errstate(over="ignore"):
                return np.array(rng_values["floats"][:n], dtype=float).astype(np.float32)
        if kind in ("int", "uint", "Int64"):
            values = [abs(v) if kind == "uint" else v for v in rng_values["ints"][:n]]
            return pd.array(values, dtype={"int": "int64", "uint": "uint64",
                                           "Int64": "Int64"}[kind])
        if kind == "bool":
            return np.array([v % 2 == 0 for v in rng_values["ints"][:n]])
        if kind == "datetime":
            return pd.to_datetime(np.array(rng_values["ints"][:n]) % 10**6, unit="s")
        values = [None if t == "\r" else t for t in rng_values["texts"][:n]]
        if kind == "object":  # kept as objects: a lone surrogate is written escaped
            return pd.Series(values, dtype=object).to_numpy()
        values = [v if v is None or not re.search("[\ud800-\udfff]", v) else "s"
                  for v in values]  # pandas' text types cannot hold one
        if kind == "category":
            return pd.Categorical(values)
        return pd.array(values, dtype="str")

    @settings(max_examples=200, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(kinds, st.integers(1, 12),
           st.lists(floats, min_size=12, max_size=12),
           st.lists(st.integers(-2**62, 2**62), min_size=12, max_size=12),
           st.one_of(st.lists(st.sampled_from(["SVM", "RF", "task 1", "naïve", "-x", "=f", "é"]),
                              min_size=12, max_size=12),
                     st.lists(text, min_size=12, max_size=12)))
    def check(kinds_, n, fs, ints, texts):
        values = {"floats": fs, "ints": ints, "texts": texts}
        frame = pd.DataFrame(index=range(n))
        for i, k in enumerate(kinds_):  # an object Series stays objects (no text inference)
            made = column(k, values, n)
            frame[f"c{i}_{k}"] = pd.Series(made, dtype=object) if k == "object" else made
        expected, got = tmp_path / "pandas.csv", tmp_path / "fast.csv"
        _safe_output._neutralised(frame).to_csv(expected, index=False,
                                               errors="backslashreplace")
        _safe_output.write_csv_parts([frame], got)
        assert got.read_bytes() == expected.read_bytes()

    check()
    # The fast path is taken where it applies (quoting cells as the csv module does), and
    # not where a cell holds a line break or a NUL.
    plain = pd.DataFrame({"a": ["x", None, "=y"], "k": [1.5, np.nan, -0.0], "n": [1, 2, 3]})
    assert _safe_output._csv_body(_safe_output._neutralised(plain)) == (
        "x,1.5,1\n,,2\n'=y,-0.0,3\n")
    assert _safe_output._csv_body(plain.assign(a=["x,y", 'q"r', ""])) == (
        '"x,y",1.5,1\n"q""r",,2\n,-0.0,3\n')
    assert _safe_output._csv_body(plain.assign(a=["a\nb", "z", "w"])) is None
    assert _safe_output._csv_body(plain.assign(a=["a\rb", "z", "w"])) is None
    assert _safe_output._csv_body(plain.assign(k=plain["k"].astype("float32"))) is None


def test_a_lone_surrogate_beside_a_formula_name_is_written_escaped(tmp_path):
    # Neutralising a text column rebuilt it with Series.map, which infers a text type
    # that cannot hold a lone surrogate (a name read with surrogateescape): it raised.
    from benchverdict import _safe_output

    frame = pd.DataFrame({"k": [1, 2]})
    frame["algorithm"] = pd.Series(["=x", "bad\ud800name"], dtype=object)
    path = _safe_output.write_csv(frame, tmp_path / "t.csv")
    assert path.read_bytes() == b"k,algorithm\n1,'=x\n2,bad\\ud800name\n"


def test_fast_csv_rows_only_where_pandas_writes_a_plain_local_file(tmp_path, monkeypatch):
    # Review findings: pandas compresses by suffix, expands "~" and ends lines with
    # os.linesep; rows appended by open() corrupted a .gz file, missed "~" and mixed line
    # ends. Each must give pandas' own bytes (compressed files: their decompressed text).
    import gzip
    import os

    from benchverdict import _safe_output

    monkeypatch.setattr(_safe_output, "CSV_CHUNK_ROWS", 3)
    frame = pd.DataFrame({"algorithm": ["a", "=b", "c", "d", "e"],
                          "score": [0.5, float("nan"), -1.25, 1e-7, 3.0]})
    expected = _safe_output._neutralised(frame).to_csv(index=False)

    gz = _safe_output.write_csv(frame, tmp_path / "t.csv.gz")
    assert gzip.decompress(gz.read_bytes()).decode() == expected
    monkeypatch.setenv("HOME", str(tmp_path))
    _safe_output.write_csv(frame, "~/home.csv")
    assert (tmp_path / "home.csv").read_text(encoding="utf-8") == expected
    monkeypatch.setattr(os, "linesep", "\r\n")
    crlf = _safe_output.write_csv(frame, tmp_path / "crlf.csv")
    assert crlf.read_bytes() == _safe_output._neutralised(frame).to_csv(
        index=False).encode() and b"\r\n" in crlf.read_bytes()
    assert _safe_output._plain_local_file(tmp_path / "x.csv")
    assert not any(_safe_output._plain_local_file(p) for p in (
        "~/x.csv", "s3://bucket/x.csv", tmp_path / "x.csv.zip", tmp_path / "x.csv.bz2"))
    # A NUL in a cell goes to the csv module, whatever the Python version makes of it.
    assert _safe_output._csv_body(frame.assign(algorithm=["a\x00b", "c", "d", "e", "f"])) is None
