"""Making tables: 2 to 5 players grouped by level, and the rules of the weakest player (R2.3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classrooms.grouping import (
    PlannedTable,
    table_rules,
    tables_check,
    tables_propose,
)
from classrooms.models import Student


def kid(pk: int, name: str, number_range: int = 10, tier: int = 1) -> Student:
    return Student(pk=pk, name=name, number_range=number_range, tier=tier, classroom_id=1)


def test_students_of_one_level_sit_together():
    easy = [kid(i, f"E{i}", 10, 1) for i in range(4)]
    hard = [kid(10 + i, f"H{i}", 20, 3) for i in range(4)]
    tables = tables_propose(hard[:2] + easy + hard[2:])
    assert sorted(sorted(s.pk for s in t) for t in tables) == [[0, 1, 2, 3], [10, 11, 12, 13]]


def test_a_group_of_five_is_not_split_to_make_a_mixed_table():
    # 5 at one level and 3 at another: 5 + 3, never 4 + (1 + 3) playing at the lower level.
    a = [kid(i, f"A{i}", 10, 1) for i in range(5)]
    b = [kid(10 + i, f"B{i}", 20, 2) for i in range(3)]
    tables = tables_propose(a + b)
    assert sorted(len(t) for t in tables) == [3, 5]
    for t in tables:
        assert len({s.level for s in t}) == 1


def test_thirty_students_make_tables_of_three_to_five():
    kids = [kid(i, f"K{i:02}", (10, 20)[i % 2], 1 + i % 3) for i in range(30)]
    tables = tables_propose(kids)
    assert sum(len(t) for t in tables) == 30
    assert all(2 <= len(t) <= 5 for t in tables)
    assert sorted(s.pk for t in tables for s in t) == list(range(30))


def test_one_student_gets_a_table_of_one_and_none_get_none():
    assert tables_propose([]) == []
    only = kid(1, "Anna")
    assert tables_propose([only]) == [[only]]


@given(st.lists(st.tuples(st.sampled_from([10, 20]), st.integers(1, 3)), min_size=2, max_size=60))
def test_every_student_is_placed_once_at_a_table_of_two_to_five(levels):
    kids = [kid(i, f"K{i}", r, t) for i, (r, t) in enumerate(levels)]
    tables = tables_propose(kids)
    placed = [s.pk for t in tables for s in t]
    assert sorted(placed) == list(range(len(kids)))
    assert all(2 <= len(t) <= 5 for t in tables)


# --- the rules of a table (R2.3) --------------------------------------------------------------


def test_the_weakest_player_sets_the_rules_and_is_named():
    anna, brieuc = kid(1, "Anna", 10, 1), kid(2, "Brieuc", 20, 3)
    rules = table_rules([brieuc, anna])
    assert (rules.max_number, rules.tier) == (10, 1)
    assert rules.summary == "up to 10, + and − only"
    assert rules.why == "set by Anna's level"


def test_each_axis_names_its_own_weakest_player():
    anna, brieuc = kid(1, "Anna", 20, 1), kid(2, "Brieuc", 10, 2)
    rules = table_rules([anna, brieuc])
    assert (rules.max_number, rules.tier) == (10, 1)
    assert rules.why == "numbers set by Brieuc's level, operations by Anna's"


def test_a_table_of_one_level_says_so():
    rules = table_rules([kid(1, "Anna", 20, 2), kid(2, "Bob", 20, 2)])
    assert rules.summary == "up to 20, + − × ÷"
    assert rules.why == "everyone at this table has this level"


def test_the_teacher_may_set_a_table_lower_never_higher():
    strong = [kid(1, "Anna", 20, 3), kid(2, "Bob", 20, 3)]
    lower = table_rules(strong, cap_range=10, cap_tier=2)
    assert (lower.max_number, lower.tier) == (10, 2)
    assert lower.why == "set by you, lower than the players' levels"
    weak = [kid(3, "Cid", 10, 1), kid(4, "Dan", 20, 3)]
    capped = table_rules(weak, cap_range=None, cap_tier=2)
    assert (capped.max_number, capped.tier) == (10, 1)  # a cap never raises a level
    assert capped.why == "set by Cid's level"


# --- checking a plan --------------------------------------------------------------------------


def test_a_table_of_one_is_refused_unless_a_computer_player_joins():
    anna = kid(1, "Anna")
    errors = tables_check([PlannedTable(number=1, students=[anna])])
    assert errors == [
        "Table 1 has only one player (Anna): move another student there or add a computer player."
    ]
    assert tables_check([PlannedTable(number=1, students=[anna], bots=1)]) == []


def test_a_student_at_two_tables_is_refused_with_the_tables_named():
    anna, bob, cid = kid(1, "Anna"), kid(2, "Bob"), kid(3, "Cid")
    plan = [
        PlannedTable(number=1, students=[anna, bob]),
        PlannedTable(number=2, students=[anna, cid]),
    ]
    assert tables_check(plan) == ["Anna is placed at two tables (1, 2): choose one."]
    assert tables_check([PlannedTable(number=1, students=[bob, cid])], doubles={anna: [1, 3]}) == [
        "Anna is placed at two tables (1, 3): choose one."
    ]


@pytest.mark.parametrize(
    "students, bots, message",
    [
        (5, 1, "Table 1 has 6 players; at most 5 play at one table."),
        (0, 2, "Table 1 has only computer players"),
        (2, 1, None),
    ],
)
def test_table_sizes(students, bots, message):
    table = PlannedTable(number=1, students=[kid(i, f"K{i}") for i in range(students)], bots=bots)
    errors = tables_check(
        [table] + ([] if students else [PlannedTable(2, [kid(9, "Z"), kid(8, "Y")])])
    )
    if message is None:
        assert errors == []
    else:
        assert any(e.startswith(message) for e in errors), errors


def test_an_empty_plan_is_refused():
    assert tables_check([]) == [
        "Choose the students who are present: at least one table needs players."
    ]
