"""A leaderboard as a small static web site that works offline.

:func:`render_site` turns one version of a board, its rows and its history
into files (paths relative to the site folder)::

    index.html            the ranked table: sortable, filterable by name and benchmarks
    entry/<slug>.html     one page per entry: its results, relations and history
    changes.html          what moved in this version and the 19 before, every version's size
    site.css  site.js     shared by every page
    history.json          position and mean rank of every entry in every version
    SHA256SUMS            the SHA-256 of every other file (``sha256sum -c`` checks them)

The pages make no network request: no CDN, font or image from elsewhere; a
Content-Security-Policy that allows only the site's own script and style
(``'self'``) says so to the browser, and there is no inline code or event
handler (the index's numbers are a JSON data block that ``site.js``
parses). Every name is escaped with :func:`html.escape`; file names of
entries are :func:`slug` (ASCII letters, digits and a hash of the name), so
no name can lead out of the folder, and two names share a page only on a
40-bit hash collision, which is refused.

**What the filters mean.** Positions, mean-rank intervals and ratings come
from every compared benchmark; they are not re-tested for a subset. When
benchmarks are filtered (by metafeature, or one by one) the page adds the
column *mean rank on the selected benchmarks*, computed in the browser from
each entry's rank on each benchmark (among all entries, seeds averaged
first), and a banner says that nothing is re-tested. A numeric metafeature
with more than :data:`MAX_LEVELS` distinct values is split at its median.

**Effect sizes.** An entry page shows, per relation, the status
(``equivalent`` where the board has a margin), the deciding families, the
adjusted p-value and the report's mean score difference with its interval
simultaneous over all pairs (the board's ``difference*`` relation columns).
For a board stored before it kept them, the page computes a plainly
labelled descriptive difference instead: the mean over benchmarks of the
difference of seed-mean scores, with a 95% t interval over the benchmarks
as units (marginal, not adjusted for the many pairs). Neither settles
anything; the status does.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

#: The site's folder inside a board folder and inside each version folder.
SITE = "site"
#: The site file that lists the SHA-256 of every other one (the manifest records its own).
SUMS = "SHA256SUMS"
#: The site file with every entry's position in every version (read by the next version).
HISTORY = "history.json"
HISTORY_SCHEMA = "benchverdict.leaderboard-history"
#: Prefix of the stored rows' metafeature columns (``data.parquet``).
METAFEATURE_PREFIX = "metafeature:"
#: A numeric metafeature with at most this many distinct values is filtered by value;
#: one with more is split at its median.
MAX_LEVELS = 6
#: Versions whose changes the history keeps (and the changes page shows).
CHANGES_KEPT = 20
#: Level of the descriptive intervals of the mean score differences.
DIFFERENCE_CONFIDENCE = 0.95
_SLUG_CHARS = 40
_NAV = ('<nav><a href="{up}index.html">Leaderboard</a> · '
        '<a href="{up}changes.html">Changes</a></nav>')
# Only the site's own files may load; nothing from the network, no inline script.
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'")


def slug(name: str) -> str:
    """The file-name stem of an entry's page: ASCII words of ``name`` and a hash of it.

    Two names share a slug only if their SHA-256 agree in 40 bits (the
    hash is of the whole name, so names that differ only in what is
    dropped still differ; :func:`render_site` refuses a clash), and a slug holds only
    ``a-z``, ``0-9`` and ``-``: no separator, no leading dot.

    Examples
    --------
    >>> slug("../up"), slug("Ünïcødé"), slug("<img src=x onerror=alert(1)>")[:20]
    ('up-8c722b8ae2', 'unicde-bef14f670c', 'img-src-x-onerror-al')
    >>> slug("a b") != slug("a_b")
    True
    """
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:_SLUG_CHARS].strip("-")
    return f"{words or 'entry'}-{digest}"


def with_metafeatures(table: pd.DataFrame, results: Any) -> pd.DataFrame:
    """``table`` (rows of ``results``, in order) with the results' metafeature columns.

    They are stored as ``metafeature:<name>`` so that no metafeature name
    can shadow a stored column, and as text (``None`` where missing): two
    submissions may carry one as numbers and as labels, and one column of
    text always stores (:func:`benchmark_groups` reads numbers back). A
    table of results without metafeatures is returned unchanged.

    Examples
    --------
    >>> from benchverdict.examples import load_example
    >>> res = load_example().subset(algorithms=["LR", "RF"])
    >>> t = with_metafeatures(res.table[["algorithm", "benchmark"]].reset_index(drop=True), res)
    >>> [c for c in t.columns if c.startswith(METAFEATURE_PREFIX)]
    ['metafeature:n_samples', 'metafeature:n_features', 'metafeature:n_classes']
    >>> t["metafeature:n_classes"].iloc[0]
    '6'
    """
    names = tuple(getattr(results, "metafeatures", ()) or ())
    if not names:
        return table
    table = table.copy()
    for name in names:
        values = results.table[name].reset_index(drop=True).astype(object)
        table[f"{METAFEATURE_PREFIX}{name}"] = [
            None if pd.isna(v) else (repr(float(v)) if isinstance(v, float) else str(v))
            for v in values]
    return table


# ----------------------------------------------------------------------------- the numbers
def benchmark_scores(board: Any, table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seed-mean score and rank of every compared entry on every benchmark.

    The rows are those the board ranks: the compared entries on the compared
    benchmarks and seeds, each run's incumbent at the board's final budget,
    and the runs the ``"impute"`` policy filled. Ranks are among all entries
    on benchmarks where every entry has a score (1 = best, ties share the
    mean rank), so their mean over benchmarks is the board's mean rank.

    Returns
    -------
    scores, ranks : pandas.DataFrame
        Benchmarks x entries (the board's order); ``ranks`` only has the
        benchmarks every entry scored.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.leaderboard import build_leaderboard
    >>> res = _example_small()
    >>> board = build_leaderboard(res, analyses=["ranks"], arena=False)
    >>> scores, ranks = benchmark_scores(board, res.table)
    >>> ranks.mean().tolist() == board.entries["mean_rank"].tolist()
    True
    """
    design = board.compared_design
    names = [str(a) for a in board.entries["algorithm"]]
    if not names:
        empty = pd.DataFrame(columns=names, dtype=float)
        return empty, empty
    rows = table[table["algorithm"].astype(str).isin(names)
                 & table["benchmark"].astype(str).isin(design.benchmarks)
                 & table["seed"].astype(str).isin(design.seeds)]
    if design.final_budget is not None and "budget" in rows.columns and len(rows):
        from benchverdict.results import Results

        rows = Results.from_frame(
            rows[["algorithm", "benchmark", "seed", "score", "budget"]].reset_index(drop=True),
            algorithm="algorithm", benchmark="benchmark", seed="seed", score="score",
            budget="budget", objective=design.objective, kind=design.kind,
            min_algorithms=1).incumbents(design.final_budget).table
    runs = rows[["algorithm", "benchmark", "seed", "score"]].astype(
        {"algorithm": str, "benchmark": str, "seed": str})
    imputed = getattr(board, "imputed", None)
    if imputed is not None and len(imputed):
        runs = pd.concat([runs, imputed[["algorithm", "benchmark", "seed", "score"]].astype(
            {"algorithm": str, "benchmark": str, "seed": str})], ignore_index=True)
    scores = (runs.groupby(["benchmark", "algorithm"])["score"].mean().unstack()
              .reindex(index=[b for b in design.benchmarks], columns=names).astype(float))
    scores = scores.dropna(axis=0, how="all")
    complete = scores.dropna(axis=0, how="any")
    values = complete.to_numpy()
    ranks = stats.rankdata(-values if design.objective == "maximize" else values,
                           axis=1, method="average") if len(complete) else values
    return scores, pd.DataFrame(ranks, index=complete.index, columns=names)


