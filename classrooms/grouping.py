"""Making tables for a class game: 2 to 5 players, grouped by level, and the rules each plays by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import BOT_STRENGTHS, RuleSet, ruleset_for_players

from .models import Student

MIN_PLAYERS = 2
MAX_PLAYERS = 5
# How much a table of each size costs the class: four is the game at its best, two is thin.
SIZE_COST = {2: 1.5, 3: 0.5, 4: 0.0, 5: 0.8}


def _axes(student: Student) -> tuple[int, int]:
    """A level as two small steps: range (0: up to 10, 1: up to 20) and tier (0..2)."""
    return (0 if student.number_range <= 10 else 1, student.tier - 1)


def _table_cost(members: Sequence[Student]) -> float:
    """How many level steps the players give up by playing at the weakest one's level (R2.3)."""
    axes = [_axes(s) for s in members]
    low_r = min(a[0] for a in axes)
    low_t = min(a[1] for a in axes)
    lost = sum((r - low_r) + (t - low_t) for r, t in axes)
    return lost + SIZE_COST[len(members)]


def _partition(ordered: list[Student]) -> tuple[float, list[list[Student]]]:
    """Cut the ordered list into tables of 2-5 at the least cost (dynamic programming)."""
    n = len(ordered)
    best: list[tuple[float, int]] = [(0.0, 0)] + [(float("inf"), 0)] * n
    for end in range(1, n + 1):
        for size in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            start = end - size
            if start < 0 or best[start][0] == float("inf"):
                continue
            cost = best[start][0] + _table_cost(ordered[start:end])
            if cost < best[end][0]:
                best[end] = (cost, size)
    tables: list[list[Student]] = []
    end = n
    while end > 0:
        size = best[end][1]
        tables.append(ordered[end - size : end])
        end -= size
    tables.reverse()
    return best[n][0], tables


def tables_propose(students: Sequence[Student]) -> list[list[Student]]:
    """Tables of 2 to 5 students, each as close to one level and to four players as can be.

    A single student gets a table of their own (the teacher adds a computer player).
    """
    students = list(students)
    if len(students) <= 1:
        return [students] if students else []

    def name(s: Student) -> str:
        return s.name.casefold()

    # Levels have two axes; cutting the list sorted either way and keeping the cheaper
    # partition avoids splitting a group of equal levels across tables.
    orders = [
        sorted(students, key=lambda s: (s.tier, s.number_range, name(s))),
        sorted(students, key=lambda s: (s.number_range, s.tier, name(s))),
    ]
    cost, tables = min((_partition(o) for o in orders), key=lambda r: r[0])
    del cost
    for table in tables:
        table.sort(key=name)
    return tables


# --- the rules of a table and why ------------------------------------------------------------


OPERATIONS_TEXT = {
    1: gettext_lazy("+ and − only"),
    2: gettext_lazy("+ − × ÷"),
    3: gettext_lazy("+ − × ÷, powers and parentheses"),
}
RANGE_TEXT = {10: gettext_lazy("up to 10"), 20: gettext_lazy("up to 20")}


@dataclass
class TableRules:
    """The rule set a table will play by, and the sentence that says why (R2.3)."""

    rules: RuleSet
    summary: str
    why: str
    range_by: Student | None = None  # None: set by the teacher's cap
    tier_by: Student | None = None

    @property
    def max_number(self) -> int:
        return self.rules.max_number

    @property
    def tier(self) -> int:
        return self.rules.tier


def rules_summary(max_number: int, tier: int) -> str:
    return str(format_lazy("{}, {}", RANGE_TEXT[max_number], OPERATIONS_TEXT[tier]))


