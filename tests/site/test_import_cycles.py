"""No cycle between the project's files (issue 35): tasks call services, never the other way.

The layers contract (test_import_contracts.py) keeps the top-level packages in order; inside a
package, two modules that import each other (at the top or inside a function) are one module
split in two, and whichever loads first sees the other half-made. grimp, the graph import-linter
builds on, reads every import of the root packages named in pyproject.toml, lazy ones
included; every strongly connected set of modules bigger than one is a cycle, named here with
the imports that close it.
"""

from __future__ import annotations

import sys
import textwrap

import grimp

from tests.site.test_import_contracts import config


def cycles(packages: list[str]) -> list[list[str]]:
    """Every set of modules of `packages` that reach each other through imports (Tarjan)."""
    graph = grimp.build_graph(*packages, include_external_packages=False, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(module: str) -> None:
        nonlocal counter
        index[module] = low[module] = counter
        counter += 1
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_no_two_files_of_the_project_import_each_other():
    found = cycles(config()["root_packages"])
    assert not found, "import cycles between files:\n" + "\n".join(
        " <-> ".join(component) for component in found
    )


def test_the_check_sees_a_cycle_through_a_lazy_import(tmp_path, monkeypatch):
    """A service that imports its tasks inside a function, the tasks importing the service: the
    shape issue 35 found in three places, and one the check must not miss."""
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "services.py").write_text(
        textwrap.dedent(
            """
            def build():
                from . import tasks
                return tasks
            """
        )
    )
    (package / "tasks.py").write_text("from planted import services\n")
    (package / "scheduling.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles(["planted"]) == [["planted.services", "planted.tasks"]]