def benchmark_groups(table: pd.DataFrame, benchmarks: Sequence[str]
                     ) -> list[dict[str, Any]]:
    """The metafeature filters: for each stored metafeature, its groups of benchmarks.

    A text metafeature (or a numeric one with at most :data:`MAX_LEVELS`
    values) is grouped by value; a numeric one with more is split at its
    median (``<= median`` and ``> median``), and the label says so. A column
    that varies within a benchmark (a per-run metric or cost the board shows
    beside the score) describes runs, not benchmarks, and gives no filter.

    Examples
    --------
    >>> t = pd.DataFrame({"benchmark": list("pqrs"), "metafeature:size": [1.0, 2, 3, 4],
    ...                   "metafeature:kind": ["x", "y", "x", None]})
    >>> [(g["name"], [x["label"] for x in g["groups"]]) for g in benchmark_groups(t, "pqrs")]
    [('size', ['1', '2', '3', '4']), ('kind', ['x', 'y', '(none)'])]
    >>> runs = pd.DataFrame({"benchmark": list("ppqq"), "metafeature:seconds": [1.0, 2, 3, 4]})
    >>> benchmark_groups(runs, "pq")
    []
    """
    out = []
    columns = [c for c in table.columns if str(c).startswith(METAFEATURE_PREFIX)]
    if not columns:
        return out
    by_benchmark = table.groupby(table["benchmark"].astype(str))[columns]
    constant = by_benchmark.nunique(dropna=False).max(axis=0) <= 1
    columns = [c for c in columns if bool(constant.get(c, True))]
    if not columns:
        return out
    first = by_benchmark.first()[columns]
    first = first.reindex(list(benchmarks))
    for column in columns:
        values = first[column]
        name = str(column)[len(METAFEATURE_PREFIX):]
        numeric = pd.to_numeric(values, errors="coerce")
        groups: list[dict[str, Any]] = []
        if values.notna().any() and numeric.notna().sum() == values.notna().sum():
            levels = sorted(numeric.dropna().unique())
            if len(levels) > MAX_LEVELS:
                median = float(numeric.median())
                for label, keep in ((f"<= {median:g} (median)", numeric <= median),
                                    (f"> {median:g} (median)", numeric > median)):
                    groups.append({"label": label, "benchmarks": _positions(keep)})
            else:
                for level in levels:
                    groups.append({"label": f"{level:g}",
                                   "benchmarks": _positions(numeric == level)})
        else:
            for level in sorted(values.dropna().astype(str).unique()):
                groups.append({"label": level,
                               "benchmarks": _positions(values.astype(str) == level)})
        missing = values.isna()
        if missing.any():
            groups.append({"label": "(none)", "benchmarks": _positions(missing)})
        out.append({"name": name, "groups": groups, "values": [
            None if pd.isna(v) else (f"{n:g}" if pd.notna(n) else str(v))
            for v, n in zip(values, numeric, strict=True)]})
    return out


