"""One exclusion record and one column set for every producer (issue 21, item 6).

Every table the package produces of what was left out and why has the
columns of :data:`benchverdict.exclusions.EXCLUSION_COLUMNS`, in order; the
tables outputs print are summary views with their own documented columns
(:data:`~benchverdict.exclusions.ROWS_BY_REASON`,
:data:`~benchverdict.exclusions.STEP_SUMMARY`). A second test reads the
source: no module but :mod:`benchverdict.exclusions` defines an exclusion
column set.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchverdict
from benchverdict import Results
from benchverdict.exclusions import (
    EXCLUSION_COLUMNS,
    ROWS_BY_REASON,
    STEP_SUMMARY,
    Exclusion,
    concat_exclusions,
    empty_exclusions,
    exclusions_frame,
    exclusions_table,
    rows_by_reason,
)

SRC = Path(benchverdict.__file__).parent
#: A name that holds an exclusion column set.
COLUMN_SET_NAME = re.compile(r"exclu\w*columns|columns\w*exclu", re.IGNORECASE)


def _late_runs() -> pd.DataFrame:
    """Three benchmarks; on p algorithm B's seed 0 starts at budget 3, row 51 has no score."""
    rows = [{"alg": a, "task": t, "seed": s, "t": b, "y": 0.1 * b + (a == "A") + 0.01 * s}
            for a in ("A", "B") for t in ("p", "q", "r") for s in (0, 1, 2) for b in (1, 2, 3)
            if not (a == "B" and t == "p" and s == 0 and b < 3)]
    frame = pd.DataFrame(rows)
    frame.loc[51, "y"] = np.nan  # B on r, seed 2, budget 3
    return frame


def _results() -> Results:
    return Results.from_frame(_late_runs(), algorithm="alg", benchmark="task", seed="seed",
                              budget="t", score="y", objective="maximize", kind="runs",
                              on_invalid="drop")


def _check(table: pd.DataFrame, what: str) -> None:
    assert tuple(table.columns) == EXCLUSION_COLUMNS, f"{what}: {list(table.columns)}"
    assert len(table), f"{what}: the case should leave something out"
    assert table["unit"].notna().all() and table["reason"].notna().all(), what


def test_the_record_is_the_column_set():
    assert EXCLUSION_COLUMNS == tuple(f.name for f in dataclasses.fields(Exclusion))
    assert tuple(empty_exclusions().columns) == EXCLUSION_COLUMNS
    with pytest.raises(ValueError, match="not exclusion fields"):
        Exclusion.from_mapping({"block": "p"}, unit="cell", reason="x")
    with pytest.raises(ValueError, match="not exclusion columns"):
        exclusions_table(pd.DataFrame({"unit": ["row"], "reasons": ["x"]}))
    with pytest.raises(ValueError, match="no reason"):
        exclusions_table(pd.DataFrame({"unit": ["row"], "row": [1]}))
    with pytest.raises(ValueError, match="needs a unit"):
        Exclusion(unit="", reason="x")


def test_data_layer_tables_have_the_one_column_set():
    res = _results()
    _check(res.exclusions, "Results.exclusions")
    assert res.exclusions[["analysis", "step", "unit", "row", "columns"]].values.tolist() == [
        ["validation", "validation", "row", 51, "y"]]
    view = res.at_budget(2)
    _check(view.exclusions, "Results.at_budget().exclusions")
    runs = view.exclusions[view.exclusions["unit"] == "run"]
    assert runs[["step", "algorithm", "benchmark", "seed", "budget"]].values.tolist() == [
        ["incumbents at budget 2", "B", "p", 0, 2.0]]
    blocks = res.blocks(budget=2, missing="drop")
    _check(blocks.exclusions, "BlockMatrix.exclusions")
    assert set(blocks.exclusions["step"]) == {"rank blocks"}
    seed_blocks = res.blocks(unit="benchmark_seed", budget=2, missing="drop")
    _check(seed_blocks.exclusions, "BlockMatrix.exclusions (benchmark_seed)")
    assert seed_blocks.dropped_blocks == [("p", 0)]


def test_summary_views_keep_their_documented_columns():
    res = _results()
    description = res.describe()
    assert tuple(description.exclusions.columns) == ROWS_BY_REASON
    assert int(description.exclusions["rows"].sum()) == 1
    assert tuple(rows_by_reason(empty_exclusions()).columns) == ROWS_BY_REASON
    # A record without columns is counted, not dropped by the grouping.
    no_columns = exclusions_frame([{"row": 1}], unit="row", reason="filtered")
    assert rows_by_reason(no_columns)["rows"].tolist() == [1]


