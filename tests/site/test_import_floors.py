"""The parts of the code stand in floors, each importing only the floors below it (issue 26).

Every production module is parsed (ast) and mapped to its part; every import in it counts, at
the top of the module or inside a function (a lazy import hides a cycle, it does not remove
it), and so does an import under `if TYPE_CHECKING:`. The test fails on an arrow from a part to
a part above it, which is also what any cycle between parts needs; and on a model's relation to
a model of a part above (a foreign key by "app.Model" string imports nothing, yet binds the
schema below to the app above). The floors, bottom to top,
are drawn in README.md ("Layout"):

    site root      kavet_site: urls, settings, celery (the Celery app), asgi, wsgi; manage.py
    demo           demo: the demo school, which fills every floor below
    reports        reports (progress reports, and mail/: the weekly email)
    class games    classgames (sessions, grouping into tables, replay), classgames/board*.py (the
                   class board)
    games          games (tables, seats, moves, tablets, push), but the engine
    people         classrooms: schools, accounts, classes, students, parents, permissions
    infrastructure kavet_site: cache, sessions, client address, throttles, queue, health, pages
    engine         games/engine: the rules, pure Python (no Django, nothing of the project)

An app above is told by the app below through a hook it offers: games.signals (a game over,
games erased, a class game shown), classrooms.signals (a student erased, the retention's
cut-off), classrooms.pages (the panels of the teachers' pages), classrooms.permissions.rules
(each app declares who may read and change its own models).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kavet_site", "classrooms", "games", "classgames")
TOP_LEVEL = ("manage.py",)

# Bottom to top: a part may import its own modules and those of the parts before it.
FLOORS = (
    "engine",
    "infrastructure",
    "people",
    "games",
    "class games",
    "reports",
    "demo",
    "site root",
)
SITE_ROOT = {
    "kavet_site",  # the package itself: it loads the Celery app (kavet_site/__init__.py)
    "kavet_site.urls",
    "kavet_site.settings",
    "kavet_site.celery",
    "kavet_site.asgi",
    "kavet_site.wsgi",
    "manage",
}


def part_of(module: str) -> str | None:
    """The part a module belongs to; None for what is not the project's (Django, the stdlib)."""

    def under(*prefixes: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in prefixes)

    if module in SITE_ROOT or under(*(m for m in SITE_ROOT if m != "kavet_site")):
        return "site root"
    if under("kavet_site"):
        return "infrastructure"
    if under("games.engine"):
        return "engine"
    if under(
        "classgames.board", "classgames.board_selectors", "classgames.board_urls", "classgames"
    ):
        return "class games"
    if under("games"):
        return "games"
    if under("demo"):
        return "demo"
    if under("reports"):
        return "reports"
    if under("classrooms"):
        return "people"
    return None


def production_files() -> list[Path]:
    files = [ROOT / name for name in TOP_LEVEL]
    for package in PACKAGES:
        files += [p for p in sorted((ROOT / package).rglob("*.py")) if "migrations" not in p.parts]
    return files


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _known_modules(files: list[Path]) -> set[str]:
    return {module_name(p) for p in files}


def imports_of(path: Path, known: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, wherever it stands."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # `from kavet_site import celery` imports a module
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if sub in known else target))
    return found


def arrows() -> dict[tuple[str, str], list[str]]:
    """Every import from one part to another: (from, to) -> ["module:line -> module", ...]."""
    files = production_files()
    known = _known_modules(files)
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in files:
        source = module_name(path)
        here = part_of(source)
        assert here is not None, f"{source} belongs to no part: give it one in part_of"
        for line, target in imports_of(path, known):
            there = part_of(target)
            if there is not None and there != here:
                found[(here, there)].append(f"{source}:{line} -> {target}")
    return found


def test_every_arrow_points_down():
    up = {
        f"{a} -> {b}": where
        for (a, b), where in arrows().items()
        if FLOORS.index(b) > FLOORS.index(a)
    }
    assert up == {}


def test_the_engine_imports_nothing_of_the_project_nor_django():
    files = [p for p in production_files() if part_of(module_name(p)) == "engine"]
    assert len(files) > 10
    known = _known_modules(production_files())
    outside = [
        f"{module_name(p)}:{line} -> {target}"
        for p in files
        for line, target in imports_of(p, known)
        if target.split(".")[0] not in sys.stdlib_module_names and part_of(target) != "engine"
    ]
    assert outside == []


def test_every_production_module_has_a_part():
    assert [module_name(p) for p in production_files() if part_of(module_name(p)) is None] == []


def test_the_scan_sees_a_lazy_import_and_a_relative_one():
    """A check that cannot fail is a defect: the scan finds an import inside a function and
    resolves a relative import to the part it names."""
    games = ROOT / "games" / "services" / "base.py"
    known = _known_modules(production_files())
    lazy = [t for _line, t in imports_of(ROOT / "games" / "tasks.py", known)]
    assert "games.tablets" in lazy  # inside sweep_tablets
    relative = [t for _line, t in imports_of(games, known)]
    assert "games.models" in relative  # from ..models import ...
    assert part_of("classgames.services") == "class games"
    assert part_of("kavet_site.celery") == "site root" and part_of("kavet_site.queue") == (
        "infrastructure"
    )


def test_the_floors_refuse_an_arrow_upward():
    assert FLOORS.index(part_of("classgames.models")) > FLOORS.index(part_of("games.services"))
    assert FLOORS.index(part_of("reports.models")) > FLOORS.index(part_of("classrooms.permissions"))


def relations_upward(models) -> list[str]:
    """Every relation field (a foreign key, one-to-one or many-to-many, named by class or by
    "app.Model" string: Django has resolved it) from a model to a model of a part above."""
    found = []
    for model in models:
        here = part_of(model.__module__)
        if here is None:
            continue  # Django's own models (auth, sessions...)
        for field in model._meta.get_fields():
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue  # a reverse accessor is the other model's field, seen from there
            there = part_of(field.related_model.__module__)
            if there is not None and FLOORS.index(there) > FLOORS.index(here):
                found.append(
                    f"{model._meta.label}.{field.name} -> {field.related_model._meta.label}"
                )
    return found


def test_no_model_points_to_a_model_above():
    """The schema follows the floors too: a foreign key by string ("classgames.ClassSession")
    imports nothing, yet ties the table below to the app above (its migrations, its deletes)."""
    from django.apps import apps

    assert relations_upward(apps.get_models()) == []


def test_the_model_check_sees_a_foreign_key_by_string_upward():
    """A check that cannot fail is a defect: a games model with a foreign key to a class-games
    model (as Game.session was) is found; classgames.ClassTable's key to games.Game is not."""
    from types import SimpleNamespace

    from classgames.models import ClassSession, ClassTable
    from games.models import Game

    upward = SimpleNamespace(
        name="session", is_relation=True, auto_created=False, related_model=ClassSession
    )
    meta = SimpleNamespace(label="games.Game", get_fields=lambda: [upward])
    old_game = type("OldGame", (), {"__module__": "games.models", "_meta": meta})
    assert relations_upward([old_game]) == ["games.Game.session -> classgames.ClassSession"]
    assert relations_upward([ClassTable, Game]) == []
