"""No floor reaches another by a name in a string (issue 35): what import-linter cannot see.

lint-imports (tests/site/test_import_contracts.py) and the floors test (test_import_floors.py)
read `import` statements. A module is also reached by name: `importlib.import_module("x.y")`,
`__import__`, Django's `import_string` and `include("x.urls")`, a model by
`apps.get_model("app", "Model")`, a Celery task by `send_task("x.tasks.job")` or
`signature("x.tasks.job")`, and a task's own `name=` (what a string names it by). Every
production module is parsed (ast) and each such call is mapped to the floor it names; a name in
another floor is a crossing nobody sees, and it fails here, in either direction: downward it
should be a plain import (which the tools check), upward it is an arrow the wrong way.

The site root (settings, urls, celery: see test_import_floors.SITE_ROOT) names every floor by
string by design (INSTALLED_APPS, the beat schedule, the URLconf) and is not checked.
A call whose name is not a string written in the call cannot be mapped: it counts as a
crossing too unless it is listed below with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.site.test_import_floors import module_name, part_of, production_files

# (module, what it names) -> why it stays. Nothing is added here without a reason a reader
# accepts; an entry that no longer matches fails (test_the_exceptions_are_still_needed).
# None today: the tasks are named after the modules they live in, reports/ and demo/ included
# (their own top-level packages since issue 35).
EXCEPTIONS: dict[tuple[str, str], str] = {}

# Calls that reach a module by name: the function's name -> what it names.
MODULE_BY_NAME = {"import_module", "__import__", "import_string", "include"}
MODEL_BY_NAME = {"get_model"}
TASK_BY_NAME = {"send_task", "signature"}
TASK_DECORATORS = {"shared_task", "task"}


def _called(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _app_module(label: str) -> str | None:
    """The module of a Django app label ("classgames" -> "classgames", "reports" ->
    "reports"); None for an app that is not the project's."""
    from django.apps import apps

    try:
        return apps.get_app_config(label).name
    except LookupError:
        return None


def named_by_strings(source: str) -> list[tuple[int, str, str | None]]:
    """(line, what is named, the module it names or None when no string says) for every call
    in `source` that reaches a module, a model or a task by name."""
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        called = _called(node)
        first = _string(node.args[0]) if node.args else None
        if called in MODULE_BY_NAME:
            if called == "include" and node.args and isinstance(node.args[0], ast.List | ast.Tuple):
                continue  # include([...]): the patterns themselves, nothing by name
            found.append((node.lineno, f"module {first}", first))
        elif called in MODEL_BY_NAME:
            label = first.split(".")[0] if first else None
            module = _app_module(label) if label else None
            found.append((node.lineno, f"model {first}", module and f"{module}.models"))
        elif called in TASK_BY_NAME:
            found.append((node.lineno, f"task name {first}", first))
        elif called in TASK_DECORATORS:
            for keyword in node.keywords:
                if keyword.arg == "name":
                    name = _string(keyword.value)
                    found.append((node.lineno, f"task name {name}", name))
    return found


def crossings() -> dict[tuple[str, str], str]:
    """(module, what it names) -> "module:line names <part>" for every name in a string that
    leads out of the module's floor (or cannot be followed), outside the site root."""
    found: dict[tuple[str, str], str] = {}
    for path in production_files():
        module = module_name(path)
        here = part_of(module)
        if here == "site root":
            continue
        for line, what, target in named_by_strings(path.read_text(encoding="utf-8")):
            there = part_of(target) if target else None
            if target is None or there is None:
                found[(module, what)] = f"{module}:{line} names {what}, which no string says"
            elif there != here:
                found[(module, what)] = f"{module}:{line} ({here}) names {what} ({there})"
    return found


def test_no_floor_reaches_another_by_a_name_in_a_string(db):
    unexplained = {key: where for key, where in crossings().items() if key not in EXCEPTIONS}
    assert unexplained == {}


def test_the_exceptions_are_still_needed(db):
    assert sorted(set(EXCEPTIONS) - set(crossings())) == []


def test_the_scan_sees_every_way_of_naming(db):
    """A check that cannot fail is a defect: each way of reaching a module by name is found and
    mapped to the floor it names, and a name no string says is reported as such."""
    source = "\n".join(
        [
            "import importlib",
            "from django.apps import apps",
            "from django.utils.module_loading import import_string",
            "from celery import current_app, shared_task",
            "importlib.import_module('classgames.services')",
            "__import__('games.tasks')",
            "import_string('reports.pdf.render')",
            "apps.get_model('classgames', 'ClassSession')",
            "apps.get_model('reports.WeeklyReport')",
            "current_app.send_task('reports.tasks.sweep_report_jobs')",
            "current_app.signature('games.tasks.sweep_tablets')",
            "shared_task(name='classgames.tasks.play')",
            "importlib.import_module(NAME)",
        ]
    )
    named = [(what, target and part_of(target)) for _line, what, target in named_by_strings(source)]
    assert named == [
        ("module classgames.services", "class games"),
        ("module games.tasks", "games"),
        ("module reports.pdf.render", "reports"),
        ("model classgames", "class games"),
        ("model reports.WeeklyReport", "reports"),
        ("task name reports.tasks.sweep_report_jobs", "reports"),
        ("task name games.tasks.sweep_tablets", "games"),
        ("task name classgames.tasks.play", "class games"),
        ("module None", None),
    ]


def test_the_site_root_alone_may_name_every_floor():
    """The URLconf includes every app's urls by name, and is the site root: not a crossing."""
    urls = Path(__file__).resolve().parents[2] / "kavet_site" / "urls.py"
    assert part_of(module_name(urls)) == "site root"
    targets = [t for _line, _what, t in named_by_strings(urls.read_text(encoding="utf-8"))]
    assert "reports.urls" in targets
