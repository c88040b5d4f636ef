"""Hostile results tables for the fuzz test (tests/test_fuzz.py; issue 10, §3-4).

Every table is a small, deterministic variation of one clean base design
(4 algorithms x 3 benchmarks x 4 seeds x 3 random-search trials with planted
gaps between the algorithms), written to disk in one of the formats the
command line reads. Each :class:`Case` says what the command line must do
with it:

* ``"clean"``: exit 0 and a complete report;
* ``"invalid"``: exit 1 with a message that names what is wrong (words the
  message must contain are listed in ``mention``);
* ``"usage"``: exit 2 (a mistake on the command line).

A case may allow more than one outcome where the issue leaves the choice to
the implementation (e.g. control characters in names may be rejected or
neutralised). Cases that are harmless transformations of the base table
(renamed algorithms, other formats, permuted rows, negated scores with the
objective flipped) carry the map back to the base names, and their verdicts
must equal the base's.
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

#: The base design.
ALGORITHMS = ["A", "B", "C", "D"]
BENCHMARKS = ["p", "q", "r"]
SEEDS = [0, 1, 2, 3]  # 12 draws per cell: an even n, where medians are ambiguous
TRIALS = [1, 2, 3]
#: Role options of the base table's columns.
ROLE_ARGS = ["--algorithm", "alg", "--benchmark", "task", "--seed", "seed", "--budget", "trial",
             "--score", "acc", "--objective", "maximize"]
ANALYSES = ("tuning", "dse", "ranks", "lmem")


def base_frame(seed: int = 0) -> pd.DataFrame:
    """4 algorithms with planted gaps (0.08 apart, noise sd 0.03), 3 benchmarks, 4 x 3 runs."""
    rng = np.random.default_rng(seed)
    level = {b: 0.1 * j for j, b in enumerate(BENCHMARKS)}
    rows = []
    for i, alg in enumerate(ALGORITHMS):
        for bench in BENCHMARKS:
            for s in SEEDS:
                for t in TRIALS:
                    score = 0.4 + 0.08 * i + level[bench] + rng.normal(0.0, 0.03)
                    rows.append((alg, bench, s, t, round(float(score), 6)))
    return pd.DataFrame(rows, columns=["alg", "task", "seed", "trial", "acc"])


# ============================================================================ writing
def write_frame(frame: pd.DataFrame, path: Path, fmt: str) -> Path:
    """Write ``frame`` as csv, tsv, jsonl, parquet or csv.gz under ``path`` (suffix added)."""
    if fmt == "csv":
        target = path.with_suffix(".csv")
        frame.to_csv(target, index=False)
    elif fmt == "tsv":
        target = path.with_suffix(".tsv")
        frame.to_csv(target, index=False, sep="\t")
    elif fmt == "jsonl":
        target = path.with_suffix(".jsonl")
        with target.open("w", encoding="utf-8") as handle:
            for record in frame.to_dict("records"):
                handle.write(json.dumps(record, default=_json_default) + "\n")
    elif fmt == "parquet":
        target = path.with_suffix(".parquet")
        frame.to_parquet(target, index=False)
    elif fmt == "csv.gz":
        target = path.with_suffix(".csv.gz")
        frame.to_csv(target, index=False, compression="gzip")
    else:
        raise ValueError(fmt)
    return target


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value))


# ============================================================================ cases
@dataclass
class Case:
    """One hostile table and what the command line must do with it.

    Attributes
    ----------
    id : str
        Test id.
    kind : str
        The family (names, control, invalid rows, budgets, files, usage, ...).
    make : callable
        ``make(directory) -> Path`` writes the table and returns its path.
    args : list of str
        Role options and other flags for both sub-commands.
    validate : set of str
        Allowed outcomes of ``benchverdict validate`` (``"clean"``,
        ``"problems"``: exit 1 with a list of problems, ``"invalid"``,
        ``"usage"``); empty: do not run it.
    report : set of str
        Allowed outcomes of ``benchverdict report``; empty: do not run it.
    mention : tuple of tuple of str
        For ``"invalid"``/``"usage"``: every inner tuple must have one word
        (case-insensitive) in the output.
    analyses : str or None
        ``--analyses`` for the report (``None``: every analysis that applies).
    report_args : list of str
        Extra flags for ``report`` only (e.g. ``--at-budget``).
    alg_map, bench_map : dict or None
        For harmless transformations: the file's names -> the base's names.
        The report's verdicts, mapped back, must equal the base's.
    base_args : list of str or None
        Role options of the base run to compare with (default ROLE_ARGS).
    checks : list of callable
        ``check(case, doc, out_dir)`` run on a clean report (``doc`` is
        report.json).
    forbid : tuple of str
        Text the output must not contain (besides a traceback, never allowed).
    subprocess : bool
        Run through a real ``benchverdict`` process (with a memory limit).
    timeout : float
        Seconds before the case counts as a hang.
    """

    id: str
    kind: str
    make: Callable[[Path], Path]
    args: list[str] = field(default_factory=lambda: list(ROLE_ARGS))
    validate: set[str] = field(default_factory=lambda: {"clean"})
    report: set[str] = field(default_factory=lambda: {"clean"})
    mention: tuple[tuple[str, ...], ...] = ()
    analyses: str | None = "ranks"
    report_args: list[str] = field(default_factory=list)
    alg_map: dict[str, str] | None = None
    bench_map: dict[str, str] | None = None
    base_args: list[str] | None = None
    checks: list[Callable] = field(default_factory=list)
    forbid: tuple[str, ...] = ()
    subprocess: bool = False
    timeout: float = 60.0


def _frame_case(frame_fn: Callable[[], pd.DataFrame], fmt: str, stem: str) -> Callable:
    def make(directory: Path) -> Path:
        return write_frame(frame_fn(), directory / stem, fmt)

    return make


def _bytes_case(content: bytes, name: str) -> Callable:
    def make(directory: Path) -> Path:
        path = directory / name
        path.write_bytes(content)
        return path

    return make


def _rotate(i: int) -> str:
    return ANALYSES[i % len(ANALYSES)]


# ---------------------------------------------------------------------------- names
#: Names that are plain text to a user and something else to a careless renderer, parser or
#: file system: mathtext, LaTeX, HTML, paths, numbers, formulas, scope labels, collisions.
NAME_SETS: dict[str, list[str]] = {
    "dollar": ["$x^$", "cost $5 or $", "$\\undefinedcommand$", "$x$"],  # invalid mathtext
    "backslash": ["a\\b", "\\textbf{x}", "C:\\dir\\", "\\\\"],
    "slash": ["a/b", "../up", "/abs", "x/"],
    "angle": ["<script>alert(1)</script>", "a<b", "a>b", "<"],
    "spaces": ["a b", "x  y", "multi word name", "tab-free"],
    "collide": ["a b", "a_b", "a/b", "a<b"],
    "collide2": ["a.b", "a:b", "a*b", "a?b"],
    "numeric": ["1.1", "1.10", "1.100", "2"],
    "numeric2": ["01", "1", "1.0", "1e0"],
    "numeric3": ["1e3", "1000", "-0", "0"],
    "booleans": ["True", "False", "true", "yes"],
    "unicode": ["Ünïcødé", "算法", "ωmega", "🚀rocket"],
    "long": ["x" * 300, "y" * 300, "z" * 299 + "é", "w" * 250],
    "latex": ["50%", "#1", "a&b", "{x}"],
    "latex2": ["~", "^_", "\\end{document}", "}"],
    "formula": ["x - y", "a:b", "(Intercept)", "a + b"],
    "quotes": ["O'Brien", '"dq"', "a,b", "'"],
    "markdown": ["|pipe|", "*star*", "`tick`", "[link](http://x)"],
    "labels": ["all", "pooled", "Residual", "none"],
    "entities": ["&amp;", "&lt;", "&#x27;", "&"],
    "dots": [".", "..", "...", ".hidden"],
    "case": ["a", "A", "aa", "AA"],
    # Look alike, differ as text (NFD vs NFC; no-break, em and ideographic spaces):
    # refused as look-alike names (issue 25), never silently two entries or merged.
    "lookalike": ["e\u0301", "\u00e9", "A\u030a", "\u00c5"],
    "spaces2": ["a\u00a0b", "a b", "a\u2003b", "a\u3000b"],
}
NAME_FORMATS = ["csv", "jsonl", "parquet", "tsv"]
#: Name sets whose names collide under benchverdict._validation.lookalike_key.
LOOKALIKE_SETS = ("lookalike", "spaces2")


def _renamed(algs: dict[str, str] | None, benches: dict[str, str] | None) -> Callable:
    def frame() -> pd.DataFrame:
        f = base_frame()
        if algs:
            f["alg"] = f["alg"].map(lambda a: algs.get(a, a))
        if benches:
            f["task"] = f["task"].map(lambda b: benches.get(b, b))
        return f

    return frame


def name_cases() -> list[Case]:
    out = []
    for i, (set_name, role) in enumerate(itertools.product(NAME_SETS, ("alg", "bench", "both"))):
        names = NAME_SETS[set_name]
        fmt = NAME_FORMATS[i % len(NAME_FORMATS)]
        algs = dict(zip(ALGORITHMS, names)) if role in ("alg", "both") else None
        bench_names = names[1:] if role == "both" else names[:3]
        benches = dict(zip(BENCHMARKS, bench_names)) if role in ("bench", "both") else None
        if set_name in LOOKALIKE_SETS:
            column = "alg" if role != "bench" else "task"
            out.append(Case(
                id=f"names-{set_name}-{role}-{fmt}", kind="names",
                make=_frame_case(_renamed(algs, benches), fmt, "names"),
                validate={"invalid"}, report={"invalid"},
                mention=((column,), ("look the same",)), analyses=None))
            continue
        out.append(Case(
            id=f"names-{set_name}-{role}-{fmt}", kind="names",
            make=_frame_case(_renamed(algs, benches), fmt, "names"),
            analyses=ANALYSES[(i + i // len(ANALYSES)) % len(ANALYSES)],
            alg_map={v: k for k, v in algs.items()} if algs else None,
            bench_map={v: k for k, v in benches.items()} if benches else None,
            checks=[check_names_kept],
        ))
    return out


def check_names_kept(case: Case, doc: dict, out_dir: Path) -> None:
    """The report lists exactly the file's algorithm and benchmark names, unchanged."""
    if case.alg_map:
        assert sorted(doc["data"]["algorithms"]) == sorted(case.alg_map), (
            f"algorithm names changed: {doc['data']['algorithms']} vs {sorted(case.alg_map)}")
    if case.bench_map:
        assert sorted(doc["data"]["benchmarks"]) == sorted(case.bench_map), (
            f"benchmark names changed: {doc['data']['benchmarks']} vs {sorted(case.bench_map)}")