def _positions(mask: pd.Series) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask.to_numpy(dtype=bool))]


def mean_differences(scores: pd.DataFrame, confidence: float = DIFFERENCE_CONFIDENCE
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Mean over benchmarks of the seed-mean score difference of each pair, with t intervals.

    ``diff[i, j]`` is entry ``i`` minus entry ``j``, averaged over the
    benchmarks every entry scored; the interval is the t interval of that
    mean with the benchmarks as units (marginal: one pair at a time, no
    adjustment for the others). NaN bounds with fewer than two benchmarks.

    Examples
    --------
    >>> s = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 1.0, 3.0]})
    >>> diff, low, high, n = mean_differences(s)
    >>> [round(float(x[0, 1]), 3) for x in (diff, low, high)], n
    ([0.667, -0.768, 2.101], 3)
    """
    complete = scores.dropna(axis=0, how="any").to_numpy(dtype=float)
    n, k = complete.shape
    pairs = complete[:, :, None] - complete[:, None, :]
    mean = pairs.mean(axis=0) if n else np.full((k, k), np.nan)
    if n < 2:
        nan = np.full((k, k), np.nan)
        return mean, nan, nan, n
    half = (stats.t.ppf(0.5 + confidence / 2, n - 1)
            * pairs.std(axis=0, ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half, n


# ----------------------------------------------------------------------------- history
def new_history() -> dict[str, Any]:
    """An empty history (no version yet)."""
    return {"schema": HISTORY_SCHEMA, "schema_version": 1, "versions": []}


def add_version(history: dict[str, Any] | None, board: Any,
                changes: Sequence[Any] = ()) -> dict[str, Any]:
    """``history`` with ``board``'s version (replacing a record of the same number).

    Each record keeps every entry's position and mean rank; the last
    :data:`CHANGES_KEPT` records also keep what moved (``changes``: kind and
    sentence), so the changes page shows recent versions' diffs while the
    history of a board of many versions stays small.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.leaderboard import build_leaderboard
    >>> board = build_leaderboard(_example_small(), analyses=["ranks"], arena=False)
    >>> add_version(None, board)["versions"][0]["entries"]
    [['a', '1-2', 1.0], ['b', '1-2', 2.0]]
    """
    history = new_history() if history is None else history
    record = {"version": int(board.version), "created": str(board.created),
              "entries": [[str(r.algorithm), str(r.position), _number(r.mean_rank)]
                          for r in board.entries.itertuples()],
              "incomplete": [str(a) for a in board.incomplete["algorithm"]],
              "changes": [[str(c.kind), str(c.text)] for c in changes]}
    kept = [v for v in history["versions"] if v["version"] < board.version]
    old = len(kept) + 1 - CHANGES_KEPT
    kept = [({k: x for k, x in v.items() if k != "changes"} if i < old else v)
            for i, v in enumerate(kept)]
    return {**history, "versions": [*kept, record]}


def read_history(data: bytes) -> dict[str, Any]:
    """A history from its JSON bytes; ``ValueError`` if it is not one."""
    history = json.loads(data.decode("utf-8"))
    if not isinstance(history, dict) or history.get("schema") != HISTORY_SCHEMA:
        raise ValueError("not a leaderboard history")
    for record in history["versions"]:
        if not (isinstance(record.get("version"), int)
                and isinstance(record.get("entries"), list)):
            raise ValueError("a version record of the history is malformed")
    return history


def history_of(boards: Iterable[Any]) -> dict[str, Any]:
    """The history of a board's versions (oldest first), for boards stored before sites."""
    history = new_history()
    for board in boards:
        history = add_version(history, board)  # their changes are in each changes.md
    return history


