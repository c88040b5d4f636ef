"""No import circle among the data layer and the engines, not even one type checkers see.

``tests/test_layering.py`` checks the imports that run. This test is
stricter for the modules that the split of ``results`` (issue 21, item 7)
untangled: ``benchverdict.results*``, ``benchverdict.describe``,
``benchverdict._dask*`` and ``benchverdict.lmem*``. Every import counts as an
edge here, at module level, inside a function, and under
``if TYPE_CHECKING:`` alike: a circle that only type checkers follow is
still two modules that cannot be read one after the other. The whole
package is checked too: its one remaining circle (the report's runner and
its renderers, which still read the ``Comparison`` rather than only the
document model) is listed with the step that removes it, and any other
circle fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import benchverdict

SRC = Path(benchverdict.__file__).parent
PACKAGE = "benchverdict"
#: The modules checked: a module is in scope when its name is one of these or starts with one.
SCOPE = ("benchverdict.results", "benchverdict.describe", "benchverdict._dask",
         "benchverdict.lmem")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in SRC.rglob("*.py")}


def in_scope(module: str) -> bool:
    return any(module == s or module.startswith(s + ".") for s in SCOPE)


def _targets(module: str, node: ast.Import | ast.ImportFrom, is_package: bool) -> set[str]:
    """The benchverdict modules an import statement names (a ``from`` list may name modules)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    out = {source}
    for alias in node.names:
        if f"{source}.{alias.name}" in MODULES:
            out.add(f"{source}.{alias.name}")
        elif source == PACKAGE and alias.name in benchverdict._HOMES:
            out.add(f"{PACKAGE}.{benchverdict._HOMES[alias.name]}")
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> modules it imports anywhere (function level and TYPE_CHECKING included).

    Importing ``a.b.c`` also runs the packages ``a.b`` above it, so they are
    edges too, except the importer's own packages (already being imported).
    """
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(module, node, path.name == "__init__.py"):
                parts = target.split(".")
                if parts[0] != PACKAGE:
                    continue
                for i in range(2, len(parts) + 1):
                    name = ".".join(parts[:i])
                    if name in MODULES and name not in own and name != module:
                        edges.add(name)
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def scoped_graph() -> dict[str, set[str]]:
    graph = import_graph()
    return {m: {t for t in targets if in_scope(t)} for m, targets in graph.items()
            if in_scope(m)}


def test_the_graph_sees_function_level_and_type_checking_imports():
    source = ("from typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from benchverdict.results import Results\n"
              "def f():\n    from benchverdict.lmem import fit\n")
    seen = {t for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for t in _targets("benchverdict.describe", node, False)}
    assert {"benchverdict.results", "benchverdict.lmem"} <= seen
    graph = scoped_graph()
    # DaskResults.engine's steps import the partitioned code on use: an edge all the same.
    assert "benchverdict._dask.lmem" in graph["benchverdict._dask.results"]
    assert "benchverdict.results.core" in graph["benchverdict.results"]


def test_the_circle_finder_finds_planted_circles():
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(planted) == [["a", "b", "c"]]


def test_the_circles_the_issue_names_are_gone():
    graph = scoped_graph()
    # results <-> describe: Results.describe passes the canonical frame down.
    assert "benchverdict.describe" in graph["benchverdict.results.core"]
    assert not {t for t in graph["benchverdict.describe"] if t.startswith("benchverdict.results")}
    # _dask/results <-> _dask/describe: DaskResults.describe passes its reductions down.
    assert "benchverdict._dask.describe" in graph["benchverdict._dask.results"]
    assert "benchverdict._dask.results" not in graph["benchverdict._dask.describe"]


def test_no_circle_among_results_describe_dask_and_lmem():
    found = circles(scoped_graph())
    assert not found, f"import circles (counting function-level and TYPE_CHECKING imports): {found}"


def test_the_dask_engine_imports_no_private_name_of_results_or_lmem():
    """The Dask engine shares validation (``results.validation``) and the LMEM's internals
    (``lmem._shared``) through named functions, never through another package's privates."""
    for module, path in MODULES.items():
        if not module.startswith(f"{PACKAGE}._dask"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    (f"{PACKAGE}.results", f"{PACKAGE}.lmem")):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{module} imports {private} from {node.module}"


#: Circles the package still has, each with the step of issue 21 that removes it.
KNOWN_CIRCLES = {
    frozenset({"benchverdict.report.html", "benchverdict.report.latex",
               "benchverdict.report.markdown", "benchverdict.report.render",
               "benchverdict.report.runner"}):
        "item 3: the renderers read only the document model, not the Comparison",
}


def test_the_whole_package_has_no_other_circle():
    found = [c for c in circles(import_graph()) if frozenset(c) not in KNOWN_CIRCLES]
    assert not found, f"import circles (counting function-level and TYPE_CHECKING imports): {found}"