# ---------------------------------------------------------------------------- control chars
#: Control characters (Cc) and bidirectional overrides/isolates: the issue's NUL and RLO
#: and their kin. Each must be rejected with a clear message or neutralised.
CONTROL = {
    "nul": "a\x00b",
    "rlo": "abc\u202edef",
    "bell": "\x07ring",
    "escape": "\x1b[31mred",
    "tab": "a\tb",
    "newline": "a\nb",
    "cr": "a\rb",
    "del": "a\x7fb",
    "isolate": "\u2066x\u2069",
    "lre": "\u202aleft",
}
CONTROL_CHARS = set("\x00\u202e\x07\x1b\t\n\r\x7f\u2066\u2069\u202a")


def control_cases() -> list[Case]:
    out = []
    for i, (label, bad) in enumerate(CONTROL.items()):
        for role, fmt in itertools.product(("alg", "bench"), ("csv", "jsonl")):
            if label in ("nul", "cr") and fmt == "csv":
                # A NUL byte or a bare CR in a CSV is a problem of the file format (pandas
                # splits the record), not of a name; JSON Lines holds any character.
                continue
            algs = {"A": bad} if role == "alg" else None
            benches = {"p": bad} if role == "bench" else None
            column = "alg" if role == "alg" else "task"
            out.append(Case(
                id=f"control-{label}-{role}-{fmt}", kind="control",
                make=_frame_case(_renamed(algs, benches), fmt, "control"),
                validate={"clean", "invalid"}, report={"clean", "invalid"},
                mention=((column,), ("control", "character", "invisible", "unprintable")),
                analyses=ANALYSES[(i + len(out)) % len(ANALYSES)],
                checks=[check_no_control_characters],
            ))
    return out


