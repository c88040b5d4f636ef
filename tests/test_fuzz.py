"""Fuzz the command line with hostile tables (issue 10, "Done when").

More than 200 generated tables (tests/hostile.py: hostile names, control
characters, bytes names, invalid rows, duplicate keys, booleans, degenerate
scores, odd designs and budgets, broken files, command-line mistakes, and
harmless transformations of a base table) go through ``benchverdict
validate`` and ``benchverdict report``. The contract, for each:

* the command ends with the documented exit code: 0 for a clean result, 1
  for invalid data or a failed analysis, 2 for a usage error; which ones a
  case allows is part of the case;
* never a traceback, never raw Python wording (``on_invalid=``) on the
  command line, and the words a clear message must contain are there;
* never a hang: each in-process run is bounded by a timer (SIGALRM), the
  heavy ones run in a real process with a timeout and a memory limit;
* a clean report is complete and sound: report.json parses, no output holds
  a NUL byte, every SVG parses, figure files and LaTeX labels are unique;
* never a silently changed answer: where the table is a harmless
  transformation of the base table, the verdicts in report.json, mapped back
  to the base's names, equal the base's.

Most reports run one analysis (``--analyses``, rotating through the four);
a sample runs the full report.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import traceback
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

import hostile
from benchverdict.cli import main
from hostile import Case

# Names outside matplotlib's fonts and the modules' own warnings are not what is tested.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")

CASES = hostile.all_cases()
#: Text that must never reach a user of the command line.
FORBIDDEN = ("Traceback (most recent call last)", "on_invalid=")
SRC = Path(__file__).resolve().parents[1] / "src"
#: Output files that are text (PDFs are binary and hold NUL bytes legitimately).
TEXT_SUFFIXES = (".html", ".md", ".json", ".tex", ".csv", ".svg")


class Hang(BaseException):
    """Raised by the timer; a BaseException so that no ``except Exception`` swallows it."""


@dataclass
class Outcome:
    code: int | str
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + "\n" + self.err


def run_in_process(argv: list[str], timeout: float) -> Outcome:
    """``benchverdict ARGV`` in this process, bounded by a timer."""
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise Hang(f"no answer after {timeout:g} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: int | str = main(argv)
            except SystemExit as exit_:  # argparse's usage errors
                code = exit_.code if isinstance(exit_.code, int) else (
                    0 if exit_.code is None else 2)
            except Hang:
                code = "hang"
            except BaseException:  # a traceback that escaped main()
                code = "raised"
                err.write(traceback.format_exc())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(code, out.getvalue(), err.getvalue())


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    limit = 6 * 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_subprocess(argv: list[str], timeout: float, cwd: Path) -> Outcome:
    """``benchverdict ARGV`` in a real process, with a timeout and a 6 GiB memory limit."""
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run([sys.executable, "-m", "benchverdict.cli", *argv], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired as err:
        return Outcome("hang", str(err.stdout or ""), str(err.stderr or ""))
    return Outcome(done.returncode, done.stdout, done.stderr)


def classify(command: str, outcome: Outcome) -> str:
    """``clean``, ``problems`` (validate's exit 1 after a clean read), ``invalid``, ``usage``."""
    if outcome.code == 0:
        return "clean"
    if outcome.code == 1:
        if command == "validate" and "PROBLEMS:" in outcome.out and "INVALID" not in outcome.out:
            return "problems"
        return "invalid"
    if outcome.code == 2:
        return "usage"
    return f"exit {outcome.code}"


def report_argv(case: Case, path: Path, out_dir: Path) -> list[str]:
    argv = ["report", str(path), *case.args, "--no-progress"]
    extra = list(case.report_args)
    if "--out-is-a-file" in extra:
        extra.remove("--out-is-a-file")
        target = out_dir.parent / "report-target"
        target.write_text("not a directory")
        argv += ["-o", str(target)]
    else:
        argv += ["-o", str(out_dir)]
    if case.analyses is not None:
        argv += ["--analyses", case.analyses]
    return argv + extra


def run(case: Case, argv: list[str], cwd: Path) -> Outcome:
    if case.subprocess:
        return run_subprocess(argv, case.timeout, cwd)
    return run_in_process(argv, case.timeout)


def check_outcome(case: Case, command: str, outcome: Outcome, allowed: set[str],
                  problems: list[str]) -> str:
    """The exit code is allowed, the output is free of tracebacks, messages are clear.

    Violations are appended to ``problems`` (so that one case reports all of them).
    """
    kind = classify(command, outcome)
    tail = outcome.text[-2000:]
    if outcome.code == "hang":
        problems.append(f"{command} hung (no answer after {case.timeout:g} s)")
        return kind
    if kind not in allowed:
        problems.append(f"{command}: {kind}, expected one of {sorted(allowed)}:\n{tail}")
    for text in (*FORBIDDEN, *case.forbid):
        if text in outcome.text:
            problems.append(f"{command} printed {text!r}:\n{tail}")
    if kind in ("invalid", "usage"):
        lowered = outcome.text.strip().lower()
        if not lowered:
            problems.append(f"{command} failed without a message")
        for alternatives in case.mention:
            if not any(w.lower() in lowered for w in alternatives):
                problems.append(f"{command}: the message names none of {alternatives}:\n{tail}")
    return kind


# ============================================================================ reports
def check_report_dir(out_dir: Path) -> dict:
    """A clean report is complete: JSON, no NUL bytes, valid SVGs, unique figure files."""
    doc = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "benchverdict.report"
    bad = [(a["name"], a["status"], a["reason"][:200]) for a in doc["analyses"]
           if a["status"] not in ("ok", "not applicable")]
    assert not bad, f"analyses did not run cleanly: {bad}"
    for path in out_dir.rglob("*"):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            assert b"\x00" not in path.read_bytes(), f"{path.relative_to(out_dir)}: NUL byte"
    svgs = sorted((out_dir / "report_figures").glob("*.svg"))
    for svg in svgs:
        try:
            ET.fromstring(svg.read_bytes())
        except ET.ParseError as err:
            raise AssertionError(f"{svg.name} is not well-formed XML: {err}") from None
    links = re.findall(r"\]\((report_figures/[^)]+\.svg)\)",
                       (out_dir / "report.md").read_text(encoding="utf-8"))
    assert len(links) == len(set(links)) == len(svgs), (
        f"report.md embeds {len(links)} figure(s) ({len(set(links))} distinct) but "
        f"report_figures/ holds {len(svgs)}: figure file names collide")
    tex = (out_dir / "latex" / "report.tex").read_text(encoding="utf-8")
    labels = re.findall(r"\\label\{fig:([^}]*)\}", tex)
    pdfs = sorted((out_dir / "latex" / "figures").glob("*.pdf"))
    assert len(labels) == len(set(labels)) == len(pdfs), (
        f"report.tex has {len(labels)} figure label(s) ({len(set(labels))} distinct) for "
        f"{len(pdfs)} PDF file(s): figure file names collide; duplicated: "
        f"{[k for k, n in Counter(labels).items() if n > 1][:4]}")
    return doc


def canonical_verdicts(doc: dict, alg_map: dict[str, str] | None,
                       bench_map: dict[str, str] | None) -> Counter:
    """Verdicts of report.json in the base's names, pair in a fixed order, as a multiset."""
    def back(name, mapping):
        if name is None or mapping is None:
            return name
        return mapping.get(name, f"<not an input name: {name!r}>")

    out: Counter = Counter()
    for v in doc["verdicts"]:
        a, b = back(v["a"], alg_map), back(v["b"], alg_map)
        outcome = v["outcome"]
        if a > b:
            a, b = b, a
            outcome = {"a": "b", "b": "a"}.get(outcome, outcome)
        scope = v["scope"]
        winner = {"a": a, "b": b}.get(outcome)
        out[(a, b, v["method"], back(scope["benchmark"], bench_map), scope["budget_low"],
             scope["budget_high"], tuple(map(tuple, scope["metafeature"])), outcome,
             winner)] += 1
    return out


_BASE_REPORTS: dict[tuple, dict] = {}


def base_report(analyses: str | None, directory: Path) -> dict:
    """The base table's report with the same analyses (cached for the session)."""
    key = (analyses,)
    if key not in _BASE_REPORTS:
        path = hostile.write_frame(hostile.base_frame(), directory / "base", "csv")
        out_dir = directory / "base-report"
        argv = ["report", str(path), *hostile.ROLE_ARGS, "--no-progress", "-o", str(out_dir)]
        if analyses is not None:
            argv += ["--analyses", analyses]
        outcome = run_in_process(argv, 120.0)
        assert outcome.code == 0, f"the base report failed:\n{outcome.text[-3000:]}"
        _BASE_REPORTS[key] = check_report_dir(out_dir)
    return _BASE_REPORTS[key]


def compare_with_base(case: Case, doc: dict, tmp_path_factory) -> None:
    base = base_report(case.analyses, tmp_path_factory.mktemp("base"))
    before = canonical_verdicts(base, None, None)
    after = canonical_verdicts(doc, case.alg_map, case.bench_map)
    lost, gained = before - after, after - before
    assert not lost and not gained, (
        f"{case.id}: the verdicts changed although the table only changed harmlessly.\n"
        f"  only in the base report: {sorted(lost, key=repr)[:8]}\n"
        f"  only in this report:     {sorted(gained, key=repr)[:8]}")
    statuses = [(a["name"], a["status"]) for a in doc["analyses"]]
    assert statuses == [(a["name"], a["status"]) for a in base["analyses"]]


# ============================================================================ the tests
def test_at_least_200_hostile_tables():
    tables = [c for c in CASES if c.kind != "usage"]
    assert len(tables) >= 200, len(tables)
    kinds = Counter(c.kind for c in CASES)
    assert {"names", "control", "bytes", "invalid rows", "duplicates", "booleans", "scores",
            "design", "budgets", "files", "usage", "harmless"} <= set(kinds)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_table(case: Case, tmp_path, tmp_path_factory):
    problems: list[str] = []
    path = case.make(tmp_path)
    if case.validate:
        argv = ["validate", str(path), *case.args]
        check_outcome(case, "validate", run(case, argv, tmp_path), case.validate, problems)
    if case.report:
        out_dir = tmp_path / "report"
        outcome = run(case, report_argv(case, path, out_dir), tmp_path)
        if check_outcome(case, "report", outcome, case.report, problems) == "clean":
            try:
                doc = check_report_dir(out_dir)
                for check in case.checks:
                    check(case, doc, out_dir)
                if case.alg_map is not None or case.bench_map is not None:
                    compare_with_base(case, doc, tmp_path_factory)
            except AssertionError as err:
                problems.append(f"report: {err}")
    assert not problems, f"{case.id}:\n- " + "\n- ".join(problems)


def test_booleans_in_scores_are_treated_one_way(tmp_path):
    """A boolean score column and booleans inside a numeric column get the same treatment."""
    kinds = {}
    for case in (c for c in CASES if c.kind == "booleans"):
        directory = tmp_path / case.id
        directory.mkdir()
        path = case.make(directory)
        kinds[case.id] = classify("validate", run_in_process(
            ["validate", str(path), *case.args], case.timeout))
    assert len(set(kinds.values())) == 1, f"booleans are treated differently: {kinds}"


# ============================================================================ subprocesses
#: A handful of cases through a real process, to catch what in-process runs cannot see
#: (the exit status of the interpreter, output encoding, import-time failures).
SUBPROCESS_SAMPLE = ["names-dollar-alg-csv", "control-rlo-alg-csv", "file-empty",
                     "file-corrupt-gzip", "usage-unknown-adapter", "rows-nan-score-raise"]


@pytest.mark.parametrize("case_id", SUBPROCESS_SAMPLE)
def test_hostile_table_in_a_real_process(case_id, tmp_path):
    case = next(c for c in CASES if c.id == case_id)
    case = Case(**{**case.__dict__, "subprocess": True, "timeout": 120.0})
    problems: list[str] = []
    path = case.make(tmp_path)
    check_outcome(case, "validate", run(case, ["validate", str(path), *case.args], tmp_path),
                  case.validate, problems)
    out_dir = tmp_path / "report"
    if check_outcome(case, "report", run(case, report_argv(case, path, out_dir), tmp_path),
                     case.report, problems) == "clean":
        try:
            doc = check_report_dir(out_dir)
            for check in case.checks:
                check(case, doc, out_dir)
        except AssertionError as err:
            problems.append(f"report: {err}")
    assert not problems, f"{case.id}:\n- " + "\n- ".join(problems)


def test_validate_into_a_closed_pipe_is_quiet(tmp_path):
    """``benchverdict validate FILE | head -1``: no 'Broken pipe' message, no traceback.

    The reader closes the pipe before the command writes anything, so every write
    meets a closed pipe (as after ``head -1`` has exited). Exit codes 0, 1 (Python's
    documented recipe) and the SIGPIPE status are all quiet; a message is not.
    """
    path = hostile.write_frame(hostile.base_frame(), tmp_path / "base", "csv")
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    producer = subprocess.Popen(
        [sys.executable, "-m", "benchverdict.cli", "validate", str(path), *hostile.ROLE_ARGS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    producer.stdout.close()
    try:
        _, err = producer.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        producer.kill()
        raise
    err_text = err.decode("utf-8", errors="replace")
    for text in ("Broken pipe", "BrokenPipeError", "Traceback", "Errno"):
        assert text not in err_text, err_text
    assert producer.returncode in (0, 1, 128 + signal.SIGPIPE, -signal.SIGPIPE), (
        producer.returncode, err_text)
