"""Names are text: bytes are decoded, control and bidi characters are refused (issue 10)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchverdict import Results, ValidationError
from benchverdict.cli import main


def frame(**overrides) -> pd.DataFrame:
    df = pd.DataFrame({
        "alg": ["A1", "A1", "A2", "A2"] * 2,
        "task": ["p"] * 4 + ["q"] * 4,
        "rep": [0, 1] * 4,
        "family": ["x"] * 8,
        "acc": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    })
    for column, values in overrides.items():
        df[column] = values
    return df


def build(df, **kw):
    return Results.from_frame(df, algorithm="alg", benchmark="task", seed="rep", score="acc",
                              objective="maximize", metafeatures=["family"], kind="trials",
                              **kw)


def test_bytes_names_are_decoded_not_shown_as_reprs():
    df = frame(alg=[b"A1", b"A1", b"A2", b"A2"] * 2, task=[b"p"] * 4 + [b"q"] * 4)
    res = build(df)
    assert res.algorithms == ["A1", "A2"] and res.benchmarks == ["p", "q"]
    assert res.blocks().matrix.columns.tolist() == ["A1", "A2"]


def test_bytes_that_are_not_utf8_are_refused_with_rows():
    df = frame(alg=[b"A1", b"A1", b"\xe9t\xe9", b"\xe9t\xe9"] * 2)
    with pytest.raises(ValidationError) as err:
        build(df)
    problem = err.value.problems[0]
    assert problem.reason == "undecodable_algorithm" and problem.rows == (2, 3, 6, 7)
    assert "'alg'" in problem.message and "decode" in problem.message


def test_bytes_metafeature_labels_are_decoded():
    res = build(frame(family=[b"x"] * 8))
    assert res.table["family"].tolist() == ["x"] * 8


@pytest.mark.parametrize("bad", ["A\x00", "A\u202e2", "A\t", "A\n", "A\x1b[31m", "A\x85",
                                 "A\u2066", "A\u200f"])
@pytest.mark.parametrize("column", ["alg", "task", "rep", "family"])
def test_control_and_bidi_characters_are_refused(bad, column):
    df = frame()
    df[column] = df[column].astype(str).astype(object)  # seeds as text, so types do not mix
    df.loc[[2, 3], column] = bad
    with pytest.raises(ValidationError) as err:
        build(df)
    problem = next(p for p in err.value.problems if p.reason.startswith("control_characters"))
    assert problem.column == column and problem.rows == (2, 3)
    assert f"'{column}'" in problem.message and "rows 2 and 3" in problem.message
    assert "Fix: remove them" in problem.message
    # Refusing is not droppable: silently dropping an algorithm because of its label is wrong.
    with pytest.raises(ValidationError):
        build(df, on_invalid="drop")


def test_ordinary_unicode_names_pass():
    df = frame(alg=["Ölçü", "Ölçü", "模型 β", "模型 β"] * 2)
    assert build(df).algorithms == ["Ölçü", "模型 β"]


def test_cli_names_the_file_fix_not_python(tmp_path, capsys):
    path = tmp_path / "r.csv"
    frame(alg=["A", "A", "B\u202e", "B\u202e"] * 2).to_csv(path, index=False)
    code = main(["validate", str(path), "--algorithm", "alg", "--benchmark", "task",
                 "--seed", "rep", "--score", "acc", "--objective", "maximize", "--kind",
                 "trials"])
    out = capsys.readouterr().out
    assert code == 1 and "RIGHT-TO-LEFT OVERRIDE" in out and "'alg'" in out
    assert "df[" not in out and "remove them from the names in the file" in out


def test_unused_categories_are_not_names():
    alg = pd.Categorical(["A1", "A1", "A2", "A2"] * 2, categories=["A1", "A2", "unused\x00"])
    assert build(frame(alg=alg)).algorithms == ["A1", "A2"]
    bad = pd.Categorical(["A1", "A1", "A2\x00", "A2\x00"] * 2, categories=["A1", "A2\x00"])
    with pytest.raises(ValidationError, match="NUL"):
        build(frame(alg=bad))