def check_no_control_characters(case: Case, doc: dict, out_dir: Path) -> None:
    """Accepted names were neutralised: no control or bidi character reaches any output."""
    for name in [*doc["data"]["algorithms"], *doc["data"]["benchmarks"]]:
        bad = [c for c in name if c in CONTROL_CHARS]
        assert not bad, f"name {name!r} reached the report with control characters {bad}"
    for path in out_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"\x00" not in data, f"{path.name} holds a NUL byte"
            if path.suffix in (".html", ".md", ".json", ".tex", ".csv", ".svg"):
                text = data.decode("utf-8", errors="replace")
                for c in ("\u202e", "\x1b", "\x07", "\u202a", "\u2066"):
                    assert c not in text, f"{path.name} holds the raw character {c!r}"


# ---------------------------------------------------------------------------- bytes names
def bytes_cases() -> list[Case]:
    def frame(algs: bool, benches: bool, raw: bool) -> Callable:
        def make_frame() -> pd.DataFrame:
            f = base_frame()
            if algs:
                f["alg"] = [(b"\xff" + s.encode()) if raw else s.encode() for s in f["alg"]]
            if benches:
                f["task"] = [s.encode() for s in f["task"]]
            return f

        return make_frame

    out = []
    for label, algs, benches, raw in (("alg", True, False, False),
                                      ("bench", False, True, False),
                                      ("both", True, True, False),
                                      ("undecodable", True, False, True)):
        out.append(Case(
            id=f"bytes-{label}-parquet", kind="bytes",
            make=_frame_case(frame(algs, benches, raw), "parquet", "bytes"),
            validate={"clean", "invalid"}, report={"clean", "invalid"},
            mention=(("alg", "task"), ("byte",)),
            analyses=_rotate(len(out)),
            checks=[check_no_bytes_repr],
        ))
    return out


def check_no_bytes_repr(case: Case, doc: dict, out_dir: Path) -> None:
    """Accepted bytes names were decoded: no ``b'...'`` repr stands in for a name."""
    for name in [*doc["data"]["algorithms"], *doc["data"]["benchmarks"]]:
        assert not (name.startswith(("b'", 'b"'))), f"bytes repr {name!r} used as a name"


# ---------------------------------------------------------------------------- invalid rows
def _with_bad(column: str, rows: list[int], value: object) -> Callable:
    def make_frame() -> pd.DataFrame:
        f = base_frame()
        f[column] = f[column].astype(object)
        for r in rows:
            f.loc[r, column] = value
        return f

    return make_frame


INVALID_ROWS = {
    "missing-alg": ("alg", [5], None),
    "missing-bench": ("task", [7, 40], None),
    "missing-seed": ("seed", [3], None),
    "nan-score": ("acc", [2, 99], float("nan")),
    "inf-score": ("acc", [11], float("inf")),
    "neg-inf-score": ("acc", [12], float("-inf")),
    "text-score": ("acc", [13], "oops"),
    "missing-budget": ("trial", [20], None),
    "inf-budget": ("trial", [21], float("inf")),
}


def invalid_row_cases() -> list[Case]:
    out = []
    for i, (label, (column, rows, value)) in enumerate(INVALID_ROWS.items()):
        fmt = "jsonl" if "inf" in label else "csv"
        make = _frame_case(_with_bad(column, rows, value), fmt, "bad")
        out.append(Case(
            id=f"rows-{label}-raise", kind="invalid rows", make=make,
            validate={"invalid"}, report={"invalid"},
            # The message names the column, the first offending row and the command-line fix.
            mention=((column,), (str(rows[0]),), ("--on-invalid",)),
            checks=[], analyses=_rotate(i),
        ))
        out.append(Case(
            id=f"rows-{label}-drop", kind="invalid rows", make=make,
            args=[*ROLE_ARGS, "--on-invalid", "drop"],
            validate={"problems"}, report={"clean"}, analyses=_rotate(i + 1),
            checks=[_excluded_rows(len(rows))],
        ))
    # One row with two problems is one excluded row with two reasons (issue 10, §3).
    def two_problems() -> pd.DataFrame:
        f = base_frame()
        f["alg"] = f["alg"].astype(object)
        f.loc[4, "alg"] = None
        f.loc[4, "acc"] = float("nan")
        f.loc[9, "acc"] = float("nan")
        return f

    out.append(Case(
        id="rows-two-problems-one-row-drop", kind="invalid rows",
        make=_frame_case(two_problems, "csv", "bad"), args=[*ROLE_ARGS, "--on-invalid", "drop"],
        validate={"problems"}, report={"clean"}, analyses="dse",
        checks=[_excluded_rows(2)],
    ))
    return out