def _number(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


# ----------------------------------------------------------------------------- rendering
def render_site(board: Any, table: pd.DataFrame, changes: Sequence[Any],
                history: dict[str, Any] | None = None) -> dict[str, bytes]:
    """The site of one version: file path (relative to the site folder) -> bytes.

    Parameters
    ----------
    board : Leaderboard
        The version to show.
    table : pandas.DataFrame
        Every stored row (columns ``algorithm``, ``benchmark``, ``seed``,
        ``score``, optionally ``budget`` and ``metafeature:<name>``).
    changes : sequence of Change
        What moved in this version (:func:`~benchverdict.leaderboard.changes_between`).
    history : dict, optional
        The history up to the previous version (:data:`HISTORY` of its
        site); this version is added.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.leaderboard import build_leaderboard, changes_between
    >>> board = build_leaderboard(_example_small(), analyses=["ranks"], arena=False)
    >>> files = render_site(board, _example_small().table, changes_between(None, board))
    >>> sorted(files)  # doctest: +NORMALIZE_WHITESPACE
    ['SHA256SUMS', 'changes.html', 'entry/a-ca978112ca.html', 'entry/b-3e23e81600.html',
     'history.json', 'index.html', 'site.css', 'site.js']
    """
    names = [str(a) for a in board.entries["algorithm"]]
    slugs = {slug(a) for a in names}
    if len(slugs) < len(names):  # a 40-bit hash collision: never seen, but never silent
        raise ValueError("two entries' names share a page name (slug); rename one of them.")
    history = add_version(history, board, changes)
    scores, ranks = benchmark_scores(board, table)
    groups = benchmark_groups(table, list(ranks.index))
    files: dict[str, str | bytes] = {
        "site.css": _CSS, "site.js": _JS,
        "index.html": _index_page(board, ranks, groups),
        "changes.html": _changes_page(board, changes, history),
        HISTORY: json.dumps(history, ensure_ascii=False, separators=(",", ":")),
    }
    files.update(_entry_pages(board, scores, ranks, history, table))
    out = {name: data if isinstance(data, bytes) else data.encode("utf-8")
           for name, data in files.items()}
    out[SUMS] = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n"
                        for name, data in sorted(out.items())).encode("utf-8")
    return out


def check_sums(files: dict[str, bytes]) -> list[str]:
    """The site files whose SHA-256 differs from :data:`SUMS` (or that it does not list).

    Examples
    --------
    >>> files = {"a.html": b"x"}
    >>> files[SUMS] = f"{hashlib.sha256(b'x').hexdigest()}  a.html\\n".encode()
    >>> check_sums(files), check_sums({**files, "a.html": b"y"})
    ([], ['a.html'])
    """
    listed = {}
    for line in files.get(SUMS, b"").decode("utf-8", "replace").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    return sorted(name for name, data in files.items()
                  if name != SUMS and listed.get(name) != hashlib.sha256(data).hexdigest())


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _page(title: str, body: str, up: str = "") -> str:
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_esc(title)}</title><link rel=\"stylesheet\" href=\"{up}site.css\">"
            f"<script src=\"{up}site.js\" defer></script></head><body>"
            f"{_NAV.format(up=up)}{body}</body></html>\n")