def test_analysis_tables_have_the_one_column_set():
    from benchverdict import lmem, ranks

    res = _results()
    for rank_by, unit in (("seed", "block"), ("seed_mean", "cell")):
        # At budget 0.5 no run has an incumbent; at 1 B's seed 0 on p has none.
        anytime = ranks.anytime_ranks(res, budgets=[0.5, 1, 3], rank_by=rank_by,
                                      n_resamples=0)
        _check(anytime.exclusions, f"AnytimeRanks.exclusions ({rank_by})")
        assert unit in set(anytime.exclusions["unit"])
    wtl = ranks.win_tie_loss(res, budget=3)
    assert tuple(wtl.excluded.columns) == EXCLUSION_COLUMNS
    late = ranks.win_tie_loss(res, budget=2.5)
    _check(late.excluded, "WinTieLoss.excluded")
    model = lmem.fit(res.at_budget(2), "score ~ algorithm + (1|benchmark)")
    _check(model.exclusions, "MixedModel.exclusions")
    assert lmem.exclusions.counts(model.exclusions) == {"excluded_rows": 1, "excluded_runs": 1}


def test_report_tables_have_the_one_column_set():
    from benchverdict.report import compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(_results(), analyses=["ranks"], budget=2, progress=False, figures=False)
    _check(comp.exclusions, "Comparison.exclusions")
    assert tuple(comp.exclusion_summary.columns) == STEP_SUMMARY
    by_analysis = comp.exclusions.groupby("analysis")["unit"].agg(list).to_dict()
    assert by_analysis["validation"] == ["row"]
    assert "run" in by_analysis["ranks"]
    # Every record, in one table: the summary counts add up to it.
    assert int(comp.exclusion_summary["count"].sum()) == len(comp.exclusions)


def test_adapter_records_join_the_table():
    from benchverdict.io._hpo_runs import with_exclusions

    res = _results()
    extra = pd.DataFrame({"row": ["t7"], "columns": ["state"], "reason": ["failed"]})
    table = with_exclusions(res, extra).exclusions
    _check(table, "with_exclusions")
    assert table["row"].tolist() == [51, "t7"] and set(table["analysis"]) == {"validation"}
    assert concat_exclusions([empty_exclusions(), table]).equals(table)


def test_dask_engine_tables_have_the_one_column_set():
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from benchverdict.io import from_dask_frame

    frame = _late_runs()
    with dask.config.set(scheduler="synchronous"):
        dk = from_dask_frame(dd.from_pandas(frame, npartitions=2, sort=False),
                             algorithm="alg", benchmark="task", seed="seed", budget="t",
                             score="y", objective="maximize", kind="runs",
                             on_invalid="drop")
        _check(dk.exclusions, "DaskResults.exclusions")
        assert tuple(dk.describe().exclusions.columns) == ROWS_BY_REASON


def _column_set_names(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        names += [t.id for t in targets
                  if isinstance(t, ast.Name) and COLUMN_SET_NAME.search(t.id)]
    return names


def test_no_module_but_one_defines_an_exclusion_column_set():
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "exclusions.py":
            continue
        found = _column_set_names(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            offenders[str(path.relative_to(SRC))] = found
    assert not offenders, (
        f"exclusion column sets defined outside benchverdict/exclusions.py: {offenders}; "
        f"import EXCLUSION_COLUMNS (and build records with exclusions_frame) instead")
    # The check itself finds one.
    assert _column_set_names(ast.parse('EXCLUSION_COLUMNS = ("unit", "reason")')) == [
        "EXCLUSION_COLUMNS"]


def test_dask_look_alike_names_in_different_partitions_are_refused():
    """Issue 25: each partition checked its own names, so 'TPE' in one partition and
    'TPE' with a zero-width space in another became two entries."""
    dd = pytest.importorskip("dask.dataframe")
    import dask
    import pandas as pd

    from benchverdict._validation import ValidationError
    from benchverdict.io import from_dask_frame

    rows = [(alg, b, s, 0.5 + 0.1 * i) for i, alg in enumerate(["RS", "TPE", "TPE\u200b"])
            for b in ("p", "q") for s in range(2)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "y"])
    # 'TPE' only in the first partition, its look-alike only in the second.
    ddf = dd.concat([dd.from_pandas(part, npartitions=1)
                     for part in (frame.iloc[:8], frame.iloc[8:])])
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValidationError) as err:
        from_dask_frame(ddf, algorithm="alg", benchmark="task", seed="seed", score="y",
                        objective="maximize", kind="runs")
    text = str(err.value)
    assert "look the same" in text and "'TPE'" in text and "'TPE\\u200b'" in text