def _excluded_rows(n: int) -> Callable:
    def check(case: Case, doc: dict, out_dir: Path) -> None:
        assert doc["data"]["n_excluded_rows"] == n, (
            f"{doc['data']['n_excluded_rows']} excluded rows reported, {n} rows were bad")

    check.__name__ = f"excluded_rows_{n}"
    return check


# ---------------------------------------------------------------------------- duplicates
def duplicate_cases() -> list[Case]:
    def far_apart() -> pd.DataFrame:
        f = base_frame()
        dup = f.iloc[[1]].copy()
        return pd.concat([f, dup], ignore_index=True)  # rows 1 and 108

    def told_apart_by_prior() -> pd.DataFrame:
        f = base_frame()
        f["prior"] = "good"
        bad = f.copy()
        bad["prior"] = "bad"
        bad["acc"] = bad["acc"] - 0.1
        return pd.concat([f, bad], ignore_index=True)

    n = len(base_frame())
    return [
        Case(id="dup-far-apart", kind="duplicates", make=_frame_case(far_apart, "csv", "dup"),
             validate={"invalid"}, report={"invalid"},
             mention=(("share their key", "duplicate"), ("1",), (str(n),))),
        Case(id="dup-prior-column", kind="duplicates",
             make=_frame_case(told_apart_by_prior, "csv", "dup"),
             validate={"invalid"}, report={"invalid"}, mention=(("prior",),)),
        Case(id="dup-drop", kind="duplicates", make=_frame_case(far_apart, "csv", "dup"),
             args=[*ROLE_ARGS, "--on-invalid", "drop"], validate={"problems"},
             report={"clean"}, analyses="tuning", checks=[_excluded_rows(2)]),
    ]


# ---------------------------------------------------------------------------- booleans
def boolean_cases() -> list[Case]:
    def all_bool() -> pd.DataFrame:
        f = base_frame()
        f["acc"] = f["acc"] > 0.6
        return f

    def mixed() -> pd.DataFrame:
        f = base_frame()
        f["acc"] = f["acc"].astype(object)
        f.loc[[0, 5], "acc"] = True
        f.loc[[6], "acc"] = False
        return f

    out = []
    for label, fn, fmt in (("bool-column-csv", all_bool, "csv"),
                           ("bool-column-jsonl", all_bool, "jsonl"),
                           ("bool-in-numbers-jsonl", mixed, "jsonl")):
        out.append(Case(
            id=f"booleans-{label}", kind="booleans", make=_frame_case(fn, fmt, "bools"),
            validate={"clean", "invalid", "problems"}, report={"clean", "invalid"},
            mention=(("acc",), ("bool", "true", "false")), analyses="tuning"))
    return out


