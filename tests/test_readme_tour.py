"""The README's tour runs unchanged, in its doctest form.

Every fenced ```python block of README.md with ``>>>`` prompts is run as a
doctest, in order, sharing one namespace (a later block uses what an earlier
one made), from the repository root with ``ELLIPSIS`` and
``NORMALIZE_WHITESPACE``. Blocks that read ``../shared/data`` are skipped
when that folder is absent (as are blocks that use a name only such a block
defines); the path is taken from the ``shared_data`` location of conftest.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
from pathlib import Path

import pytest

from conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_ASSIGNED = re.compile(r"^(?:>>>|\.\.\.)\s+(\w+)\s*=", re.M)


def readme_blocks() -> list[str]:
    """The README's python blocks that hold doctest prompts, in order."""
    return [b for b in _BLOCK.findall(README.read_text(encoding="utf-8")) if ">>>" in b]


BLOCKS = readme_blocks()
_NAMESPACE: dict = {}
_SKIPPED_NAMES: set[str] = set()


def _uses(block: str, names: set[str]) -> bool:
    code = "\n".join(line[4:] for line in block.splitlines()
                     if line.startswith((">>> ", "... ")))
    return any(re.search(rf"\b{re.escape(n)}\b", code) for n in names)


def test_the_readme_has_a_tour():
    assert len(BLOCKS) >= 3


_OPTIONAL = ("optuna",)


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("readme-tour")


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_readme_block_runs_unchanged(number, monkeypatch, work_dir):
    block = BLOCKS[number]
    needs_shared = "../shared" in block
    if (needs_shared and not SHARED_DATA.is_dir()) or _uses(block, _SKIPPED_NAMES):
        _SKIPPED_NAMES.update(_ASSIGNED.findall(block))
        pytest.skip("needs ../shared/data, which is absent")
    missing = [m for m in _OPTIONAL
               if f"import {m}" in block and importlib.util.find_spec(m) is None]
    if missing:
        _SKIPPED_NAMES.update(_ASSIGNED.findall(block))
        pytest.skip(f"needs {', '.join(missing)} (the tools extra)")
    monkeypatch.chdir(work_dir)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    text = block.replace("../shared/data", str(SHARED_DATA))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, _NAMESPACE, f"README block {number + 1}", str(README), 0)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=False)
    _NAMESPACE.update(test.globs)
    assert runner.failures == 0, "\n".join(report)
