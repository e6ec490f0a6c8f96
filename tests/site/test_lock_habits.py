"""Every row lock in the code says which lock it takes (issue 13, Zulip's rule).

`select_for_update()` alone takes PostgreSQL's FOR UPDATE, which also blocks every insert of a
row that points at the locked one (their FOR KEY SHARE): a lock on a class would hold up the
moves of its games. `no_key=True` (FOR NO KEY UPDATE) is the lock for an update that changes no
key; `no_key=False` is for a delete or a change of a key column, and says so on purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("games", "classrooms", "classgames", "kavet_site")


def _bare_locks(source: str) -> list[int]:
    """The lines of the select_for_update calls in `source` that do not pass no_key."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "select_for_update"
        and not any(k.arg == "no_key" for k in node.keywords)
    ]


def test_every_select_for_update_states_no_key():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for line in _bare_locks(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_scan_reports_a_bare_lock_and_only_that():
    source = (
        "a = Game.objects.select_for_update(no_key=True).get(pk=1)\n"
        "b = Game.objects.select_for_update().get(pk=1)\n"
        "c = Seat.objects.select_for_update(of=('self',)).first()\n"
        "d = Seat.objects.select_for_update(no_key=False, of=('self',)).first()\n"
    )
    assert _bare_locks(source) == [2, 3]