# ---------------------------------------------------------------------------- scores
def score_cases() -> list[Case]:
    def transform(fn: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable:
        return lambda: fn(base_frame())

    def constant(f):
        f["acc"] = 0.5
        return f

    def constant_per_algorithm(f):
        f["acc"] = f["alg"].map({"A": 0.2, "B": 0.4, "C": 0.6, "D": 0.8})
        return f

    def grid(f):
        f["acc"] = (f["acc"] * 2).round() / 2
        return f

    def near_ties(f):
        f["acc"] = 0.5 + f["alg"].map({"A": 0.0, "B": 1e-12, "C": 2e-12, "D": 3e-12})
        f["acc"] += f["seed"] * 1e-13
        return f

    def huge(f):
        f["acc"] = f["acc"] * 1e300
        return f

    def tiny(f):
        f["acc"] = f["acc"] * 1e-300
        return f

    def negative(f):
        f["acc"] = f["acc"] - 1e6
        return f

    def one_benchmark_constant(f):
        f = f[f["task"] == "p"].copy()
        f["acc"] = 1.0
        return f

    specs = [
        ("constant", constant, None, []),
        ("constant-per-algorithm", constant_per_algorithm, None, [check_right_winner]),
        ("grid-ties", grid, "lmem", []),
        ("near-ties", near_ties, "lmem", []),
        ("huge", huge, "lmem", [check_right_winner]),
        ("tiny", tiny, "lmem", [check_right_winner]),
        ("offset", negative, "dse", [check_right_winner]),
        ("constant-one-benchmark", one_benchmark_constant, "tuning", []),
        ("huge-ranks", huge, "ranks", [check_right_winner]),
        ("tiny-tuning", tiny, "tuning", [check_right_winner]),
        ("constant-lmem", constant, "lmem", []),
        ("constant-per-algorithm-lmem", constant_per_algorithm, "lmem", [check_right_winner]),
    ]
    return [Case(id=f"scores-{label}", kind="scores",
                 make=_frame_case(transform(fn), "csv", "scores"), analyses=analyses,
                 checks=checks)
            for label, fn, analyses, checks in specs]


def check_right_winner(case: Case, doc: dict, out_dir: Path) -> None:
    """With the planted order A < B < C < D (maximize), no verdict may name the worse one."""
    rank = {a: i for i, a in enumerate(ALGORITHMS)}
    wrong = [v for v in doc["verdicts"]
             if v["outcome"] in ("a", "b")
             and rank[v[v["outcome"]]] < rank[v["b" if v["outcome"] == "a" else "a"]]]
    assert not wrong, (f"{len(wrong)} verdict(s) name the worse algorithm, e.g. "
                       f"{[(w['method'], w['a'], w['b'], w['outcome']) for w in wrong[:4]]}")


# ---------------------------------------------------------------------------- design
def design_cases() -> list[Case]:
    def subset(fn: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable:
        return lambda: fn(base_frame())

    no_bench_args = [a for a in ROLE_ARGS if a not in ("--benchmark", "task")]
    one_alg = subset(lambda f: f[f["alg"] == "A"])
    two_algs = subset(lambda f: f[f["alg"].isin(["A", "D"])])
    one_bench = subset(lambda f: f[f["task"] == "q"])
    one_seed = subset(lambda f: f[f["seed"] == 0])
    # Benchmark "mars": algorithm D lost its seed 2, so a rank block is incomplete there.
    missing_seed = subset(lambda f: f.assign(task=f["task"].replace({"r": "mars"}))
                          .query("not (alg == 'D' and task == 'mars' and seed == 2)"))
    unbalanced_trials = subset(lambda f: f.drop(index=f.index[(f["trial"] == 3)
                                                              & (f["alg"] == "B")]))
    return [
        Case(id="design-one-algorithm", kind="design", make=_frame_case(one_alg, "csv", "d"),
             validate={"invalid"}, report={"invalid"}, mention=(("alg",), ("algorithm",))),
        Case(id="design-two-algorithms", kind="design",
             make=_frame_case(two_algs, "csv", "d"), analyses=None),
        Case(id="design-single-benchmark-no-column", kind="design",
             make=_frame_case(one_bench, "csv", "d"), args=no_bench_args, analyses=None),
        Case(id="design-single-benchmark-column", kind="design",
             make=_frame_case(one_bench, "csv", "d"), analyses="ranks"),
        Case(id="design-one-seed", kind="design", make=_frame_case(one_seed, "csv", "d"),
             analyses="ranks"),
        Case(id="design-missing-seed-in-a-cell", kind="design",
             make=_frame_case(missing_seed, "csv", "d"), validate={"problems"},
             analyses="ranks", checks=[check_mentions(("mars",), ("seed",))]),
        Case(id="design-missing-seed-in-a-cell-lmem", kind="design",
             make=_frame_case(missing_seed, "csv", "d"), validate={"problems"},
             analyses="lmem"),
        Case(id="design-unbalanced-trials", kind="design",
             make=_frame_case(unbalanced_trials, "csv", "d"), validate={"clean", "problems"},
             analyses="tuning"),
        # 120 algorithms: 7,140 pairs, 21,420 verdicts through the whole report path (the
        # speed of 200 x 10 is measured in benchmarks/, not here: tests assert no times).
        Case(id="design-120-algorithms", kind="design", make=many_algorithms(120),
             args=[*ROLE_ARGS[:6], "--score", "acc", "--objective", "maximize", "--kind", "runs"],
             analyses="ranks", subprocess=True, timeout=120.0),
        Case(id="design-25-algorithms-full", kind="design", make=many_algorithms(25),
             args=[*ROLE_ARGS[:6], "--score", "acc", "--objective", "maximize", "--kind", "runs"],
             analyses=None, subprocess=True, timeout=120.0),
    ]


def many_algorithms(n: int) -> Callable:
    """``n`` algorithms on 4 benchmarks, 2 seeds each, HPO-run finals (no budget)."""
    def make(directory: Path) -> Path:
        rng = np.random.default_rng(n)
        rows = [(f"alg{i:04d}", bench, s, float(rng.normal(i / n, 0.2)))
                for i in range(n) for bench in ("p", "q", "r", "s") for s in (0, 1)]
        frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
        return write_frame(frame, directory / f"many{n}", "csv")

    return make


def check_mentions(*words: tuple[str, ...]) -> Callable:
    """One warning, note or sanity line of the report has a word of every tuple in ``words``."""
    def check(case: Case, doc: dict, out_dir: Path) -> None:
        lines = [*doc["warnings"], *(json.dumps(s, ensure_ascii=False) for s in doc["sanity"])]
        for a in doc["analyses"]:
            lines += [*a["notes"], *a["warnings"]]
        hits = [s for s in lines
                if all(any(w.lower() in s.lower() for w in alts) for alts in words)]
        assert hits, f"no warning, note or sanity line mentions {words}: {lines[:8]}"

    check.__name__ = "mentions_" + "_".join(w[0] for w in words)
    return check


# ---------------------------------------------------------------------------- budgets
def budget_cases() -> list[Case]:
    def budgets(fn: Callable[[pd.Series], pd.Series]) -> Callable:
        def make_frame() -> pd.DataFrame:
            f = base_frame()
            f["trial"] = fn(f["trial"].astype(float))
            return f

        return make_frame

    def late_runs() -> pd.DataFrame:
        # Two runs of C on benchmark q start at budget 5, after the requested budget 2.
        f = base_frame()
        sel = (f["alg"] == "C") & (f["task"] == "q") & (f["seed"].isin([0, 1]))
        f.loc[sel, "trial"] = f.loc[sel, "trial"] + 4
        f["alg"] = f["alg"].replace({"C": "Gamma"})
        return f

    specs = [
        ("huge-at-budget", budgets(lambda t: t * 1e9), ["--at-budget", "1e9"], "ranks", True),
        ("huge-full", budgets(lambda t: t * 1e9), ["--at-budget", "2e9"], None, True),
        ("times-1000", budgets(lambda t: t * 1000), [], None, True),
        ("tiny", budgets(lambda t: t * 1e-9), [], "ranks", False),
        ("tiny-at-budget", budgets(lambda t: t * 1e-9), ["--at-budget", "2e-9"], "tuning",
         False),
        ("negative", budgets(lambda t: t - 4), [], "ranks", False),
        ("negative-lmem", budgets(lambda t: t - 4), [], "lmem", False),
        ("fractional", budgets(lambda t: t - 0.5), ["--at-budget", "1.5"], "ranks", False),
        ("fractional-tuning", budgets(lambda t: t - 0.5), ["--at-budget", "1.5"], "tuning",
         False),
        ("zero-start", budgets(lambda t: t - 1), [], "dse", False),
        ("beyond-last", budgets(lambda t: t), ["--at-budget", "1000"], "ranks", False),
    ]
    out = [Case(id=f"budget-{label}", kind="budgets", make=_frame_case(fn, "csv", "budget"),
                report_args=extra, analyses=analyses, subprocess=sub,
                timeout=120.0 if sub else 60.0)
           for label, fn, extra, analyses, sub in specs]
    for analyses in ("ranks", "lmem"):
        out.append(Case(
            id=f"budget-runs-start-after-requested-{analyses}", kind="budgets",
            make=_frame_case(late_runs, "csv", "budget"), report_args=["--at-budget", "2"],
            analyses=analyses,
            checks=[check_mentions(("2",), ("run",), ("excluded", "left out", "dropped",
                                                       "no incumbent", "without", "start"))]))
    return out


# ---------------------------------------------------------------------------- files
def file_cases() -> list[Case]:
    base_csv = base_frame().to_csv(index=False)
    latin = base_frame().assign(alg=lambda f: f["alg"].map(
        {"A": "Ünï", "B": "B", "C": "C", "D": "D"})).to_csv(index=False).encode("latin-1")
    good_gz = gzip.compress(base_csv.encode())
    return [
        Case(id="file-empty", kind="files", make=_bytes_case(b"", "empty.csv"),
             validate={"invalid"}, report={"invalid"}, mention=(("empty",),)),
        Case(id="file-header-only", kind="files",
             make=_bytes_case(b"alg,task,seed,trial,acc\n", "header.csv"),
             validate={"invalid"}, report={"invalid"}, mention=(("no rows", "empty"),)),
        Case(id="file-whitespace-only", kind="files", make=_bytes_case(b"\n\n  \n", "ws.csv"),
             validate={"invalid"}, report={"invalid"}, mention=(("empty", "no rows"),)),
        Case(id="file-non-utf8", kind="files", make=_bytes_case(latin, "latin.csv"),
             validate={"clean", "invalid"}, report={"clean", "invalid"},
             mention=(("utf-8", "utf8", "encoding"),)),
        Case(id="file-corrupt-gzip", kind="files",
             make=_bytes_case(b"\x1f\x8b\x08\x00garbage-not-deflate" * 3, "bad.csv.gz"),
             validate={"invalid"}, report={"invalid"},
             mention=(("gzip", "compress", "corrupt", "decompress"),)),
        Case(id="file-truncated-gzip", kind="files",
             make=_bytes_case(good_gz[: len(good_gz) // 2], "cut.csv.gz"),
             validate={"invalid"}, report={"invalid"},
             mention=(("gzip", "compress", "corrupt", "truncated", "end of"),)),
        Case(id="file-binary-garbage", kind="files",
             make=_bytes_case(bytes(range(256)) * 8, "garbage.csv"),
             validate={"invalid"}, report={"invalid"}, mention=()),
        Case(id="file-ragged-rows", kind="files",
             make=_bytes_case((base_csv + "A,p,9,1,0.5,extra,fields\n").encode(), "ragged.csv"),
             validate={"invalid"}, report={"invalid"}, mention=(("line", "row", "field"),)),
        Case(id="file-missing", kind="files",
             make=lambda d: d / "does-not-exist.csv",
             validate={"invalid", "usage"}, report={"invalid", "usage"},
             mention=(("does-not-exist",),)),
        Case(id="file-unknown-suffix", kind="files", make=_bytes_case(base_csv.encode(), "r.txt"),
             validate={"invalid", "usage"}, report={"invalid", "usage"},
             mention=(("--format",),)),
        Case(id="file-directory-without-parts", kind="files",
             make=lambda d: (d / "emptydir").mkdir() or (d / "emptydir"),
             validate={"invalid", "usage"}, report={"invalid", "usage"},
             mention=(("parquet",),)),
        Case(id="file-missing-column", kind="files",
             make=_bytes_case(base_csv.encode(), "r.csv"),
             args=[*ROLE_ARGS[:-4], "--score", "accuracy", "--objective", "maximize"],
             validate={"invalid"}, report={"invalid"},
             mention=(("accuracy",), ("--score",))),
    ]


# ---------------------------------------------------------------------------- usage
def usage_cases() -> list[Case]:
    base = _frame_case(base_frame, "csv", "base")
    no_objective = ROLE_ARGS[:-2]
    return [
        Case(id="usage-unknown-adapter", kind="usage", make=base,
             args=["--adapter", "no-such-format"], validate={"usage"}, report={"usage"},
             mention=(("no-such-format", "adapter"),)),
        Case(id="usage-missing-objective", kind="usage", make=base, args=no_objective,
             validate={"usage"}, report={"usage"}, mention=(("--objective",),)),
        Case(id="usage-bad-objective", kind="usage", make=base,
             args=[*no_objective, "--objective", "max"], validate={"usage"},
             report={"usage"}, mention=(("objective",),)),
        # A budget below every observation is not a usage error: the report says that no
        # run has an incumbent there (rank tests and LMEM "not applicable", runs counted).
        Case(id="usage-zero-at-budget", kind="usage", make=base, validate=set(),
             report={"clean"}, report_args=["--at-budget", "0"], mention=(("budget",),)),
        Case(id="usage-bad-analyses", kind="usage", make=base, validate=set(),
             report={"usage"}, report_args=["--analyses", "bogus"], analyses=None,
             mention=(("bogus",),)),
        Case(id="usage-bad-confidence", kind="usage", make=base, validate=set(),
             report={"usage"}, report_args=["--confidence", "2"], mention=(("confidence",),)),
        Case(id="usage-debug-after-command", kind="usage", make=base,
             args=[*ROLE_ARGS, "--debug"], validate={"clean"}, report={"clean"}),
        Case(id="usage-out-is-a-file", kind="usage", make=base, validate=set(),
             report={"invalid", "usage"}, report_args=["--out-is-a-file"],
             mention=(("report-target",),), forbid=("[Errno",)),
    ]


# ---------------------------------------------------------------------------- harmless
def harmless_cases() -> list[Case]:
    """Transformations of the base table that must not change a single verdict."""
    identity_algs = {a: a for a in ALGORITHMS}

    def permuted(seed: int) -> Callable:
        return lambda: base_frame().sample(frac=1.0, random_state=seed).reset_index(drop=True)

    def columns_shuffled() -> pd.DataFrame:
        f = base_frame()
        f["junk"] = "x"
        f["note, with comma"] = np.arange(len(f))
        return f[["acc", "junk", "trial", "note, with comma", "seed", "task", "alg"]]

    def negated() -> pd.DataFrame:
        f = base_frame()
        f["acc"] = -f["acc"]
        return f

    def string_seeds() -> pd.DataFrame:
        f = base_frame()
        f["seed"] = "seed-" + f["seed"].astype(str)
        return f

    def renamed_columns() -> pd.DataFrame:
        return base_frame().rename(columns={"alg": "model name", "task": "data set",
                                            "seed": "rep", "trial": "t", "acc": "$acc%"})

    renamed_args = ["--algorithm", "model name", "--benchmark", "data set", "--seed", "rep",
                    "--budget", "t", "--score", "$acc%", "--objective", "maximize"]
    minimize_args = [*ROLE_ARGS[:-1], "minimize"]
    base_csv = base_frame().to_csv(index=False)
    specs: list[tuple[str, Callable, list[str], str | None]] = []
    for i, seed in enumerate((1, 2, 3)):
        specs.append((f"rows-permuted-{seed}", _frame_case(permuted(seed), "csv", "h"),
                      ROLE_ARGS, ANALYSES[i]))
    specs += [
        ("rows-permuted-lmem", _frame_case(permuted(4), "csv", "h"), ROLE_ARGS, "lmem"),
        ("rows-permuted-full", _frame_case(permuted(5), "csv", "h"), ROLE_ARGS, None),
        ("columns-shuffled-extra", _frame_case(columns_shuffled, "csv", "h"), ROLE_ARGS,
         "tuning"),
        ("negated-minimize-tuning", _frame_case(negated, "csv", "h"), minimize_args, "tuning"),
        ("negated-minimize-dse", _frame_case(negated, "csv", "h"), minimize_args, "dse"),
        ("negated-minimize-ranks", _frame_case(negated, "csv", "h"), minimize_args, "ranks"),
        ("negated-minimize-lmem", _frame_case(negated, "csv", "h"), minimize_args, "lmem"),
        ("string-seeds", _frame_case(string_seeds, "csv", "h"), ROLE_ARGS, "ranks"),
        ("renamed-columns", _frame_case(renamed_columns, "csv", "h"), renamed_args, "dse"),
        ("format-tsv", _frame_case(base_frame, "tsv", "h"), ROLE_ARGS, "tuning"),
        ("format-jsonl", _frame_case(base_frame, "jsonl", "h"), ROLE_ARGS, "dse"),
        ("format-parquet", _frame_case(base_frame, "parquet", "h"), ROLE_ARGS, "ranks"),
        ("format-csv-gz", _frame_case(base_frame, "csv.gz", "h"), ROLE_ARGS, "lmem"),
        ("utf8-bom", _bytes_case(b"\xef\xbb\xbf" + base_csv.encode(), "bom.csv"), ROLE_ARGS,
         "tuning"),
        ("crlf", _bytes_case(base_csv.replace("\n", "\r\n").encode(), "crlf.csv"), ROLE_ARGS,
         "dse"),
        ("all-quoted", _bytes_case(base_frame().to_csv(index=False, quoting=1).encode(),
                                   "quoted.csv"), ROLE_ARGS, "ranks"),
    ]
    return [Case(id=f"harmless-{label}", kind="harmless", make=make, args=list(args),
                 analyses=analyses, alg_map=identity_algs,
                 bench_map={b: b for b in BENCHMARKS})
            for label, make, args, analyses in specs]


def all_cases() -> list[Case]:
    cases = [*name_cases(), *control_cases(), *bytes_cases(), *invalid_row_cases(),
             *duplicate_cases(), *boolean_cases(), *score_cases(), *design_cases(),
             *budget_cases(), *file_cases(), *usage_cases(), *harmless_cases()]
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases


# ============================================================================ reader corpus
#: Words pandas reads as missing by default: in name columns they are names (issue 25).
NA_WORDS = ["NA", "N/A", "None", "null", "NaN", "nan", "NULL", "n/a", "<NA>", "#N/A"]
#: Pairs of different names a reader sees as one (issue 25): refused, naming both.
LOOKALIKE_PAIRS = {
    "trailing-space": ("A", "A "), "leading-space": ("A", " A"),
    "zwsp": ("A", "A\u200b"), "zwj": ("A", "\u200dA"), "soft-hyphen": ("A", "A\u00ad"),
    "nfd": ("\u00e9", "e\u0301"), "fullwidth": ("A", "\uff21"), "cyrillic": ("A", "\u0410"),
    "greek": ("A", "\u0391"), "nbsp": ("a b", "a\u00a0b"),
}
READER_FORMATS = ["csv", "tsv", "jsonl", "parquet", "csv.gz"]


@dataclass
class ReaderCase:
    """One file for the readers: it reads with exactly ``names`` or fails with ``reason``.

    ``names`` maps a role column (``alg``, ``task``) to the set of names it must read;
    ``reason`` is the ``Problem.reason`` (or ``"read"`` for a ReadError) it must fail with.
    """

    id: str
    make: Callable[[Path], Path]
    names: dict[str, set] | None = None
    reason: str | None = None


def _names_frame(column: str, mapping: dict[str, str]) -> Callable[[], pd.DataFrame]:
    def make() -> pd.DataFrame:
        frame = base_frame()
        frame[column] = frame[column].map(lambda v: mapping.get(v, v))
        return frame
    return make


def reader_cases() -> list[ReaderCase]:
    """At least 300 generated files through the readers (test_input_hostile.py)."""
    out: list[ReaderCase] = []
    roles = {"alg": ("A", ALGORITHMS), "task": ("p", BENCHMARKS)}
    for word, fmt, (column, (first, all_names)) in itertools.product(
            NA_WORDS, READER_FORMATS, roles.items()):
        names = {**{c: set(v) for c, (_, v) in roles.items()}}
        names[column] = (set(all_names) - {first}) | {word}
        out.append(ReaderCase(id=f"na-{word}-{column}-{fmt}",
                              make=_frame_case(_names_frame(column, {first: word}), fmt, "na"),
                              names=names))
    for word, fmt in itertools.product(NA_WORDS, READER_FORMATS):
        def seeds(word: str = word) -> pd.DataFrame:
            frame = base_frame()
            frame["seed"] = [word if v == 0 else str(v) for v in frame["seed"]]
            return frame
        out.append(ReaderCase(id=f"na-{word}-seed-{fmt}", make=_frame_case(seeds, fmt, "na"),
                              names={c: set(v) for c, (_, v) in roles.items()}))
    for (label, (one, two)), fmt, column in itertools.product(
            LOOKALIKE_PAIRS.items(), READER_FORMATS, roles):
        all_names = roles[column][1]
        mapping = {all_names[0]: one, all_names[1]: two}
        reason = "lookalike_algorithm" if column == "alg" else "lookalike_benchmark"
        out.append(ReaderCase(id=f"lookalike-{label}-{column}-{fmt}",
                              make=_frame_case(_names_frame(column, mapping), fmt, "look"),
                              reason=reason))
    for (label, bad), fmt, column in itertools.product(
            CONTROL.items(), ["jsonl", "parquet"], roles):
        reason = ("control_characters_algorithm" if column == "alg"
                  else "control_characters_benchmark")
        out.append(ReaderCase(id=f"control-{label}-{column}-{fmt}",
                              make=_frame_case(_names_frame(column, {roles[column][0]: bad}),
                                               fmt, "ctl"), reason=reason))
    base_csv = base_frame().to_csv(index=False)
    for where, column in (("alg", "alg"), ("task", "task")):
        for variant, cell in (("mid", "a\0b"), ("end", "a\0"), ("start", "\0a"),
                              ("quoted", '"a\0b"')):
            old = "A" if column == "alg" else "p"
            lines = base_csv.splitlines()
            header = lines[0].split(",")
            index = header.index(column)
            body = []
            for line in lines[1:]:
                cells = line.split(",")
                if cells[index] == old:
                    cells[index] = cell
                body.append(",".join(cells))
            content = ("\n".join([lines[0], *body]) + "\n").encode()
            reason = ("control_characters_algorithm" if column == "alg"
                      else "control_characters_benchmark")
            out.append(ReaderCase(id=f"nul-{variant}-{where}-csv",
                                  make=_bytes_case(content, f"nul-{variant}.csv"),
                                  reason=reason))
    out.append(ReaderCase(id="file-header-only",
                          make=_bytes_case(b"alg,task,seed,trial,acc\n", "header.csv"),
                          reason="empty"))
    for label, content in (("empty", b""),
                           ("binary", bytes(range(256)) * 4),
                           ("latin1", "alg,task,seed,trial,acc\n\xe9,p,0,1,0.5\n".encode(
                               "latin-1"))):
        out.append(ReaderCase(id=f"file-{label}", make=_bytes_case(content, f"{label}.csv"),
                              reason="read"))
    return out