def _json_block(element_id: str, data: Any) -> str:
    # A data block, never executed; <, > and & escaped so no name can close the element.
    text = (json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    return f"<script type=\"application/json\" id=\"{element_id}\">{text}</script>"


def _fmt(value: Any, digits: int = 2) -> str:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return "-"
    return f"{value:.{digits}f}" if math.isfinite(value) else "-"


def _key(value: Any) -> str:
    """A cell's numeric sort key (``data-v``, 7 significant digits); empty for a missing number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return ""
    return f"{value:.7g}" if math.isfinite(value) else ""


def _th(label: str, title: str = "") -> str:
    hint = f" title=\"{_esc(title)}\"" if title else ""
    return f"<th tabindex=\"0\" aria-sort=\"none\"{hint}>{_esc(label)}</th>"


def _interval(low: Any, high: Any) -> str:
    if _fmt(low) == "-" or _fmt(high) == "-":
        return "no interval (too few benchmarks)"
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _index_page(board: Any, ranks: pd.DataFrame, groups: list[dict[str, Any]]) -> str:
    ratings = board._ratings()
    benchmarks = [str(b) for b in ranks.index]
    rows = []
    for i, r in enumerate(board.entries.itertuples()):
        name = str(r.algorithm)
        bt = ratings.loc[name] if name in ratings.index else None
        bt_text = "-" if bt is None else _rating(bt)
        rows.append(
            f"<tr data-i=\"{i}\"><td data-v=\"{r.best_position * 1e6 + r.worst_position:.0f}\">"
            f"{_esc(r.position)}</td><td><a href=\"entry/{slug(name)}.html\">{_esc(name)}</a>"
            f"</td><td data-v=\"{_key(r.mean_rank)}\">{_fmt(r.mean_rank)}</td>"
            f"<td data-v=\"{_key(r.mean_rank_lower)}\">"
            f"{_interval(r.mean_rank_lower, r.mean_rank_upper)}</td>"
            f"<td data-v=\"{'' if bt is None else _key(bt['bt_rating'])}\">{_esc(bt_text)}</td>"
            f"<td data-v=\"{r.better_than}\">{r.better_than}</td>"
            f"<td data-v=\"{r.worse_than}\">{r.worse_than}</td>"
            f"<td>{_esc(r.settled_by or '-')}</td>"
            f"<td class=\"bv-subset\" data-v=\"\" hidden>-</td></tr>")
    head = "".join([
        _th("position", "position range settled by the relations (1 = best)"),
        _th("entry"), _th("mean rank", "mean over all compared benchmarks; 1 = best"),
        _th("interval", f"{board.confidence:.0%} simultaneous interval of the mean rank"),
        _th("BT rating", "Bradley-Terry rating with its bootstrap interval"),
        _th("settled above", "entries it is settled (or implied) better than"),
        _th("settled below", "entries settled (or implied) better than it"),
        _th("settled by"),
    ]) + ("<th tabindex=\"0\" aria-sort=\"none\" class=\"bv-subset\" hidden "
          "title=\"mean of the ranks on the selected benchmarks, computed in your browser; "
          "not re-tested\">mean rank on selected</th>")
    data = {"benchmarks": benchmarks,
            "ranks": [[_number(x) for x in ranks[c]] for c in ranks.columns],
            "names": [str(c) for c in ranks.columns], "groups": groups}
    selects = "".join(
        f"<label>{_esc(g['name'])} <select class=\"bv-group\" data-g=\"{j}\">"
        f"<option value=\"\">all</option>" + "".join(
            f"<option value=\"{k}\">{_esc(x['label'])} ({len(x['benchmarks'])})</option>"
            for k, x in enumerate(g["groups"])) + "</select></label> "
        for j, g in enumerate(groups))
    boxes = "".join(
        f"<label><input type=\"checkbox\" class=\"bv-bench\" value=\"{k}\" checked> "
        f"{_esc(b)}" + "".join(
            f" <small>{_esc(g['name'])}={_esc(g['values'][k])}</small>" for g in groups
            if g["values"][k] is not None) + "</label>"
        for k, b in enumerate(benchmarks))
    how = ("" if groups else
           " (the submissions carried no metafeatures to filter by)")
    filters = (
        f"<section class=\"bv-filters\"><label>Entry name contains "
        f"<input type=\"search\" id=\"bv-name\" autocomplete=\"off\"></label> {selects}"
        f"<button type=\"button\" id=\"bv-reset\">Reset filters</button>"
        f"<details><summary>Benchmarks ({len(benchmarks)}): choose them one by one{how}"
        f"</summary><div class=\"bv-benches\">{boxes}</div>"
        f"</details></section>"
        f"<p id=\"bv-banner\" class=\"bv-banner\" role=\"status\" hidden></p>")
    d = board.design
    incomplete = "".join(f"<li><b>{_esc(r.algorithm)}</b>: {_esc(r.reasons)}</li>"
                         for r in board.incomplete.itertuples())
    notes = "".join(f"<li>{_esc(n)}</li>" for n in board.notes)
    body = (
        f"<h1>Leaderboard <small>version {int(board.version)}"
        f"{', ' + _esc(board.created) if board.created else ''}</small></h1>"
        f"<p class=\"headline\">{_esc(board.headline)}</p>"
        f"<p>{len(board.entries)} entries on {_esc(board._scope_text())}, {_esc(d.objective)}, "
        f"compared at {_esc(_budget(d))}. Positions rest only on relations settled with "
        f"{_esc(board._error_text())} ({_esc(board._families_text())}); entries sharing a "
        f"position are not separated. Click a column heading to sort, a name for the entry's "
        f"results, relations and history.</p>"
        + "".join(f"<p class=\"note\">{_esc(t)}</p>" for t in board._policy_texts())
        + filters
        + (f"<p class=\"note\">Metafeature filters: a numeric metafeature with more than "
           f"{MAX_LEVELS} values is split at its median; the others list their values "
           f"(benchmarks per value in brackets).</p>" if groups else "")
        + f"<table class=\"bv-sortable\" id=\"bv-board\"><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class=\"note\">{_esc(board._guarantee_text())}</p>"
        f"<p class=\"note\">Mean rank over benchmarks (seeds averaged first, 1 = best); "
        f"{_esc(board._interval_text())}.</p>"
        + (f"<p class=\"note\">{_esc(board._arena_text())}</p>" if board.arena is not None
           else "")
        + _metrics_section(board)
        + (f"<h2>{_esc(board._incomplete_heading())}</h2><ul>{incomplete}</ul>"
           if incomplete else "")
        + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
        + _json_block("bv-data", data))
    return _page(f"Leaderboard v{int(board.version)}", body)


def _metrics_section(board: Any) -> str:
    """The other metrics and the cost the board shows beside the score (sortable), or ``""``."""
    table = board._metric_table() if hasattr(board, "_metric_table") else pd.DataFrame()
    if not len(table):
        return ""
    head = "".join(_th(str(h)) for h in ["entry", *table.columns])
    rows = "".join(
        f"<tr><td>{_esc(str(name))}</td>"
        + "".join(f"<td>{_esc(str(v))}</td>" for v in row) + "</tr>"
        for name, row in table.iterrows())
    return (f"<h2>Other metrics and cost</h2><p class=\"note\">"
            f"{_esc(board._metric_text())}</p><table class=\"bv-sortable\" id=\"bv-metrics\">"
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")


def _budget(design: Any) -> str:
    from benchverdict.leaderboard.design import budget_text

    return budget_text(design.final_budget)


def _rating(row: Any) -> str:
    est, low, high = (float(row[k]) for k in ("bt_rating", "bt_lower", "bt_upper"))
    return "-" if not math.isfinite(est) else f"{est:.0f} [{low:.0f}, {high:.0f}]"


def _entry_pages(board: Any, scores: pd.DataFrame, ranks: pd.DataFrame,
                 history: dict[str, Any], table: pd.DataFrame) -> dict[str, str]:
    names = [str(a) for a in board.entries["algorithm"]]
    index = {a: i for i, a in enumerate(names)}
    diff, low, high, n_diff = mean_differences(scores)
    design = board.compared_design
    in_design = table[table["seed"].astype(str).isin(design.seeds)]
    seeds = (in_design.assign(seed=in_design["seed"].astype(str),
                              algorithm=in_design["algorithm"].astype(str),
                              benchmark=in_design["benchmark"].astype(str))
             .groupby(["algorithm", "benchmark"])["seed"].nunique()
             if len(in_design) else pd.Series(dtype=int))
    groups = benchmark_groups(table, list(scores.index))
    relations: dict[str, list[Any]] = {a: [] for a in names}
    for r in board.relations.itertuples():
        for me in (r.a, r.b):
            if me in relations:
                relations[me].append(r)
    by_version = [(v["version"], v.get("created", ""),
                   {e[0]: (e[1], e[2]) for e in v["entries"]}, set(v.get("incomplete", [])))
                  for v in history["versions"]]
    ratings = board._ratings()
    objective = board.design.objective
    # The report's effects when the board carries them (boards built by this version do);
    # otherwise a descriptive difference computed here, labelled as such.
    effects = board.relations.reindex(columns=["difference", "difference_confidence"])
    reported = bool(pd.to_numeric(effects["difference"], errors="coerce").notna().any())
    level = pd.to_numeric(effects["difference_confidence"], errors="coerce").dropna()
    k = len(names)
    if reported:
        effect_text = (
            f"Mean score difference: the report's estimate of this entry's mean score minus the "
            f"other's over benchmarks, with its "
            f"{float(level.iloc[0]) if len(level) else DIFFERENCE_CONFIDENCE:.0%} interval "
            f"simultaneous over all {k * (k - 1) // 2} pairs.")
    else:
        effect_text = (
            f"Mean score difference: this entry minus the other, averaged over the {n_diff} "
            f"benchmarks all entries scored (seeds averaged first), with a "
            f"{DIFFERENCE_CONFIDENCE:.0%} t interval over benchmarks; descriptive and marginal "
            f"(not adjusted for the {k * (k - 1) // 2} pairs), computed for this page.")
    # What every entry's page shares, computed once (a board of 100 entries has 100 pages).
    first_cells = [f"<tr><td>{_esc(b)}</td>" + "".join(
        f"<td>{_esc(g['values'][j] or '-')}</td>" for g in groups)
        for j, b in enumerate(scores.index)]
    score_values = scores.to_numpy(dtype=float)
    rank_values = ranks.reindex(index=scores.index).to_numpy(dtype=float)
    seed_counts = {key: int(n) for key, n in seeds.items()}
    pages = {}
    for i, r in enumerate(board.entries.itertuples()):
        name = str(r.algorithm)
        result_rows = []
        for j, b in enumerate(scores.index):
            rank, score, n_seeds = rank_values[j, i], score_values[j, i], seed_counts.get(
                (name, b), 0)
            result_rows.append(
                f"{first_cells[j]}<td data-v=\"{_key(score)}\">{_score(score)}</td>"
                f"<td>{n_seeds}</td>"
                f"<td data-v=\"{_key(rank)}\">{_fmt(rank, 1)} <small>of {k}</small></td></tr>")
        relation_rows = []
        for rel in relations[name]:
            other = rel.b if rel.a == name else rel.a
            if rel.winner == name:
                direction = "above"
            elif rel.loser == name:
                direction = "below"
            elif rel.status == "equivalent":
                direction = "equivalent"
            else:
                direction = "-"
            if reported:  # the report's effect is a minus b: turn it to this entry's side
                est, lo, hi = (_float(getattr(rel, c)) for c in
                               ("difference", "difference_lower", "difference_upper"))
                if rel.a != name:
                    est, lo, hi = -est, -hi, -lo
            else:
                j = index.get(other)
                est, lo, hi = ((diff[i, j], low[i, j], high[i, j]) if j is not None
                               else (math.nan,) * 3)
            d_text, d_key = "-", ""
            if math.isfinite(est):
                d_key = _key(est)
                d_text = f"{est:+.3g}" + (f" [{lo:+.3g}, {hi:+.3g}]"
                                          if math.isfinite(lo) and math.isfinite(hi) else "")
            why = (f"<br><small>{_esc(rel.reason)}</small>"
                   if rel.status in ("contradicted", "power gap") and rel.reason else "")
            relation_rows.append(
                f"<tr><td><a href=\"{slug(str(other))}.html\">{_esc(other)}</a></td>"
                f"<td>{_esc(rel.status)}{why}</td><td>{direction}</td>"
                f"<td>{_esc(', '.join(_families(rel.families)) or '-')}</td>"
                f"<td data-v=\"{_key(rel.p_value_adjusted)}\">{_p(rel.p_value_adjusted)}</td>"
                f"<td data-v=\"{d_key}\">{d_text}</td></tr>")
        history_rows = []
        for version, created, entries, incomplete in by_version:
            if name in entries:
                position, mean = entries[name]
                history_rows.append(
                    f"<tr><td data-v=\"{version}\">{version}</td><td>{_esc(created[:10])}"
                    f"</td><td>{_esc(position)}</td><td data-v=\"{_key(mean)}\">{_fmt(mean)}"
                    f"</td></tr>")
            elif name in incomplete:
                history_rows.append(f"<tr><td data-v=\"{version}\">{version}</td><td>"
                                    f"{_esc(created[:10])}</td><td>incomplete</td>"
                                    f"<td data-v=\"\">-</td></tr>")
        bt = ratings.loc[name] if name in ratings.index else None
        better = "higher" if objective == "maximize" else "lower"
        body = (
            f"<h1>{_esc(name)}</h1>"
            f"<p class=\"headline\">Position {_esc(r.position)} of {k} in version "
            f"{int(board.version)}: settled above {r.better_than} and below {r.worse_than} "
            f"of the other entries"
            f"{' (by ' + _esc(r.settled_by) + ')' if r.settled_by else ''}.</p>"
            f"<p>Mean rank {_fmt(r.mean_rank)} {_interval(r.mean_rank_lower, r.mean_rank_upper)}"
            f" over {len(ranks)} benchmarks"
            + ("" if bt is None else f"; Bradley-Terry rating {_esc(_rating(bt))}")
            + (f"; {int(r.imputed_runs)} run(s) imputed" if r.imputed_runs else "") + ".</p>"
            f"<h2>Results per benchmark</h2><p class=\"note\">Score: the mean over seeds of "
            f"each run's score at {_esc(_budget(board.design))} ({better} is better); rank: "
            f"among the {k} entries on that benchmark (1 = best, ties share the mean rank).</p>"
            f"<table class=\"bv-sortable\"><thead><tr>{_th('benchmark')}"
            + "".join(_th(g["name"], "metafeature") for g in groups)
            + f"{_th('mean score')}{_th('seeds')}{_th('rank')}</tr></thead>"
            f"<tbody>{''.join(result_rows)}</tbody></table>"
            f"<h2>Relations</h2><p class=\"note\">Status over all benchmarks (settled, implied, "
            f"equivalent, contradicted, power gap, unsettled), whether {_esc(name)} is above or "
            f"below, the families that decide it and the Holm-adjusted p-value. "
            f"{_esc(effect_text)} Positive means a higher score ({better} is better); only "
            f"the status settles anything.</p>"
            f"<table class=\"bv-sortable\"><thead><tr>{_th('other entry')}"
            f"{_th('status')}{_th('direction')}{_th('decided by')}{_th('adjusted p')}"
            f"{_th('mean score difference')}</tr></thead>"
            f"<tbody>{''.join(relation_rows)}</tbody></table>"
            f"<h2>History</h2><table class=\"bv-sortable\"><thead><tr>{_th('version')}"
            f"{_th('date')}{_th('position')}{_th('mean rank')}</tr></thead>"
            f"<tbody>{''.join(history_rows)}</tbody></table>")
        pages[f"entry/{slug(name)}.html"] = _page(name, body, up="../")
    return pages


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _score(value: Any) -> str:
    value = _float(value)
    if not math.isfinite(value):
        return "-"
    return f"{value:.4f}" if 1e-3 <= abs(value) < 1e4 or value == 0 else f"{value:.4g}"


def _p(value: Any) -> str:
    value = _float(value)
    if not math.isfinite(value):
        return "-"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _families(text: Any) -> list[str]:
    from benchverdict.leaderboard.board import family_names

    return family_names(text)


def _changes_page(board: Any, changes: Sequence[Any], history: dict[str, Any]) -> str:
    order = ["replaced", "imputed", "entered", "completed", "incomplete", "subset",
             "newly settled", "no longer settled", "moved", "removed"]

    def diff(moved: Sequence[tuple[str, str]], level: str) -> str:
        parts = []
        for kind in order:
            these = [text for k, text in moved if k == kind]
            if these:
                parts.append(f"<{level}>{_esc(kind.capitalize())} ({len(these)})</{level}><ul>"
                             + "".join(f"<li>{_esc(t)}</li>" for t in these) + "</ul>")
        return "".join(parts) or "<p>Nothing moved.</p>"

    earlier = "".join(
        f"<h2>Version {v['version']} <small>{_esc(v.get('created', ''))}</small></h2>"
        + diff(v["changes"], "h3")
        for v in reversed(history["versions"])
        if v["version"] < board.version and "changes" in v)
    versions = "".join(
        f"<tr><td data-v=\"{v['version']}\">{v['version']}</td><td>{_esc(v.get('created', ''))}"
        f"</td><td data-v=\"{len(v['entries'])}\">{len(v['entries'])}</td>"
        f"<td data-v=\"{len(v.get('incomplete', []))}\">{len(v.get('incomplete', []))}</td></tr>"
        for v in reversed(history["versions"]))
    body = (f"<h1>Changes in version {int(board.version)}</h1>"
            + diff([(c.kind, c.text) for c in changes], "h2") + earlier
            + "<h2>Every version</h2><p class=\"note\">This page shows what moved in the last "
              f"{CHANGES_KEPT} versions; every version's changes are kept in its folder "
              "(versions/vNNNN/changes.md, and its own site), and each entry's page shows its "
              "position in every version.</p>"
            + f"<table class=\"bv-sortable\"><thead><tr>{_th('version')}{_th('published')}"
              f"{_th('ranked entries')}{_th('incomplete')}</tr></thead><tbody>{versions}"
              f"</tbody></table>")
    return _page(f"Leaderboard v{int(board.version)}: changes", body)


_CSS = """\
body{font-family:system-ui,sans-serif;max-width:78em;margin:1.5em auto;padding:0 1em;color:#222}
nav{margin-bottom:1em}nav a{margin-right:.5em}
table{border-collapse:collapse;width:100%;margin:.5em 0 1em}
th,td{padding:.3em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f3f3f3;user-select:none;white-space:nowrap}
th:hover,th:focus{background:#e3e3e3}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td{overflow-wrap:anywhere}
.headline{font-size:1.15em;font-weight:600}.note{color:#555;font-size:.9em}
small{color:#666;font-weight:normal}
.bv-filters{background:#f7f7f7;border:1px solid #ddd;padding:.6em .8em;margin:.8em 0}
.bv-filters label{margin-right:1em;white-space:nowrap}
.bv-benches{columns:18em;margin-top:.4em}.bv-benches label{display:block;white-space:normal}
.bv-banner{background:#fff4d6;border:1px solid #e0b400;padding:.5em .8em}
td.bv-subset,th.bv-subset{background:#fff4d6}
[hidden]{display:none!important}
"""

# Plain JavaScript, no library, no network; runs under the pages' CSP (no inline code).
_JS = """\
(function () {
  'use strict';
  function key(cell) {
    var v = cell.getAttribute('data-v');
    return v === null ? cell.textContent.trim() : v;
  }
  function compare(a, b) {
    if (a === '' && b === '') { return 0; }
    if (a === '') { return 1; }
    if (b === '') { return -1; }
    var x = Number(a), y = Number(b);
    if (!isNaN(x) && !isNaN(y)) { return x - y; }
    return a.localeCompare(b);
  }
  function sortBy(th) {
    var table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
    var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    Array.prototype.forEach.call(th.parentNode.cells, function (c) {
      c.setAttribute('aria-sort', 'none');
    });
    th.setAttribute('aria-sort', dir);
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (p, q) {
      var kp = key(p.cells[col]), kq = key(q.cells[col]);
      var c = compare(kp, kq);
      // Missing values stay last in both directions.
      if (kp === '' || kq === '') { return c; }
      return dir === 'ascending' ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll('table.bv-sortable th').forEach(function (th) {
    th.addEventListener('click', function () { sortBy(th); });
    th.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(th); }
    });
  });

  var block = document.getElementById('bv-data');
  if (!block) { return; }
  var data = JSON.parse(block.textContent);
  var board = document.getElementById('bv-board');
  var nameBox = document.getElementById('bv-name');
  var banner = document.getElementById('bv-banner');
  var selects = document.querySelectorAll('select.bv-group');
  var boxes = document.querySelectorAll('input.bv-bench');
  var total = data.benchmarks.length;
  function selected() {
    var keep = [];
    boxes.forEach(function (b) { if (b.checked) { keep.push(Number(b.value)); } });
    selects.forEach(function (s) {
      if (s.value === '') { return; }
      var group = data.groups[Number(s.getAttribute('data-g'))].groups[Number(s.value)];
      keep = keep.filter(function (k) { return group.benchmarks.indexOf(k) >= 0; });
    });
    return keep;
  }
  function update() {
    var query = nameBox.value.toLowerCase();
    var keep = selected(), subset = keep.length < total;
    Array.prototype.forEach.call(board.tBodies[0].rows, function (row) {
      var i = Number(row.getAttribute('data-i'));
      row.hidden = query !== '' && data.names[i].toLowerCase().indexOf(query) < 0;
      var cell = row.querySelector('td.bv-subset');
      if (!subset || keep.length === 0) {
        cell.setAttribute('data-v', '');
        cell.textContent = '-';
        return;
      }
      var sum = 0;
      keep.forEach(function (k) { sum += data.ranks[i][k]; });
      var mean = sum / keep.length;
      cell.setAttribute('data-v', mean.toFixed(6));
      cell.textContent = mean.toFixed(2);
    });
    board.querySelectorAll('.bv-subset').forEach(function (c) { c.hidden = !subset; });
    banner.hidden = !subset;
    if (subset) {
      banner.textContent = keep.length === 0
        ? 'No benchmark is selected: widen the filter.'
        : keep.length + ' of ' + total + ' benchmarks selected. "Mean rank on selected" is ' +
          'their mean of each entry\\'s rank per benchmark (among all entries), computed ' +
          'here in your browser. Positions, intervals and ratings come from all ' + total +
          ' benchmarks: they are not re-tested for this subset.';
    }
  }
  nameBox.addEventListener('input', update);
  selects.forEach(function (s) { s.addEventListener('change', update); });
  boxes.forEach(function (b) { b.addEventListener('change', update); });
  document.getElementById('bv-reset').addEventListener('click', function () {
    nameBox.value = '';
    selects.forEach(function (s) { s.value = ''; });
    boxes.forEach(function (b) { b.checked = true; });
    update();
  });
  update();
})();
"""
