"""Fixtures for the report tests: a class with a week of play and built reports."""
from __future__ import annotations

from datetime import date

import pytest

from classrooms.reports import services
from tests.reports.plays import game, paris, play

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
    """Every student of the class played this week; their reports are built."""
    g = game(classroom=classroom, students=students, started_at=paris(2026, 11, 17, 9, 0), minutes=30,
             tricks=[{"seat": 0, "cards": [1, 2, 3]}])
    for i, student in enumerate(students):
        for k in range(12):
            play(student, g, paris(2026, 11, 17, 9, k), skills=("addsub_10",), ok=(k + i) % 4 != 0,
                 reaction_ms=4000 + 100 * k, text=f"{k % 5} + 2 = {k % 5 + 2}")
        play(student, g, paris(2026, 11, 17, 9, 20), kind="nothing", ok=False, missed=True,
             missed_operation="3 + 4 = 7")
        services.report_build(student=student, week_start=WEEK)
    return students