def table_rules(
    students: Sequence[Student], *, cap_range: int | None = None, cap_tier: int | None = None
) -> TableRules:
    """R2.3: the weakest player sets the range and the tier; the teacher may set them lower."""
    students = list(students)
    if not students:
        raise ValueError("a table needs at least one student to set its level")
    cap = RuleSet(max_number=cap_range or 20, tier=cap_tier or 3)
    rules = ruleset_for_players([s.level for s in students], cap=cap)
    low_range = min(students, key=lambda s: (s.number_range, s.name.casefold()))
    low_tier = min(students, key=lambda s: (s.tier, s.name.casefold()))
    range_by = low_range if low_range.number_range == rules.max_number else None
    tier_by = low_tier if low_tier.tier == rules.tier else None
    same_level = len({s.level for s in students}) == 1
    if range_by is None and tier_by is None:
        why = _("set by you, lower than the players' levels")
    elif same_level and range_by is not None and tier_by is not None and len(students) > 1:
        why = _("everyone at this table has this level")
    elif range_by is not None and range_by == tier_by:
        why = _("set by %(name)s's level") % {"name": range_by.name}
    elif range_by is None:
        why = _("numbers set by you, operations by %(name)s's level") % {"name": tier_by.name}
    elif tier_by is None:
        why = _("numbers set by %(name)s's level, operations by you") % {"name": range_by.name}
    else:
        why = _("numbers set by %(range)s's level, operations by %(tier)s's") % {
            "range": range_by.name,
            "tier": tier_by.name,
        }
    return TableRules(
        rules=rules,
        summary=rules_summary(rules.max_number, rules.tier),
        why=why,
        range_by=range_by,
        tier_by=tier_by,
    )


# --- checking a plan of tables ---------------------------------------------------------------


@dataclass
class PlannedTable:
    """One table as the teacher arranged it: students in seat order and computer players."""

    number: int
    students: list[Student] = field(default_factory=list)
    bots: int = 0
    bot_strength: str = "medium"
    rules: TableRules | None = None

    @property
    def n_players(self) -> int:
        return len(self.students) + self.bots


def tables_check(
    tables: Sequence[PlannedTable], *, doubles: dict[Student, list[int]] | None = None
) -> list[str]:
    """Every reason the plan cannot start, in words; empty when it can.

    `doubles` lists students the form placed at more than one table (with the tables).
    """
    errors: list[str] = []
    for student, numbers in (doubles or {}).items():
        errors.append(
            _("%(name)s is placed at two tables (%(tables)s): choose one.")
            % {"name": student.name, "tables": ", ".join(str(n) for n in sorted(numbers))}
        )
    seen: dict[int, int] = {}
    for table in tables:
        for student in table.students:
            if student.pk in seen and seen[student.pk] != table.number:
                errors.append(
                    _("%(name)s is placed at two tables (%(tables)s): choose one.")
                    % {"name": student.name, "tables": f"{seen[student.pk]}, {table.number}"}
                )
            seen[student.pk] = table.number
        if table.bot_strength not in BOT_STRENGTHS:
            errors.append(
                _("Table %(n)s: choose easy, medium or hard computer players.")
                % {"n": table.number}
            )
        if table.bots < 0:
            errors.append(
                _("Table %(n)s: the number of computer players cannot be negative.")
                % {"n": table.number}
            )
        if table.students and table.n_players < MIN_PLAYERS:
            errors.append(
                _(
                    "Table %(n)s has only one player (%(name)s): move another student "
                    "there or add a computer player."
                )
                % {"n": table.number, "name": table.students[0].name}
            )
        if table.n_players > MAX_PLAYERS:
            errors.append(
                _("Table %(n)s has %(count)s players; at most %(max)s play at one table.")
                % {"n": table.number, "count": table.n_players, "max": MAX_PLAYERS}
            )
        if not table.students and table.bots:
            errors.append(
                _(
                    "Table %(n)s has only computer players: give it a student or no "
                    "computer players."
                )
                % {"n": table.number}
            )
    if not any(t.students for t in tables):
        errors.append(_("Choose the students who are present: at least one table needs players."))
    return errors
