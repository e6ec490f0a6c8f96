"""Fixtures for the report tests: a class with a week of play and built reports."""

from __future__ import annotations

from datetime import date

import pytest

from reports import services
from tests.reports.plays import one_move, paris

WEEK = date(2026, 11, 16)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # PBKDF2's deliberate slowness buys nothing in these tests; a cheap hasher keeps them quick.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def week():
    return WEEK


@pytest.fixture
def reported(classroom, students):
    """Every student of the class played this week, a real game per move through the services:
    student i makes 12 operations, those with (k + i) % 4 == 0 wrong, and says "nothing to do"
    once when 2 + 3 = 5 was on the table (R5.6); their reports are built."""
    for i, student in enumerate(students):
        for k in range(12):
            one_move(
                classroom=classroom,
                student=student,
                at=paris(2026, 11, 17, 9, k),
                move="2 + 5 = 3" if (k + i) % 4 == 0 else "2 + 3 = 5",
                react_seconds=4 + k / 10,
            )
        one_move(
            classroom=classroom,
            student=student,
            at=paris(2026, 11, 17, 9, 20),
            move={"type": "nothing"},
        )
        services.report_build(student=student, week_start=WEEK)
    return students
