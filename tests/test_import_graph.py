"""No import circle among the data layer and the engines, not even one type checkers see.

``tests/test_layering.py`` checks the imports that run. This test is
stricter for the modules that the split of ``results`` (issue 21, item 7)
untangled: ``benchverdict.results*``, ``benchverdict.describe``,
``benchverdict._dask*`` and ``benchverdict.lmem*``. Every import counts as an
edge here, at module level, inside a function, and under
``if TYPE_CHECKING:`` alike: a circle that only type checkers follow is
still two modules that cannot be read one after the other. The whole
package is checked too and has no circle: the report's renderers read only
the document model (issue 21, item 3), so the runner imports them and they
never import it back.
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


def test_the_whole_package_has_no_circle():
    found = circles(import_graph())
    assert not found, f"import circles (counting function-level and TYPE_CHECKING imports): {found}"


#: The report's renderers: each reads only the document model (issue 21, item 3).
RENDERERS = ("benchverdict.report.html", "benchverdict.report.markdown",
             "benchverdict.report.latex", "benchverdict.report.json_format",
             "benchverdict.report.terminal")
#: What a renderer may import from the report package: the document model and its prose.
RENDERER_MAY_IMPORT = {"benchverdict.report.document", "benchverdict.report.prose"}


def _report_imports(module: str, tree: ast.AST | None = None) -> list[tuple[str, list[str]]]:
    """(source module, imported names) of every ``benchverdict.report`` import of ``module``.

    ``from benchverdict.report import prose`` counts as an import of the
    module ``benchverdict.report.prose``; anywhere in the file, TYPE_CHECKING
    blocks and functions included. ``tree`` replaces the module's source.
    """
    path = MODULES[module]
    tree = tree or ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith(f"{PACKAGE}.report")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if not source.startswith(f"{PACKAGE}.report"):
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.append((sub, []) if sub in MODULES else (source, [alias.name]))
    return out


def _private_imports(module: str, tree: ast.AST | None = None) -> list[tuple[str, str, str]]:
    """(module, source, name): underscore names ``module`` imports from other report modules."""
    return [(module, source, n) for source, names in _report_imports(module, tree)
            for n in names if n.startswith("_") and source != module]


def test_the_checker_sees_report_imports_of_every_form():
    planted = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from benchverdict.report import prose, render\n"
        "from .document import Table\n"
        "import benchverdict.report.summary\n"
        "if TYPE_CHECKING:\n    from benchverdict.report.runner import Comparison\n"
        "def f():\n    from benchverdict.report.render import _fmt\n")
    found = _report_imports("benchverdict.report.html", planted)
    assert {source for source, _ in found} == {
        "benchverdict.report.prose", "benchverdict.report.render",
        "benchverdict.report.document", "benchverdict.report.summary",
        "benchverdict.report.runner"}
    assert _private_imports("benchverdict.report.html", planted) == [
        ("benchverdict.report.html", "benchverdict.report.render", "_fmt")]


def test_renderers_import_only_the_document_model_from_the_report():
    """html, markdown, latex, JSON and terminal read the document, never the Comparison."""
    assert set(RENDERERS) <= set(MODULES)
    for module in RENDERERS:
        sources = {source for source, _ in _report_imports(module)}
        assert sources <= RENDERER_MAY_IMPORT, (
            f"{module} imports {sorted(sources - RENDERER_MAY_IMPORT)} from the report")
    graph = import_graph()
    for module in RENDERERS:
        reached = {t for t in graph[module] if t.startswith(f"{PACKAGE}.report")}
        assert reached <= RENDERER_MAY_IMPORT, (module, reached)
    # The model imports nothing of the package: a renderer cannot reach the runner through it.
    for module in RENDERER_MAY_IMPORT:
        assert not {t for t in graph[module] if t.startswith(PACKAGE)} - RENDERER_MAY_IMPORT


def test_no_report_module_imports_a_private_name_of_another():
    """The renderers' old way of sharing (``from render import _summary``) is gone everywhere.

    A report module shares with another through public names only.
    """
    found = [x for module in MODULES if module.startswith(f"{PACKAGE}.report")
             for x in _private_imports(module)]
    assert not found, f"private names imported across report modules: {found}"
