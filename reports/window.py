"""What every report counts, and over which window: one home for the filter and the windows.

A figure of a report (the parent's page, the teacher's pages, the class report and its CSV,
the PDF, the weekly email) and the list of moves it opens are read through these: the same
plays (no move of the tutorial, whose moves the lesson scripts: games.tutorial), the same
window (a report's week, the school year up to its end, a skill's last RECENT tries).
Practice games are counted everywhere, as the pages say ("at school and at home").
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games import tutorial
from games.models import Game


def tutorial_games(prefix: str = "") -> Q:
    """The lesson's games (games.tutorial.is_tutorial), as a filter: `prefix` "game__" from
    a play or a seat."""
    return Q(**{f"{prefix}kind": Game.Kind.PRACTICE, f"{prefix}draw_order": tutorial.DRAW_ORDER})


def counted(plays: Any) -> Any:
    """The plays of `plays` (a queryset of games.Play) that reports count: not the tutorial's."""
    return plays.exclude(tutorial_games("game__"))


def counted_seats(seats: Any) -> Any:
    """The seats of `seats` (games.Seat) whose games reports count: not the tutorial's."""
    return seats.exclude(tutorial_games("game__"))
