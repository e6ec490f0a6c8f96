"""Reads for the moves behind a number: a report's figures, and the teacher's live skill grid.

Every list starts from the plays the user may read (classrooms.permissions) and is filtered by
the engine's attempts_of (games.engine.skills) and by progress.play_figures, the same names the
report's figures were counted by: the number shown and the length of its list always agree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from classgames.selectors import replay_names
from classrooms import permissions
from classrooms.models import Classroom, Student, User
from games.engine import events as ev
from games.engine import skills as engine_skills
from games.models import Game, Move, Play, Seat
from games.selectors import name_seats
from games.wording import as_printed, ruling_texts, verdict_message

from .progress import (
    SKILL_LABELS,
    SKILL_SHORT,
    SKILLS,
    Figure,
    figure_plays,
    play_attempts,
    skills_of_play,
)
from .services import PLAY_FIELDS
from .window import counted

LINE_FIELDS = (*PLAY_FIELDS, "student_id", "move__number")
DONE = (Game.Status.FINISHED, Game.Status.ABANDONED)
# How many moves after a child's move its ruling may come (the others' "ok", a challenge, the
# end of the window): where the reason of a wrong one is looked for in the game's events.
RULING_WITHIN = 16
OUTCOME_WORDS = {
    engine_skills.RIGHT: ("✔", "right"),
    engine_skills.WRONG: ("✘", "wrong"),
    engine_skills.MISSED: ("○", "missed"),
}


def _outcome_label(outcome: str | None) -> str:
    return {
        engine_skills.RIGHT: _("right"),
        engine_skills.WRONG: _("wrong"),
        engine_skills.MISSED: _("missed"),
    }.get(outcome or "", _("not ruled yet"))


def plays_readable(user: User) -> Any:
    """The plays this user may read and reports count (window.counted: no tutorial move): a
    teacher's classes', a parent's own children's."""
    return counted(permissions.readable(user, Play))


# --- one line per move ---------------------------------------------------------------------


@dataclass
class MoveLine:
    """One move of a child, as the lists show it, with the replay at that move."""

    play_id: int
    at: datetime
    student: str
    table: str
    what: str
    outcome: str | None
    outcome_label: str
    mark: str
    why: str
    skills: list[str]
    replay_url: str
    move_number: int | None


def _what(play: dict[str, Any]) -> str:
    if play["kind"] == "announce":
        return as_printed(play.get("text") or "")
    if play["kind"] == "nothing":
        return _("“Nothing to do”")
    return "“Kavet 'm eus!”"


def _rulings(plays: list[dict[str, Any]]) -> dict[int, list[dict]]:
    """The events of the moves where each play's ruling may be, by game: one query."""
    within = Q(pk__in=[])
    for play in plays:
        number = play.get("move__number")
        if number is not None:
            within |= Q(
                game_id=play["game_id"], number__gte=number, number__lt=number + RULING_WITHIN
            )
    events: dict[int, list[tuple[int, dict]]] = defaultdict(list)
    for game_id, number, move_events in (
        Move.objects.filter(within)
        .order_by("game_id", "number")
        .values_list("game_id", "number", "events")
    ):
        events[game_id] += [(number, e) for e in move_events or ()]
    return events


def _why(play: dict[str, Any], outcome: str | None, events: list[tuple[int, dict]], names) -> str:
    """The ruling's reason for a wrong or missed move, in the engine's words (games.wording)."""
    if outcome not in (engine_skills.WRONG, engine_skills.MISSED):
        return ""
    number = play.get("move__number") or 0
    texts = ruling_texts(names)
    later = [ev.event_from_dict(event) for at, event in events if at >= number]
    if play["kind"] == "announce":
        for event in later:
            if (
                isinstance(event, ev.Verdict)
                and event.ok is False
                and event.text == play.get("text")
            ):
                return verdict_message(event.code, event.params)
        return verdict_message(play.get("code") or "wrong_result")
    if play["kind"] == "nothing":
        missed = ev.NothingRuled(
            was_true=False, possible={"text": play.get("missed_operation") or ""}
        )
        return texts.nothing(missed)["reason"]
    for event in later:
        if isinstance(event, ev.ChallengeRuled):
            return texts.outcome(event)["reason"]
    return ""


def move_lines(
    plays: list[dict[str, Any]], *, viewer: str, child: Student | None = None, skill: str = ""
) -> list[MoveLine]:
    """The moves of `plays` (rows with LINE_FIELDS) as lines, each with its replay link:
    `viewer` "teacher" (every name, the teacher's replay of any game) or "parent" (`child`'s
    moves, the other children unnamed, the replay once the game is over). With `skill`, the
    outcome is that skill's."""
    games = {
        g.pk: g
        for g in Game.objects.filter(pk__in={p["game_id"] for p in plays}).only(
            "pk", "label", "kind", "status", "classroom_id"
        )
    }
    seats: dict[int, list[Seat]] = defaultdict(list)
    for seat in Seat.objects.filter(game_id__in=games).order_by("position"):
        seats[seat.game_id].append(seat)
    names: dict[int, list[str]] = {}
    for game_id, game in games.items():
        game_seats = name_seats(seats[game_id])
        if viewer == "parent" and child is not None:
            game._prefetched_objects_cache = {"seats": game_seats}  # replay_names: no query
            names[game_id] = replay_names(game, child=child)
        else:
            names[game_id] = [s.display_name for s in game_seats]
    student_names = dict(
        Student.objects.filter(pk__in={p["student_id"] for p in plays}).values_list("pk", "name")
    )
    events = _rulings(plays)
    lines = []
    for play in plays:
        game = games.get(play["game_id"])
        attempts = play_attempts(play, skills_of_play(play))
        if skill:
            outcome = next((o for s, o in attempts if s == skill), None)
        else:
            outcome = engine_skills.outcome_of(
                kind=play["kind"],
                ok=play.get("ok"),
                verdict_kind=play.get("verdict_kind") or "",
                missed=bool(play.get("missed")),
                challenge_outcome=play.get("challenge_outcome") or "",
            )
        number = play.get("move__number")
        replay = ""
        if game is not None and number is not None:
            anchor = f"?move={number}#move-{number}"
            if viewer == "teacher":
                replay = reverse("classrooms:game_replay", args=[game.pk]) + anchor
            elif game.status in DONE:
                replay = (
                    reverse("classrooms:parent_replay", args=[play["student_id"], game.pk]) + anchor
                )
        mark, _css = OUTCOME_WORDS.get(outcome or "", ("…", ""))
        lines.append(
            MoveLine(
                play_id=play["id"],
                at=play["at"],
                student=student_names.get(play["student_id"], ""),
                table=str(game) if game is not None else "",
                what=_what(play),
                outcome=outcome,
                outcome_label=_outcome_label(outcome),
                mark=mark,
                why=_why(
                    play, outcome, events.get(play["game_id"], []), names.get(play["game_id"], [])
                ),
                skills=[str(SKILL_SHORT[s]) for s, _o in attempts if s in SKILL_SHORT],
                replay_url=replay,
                move_number=number,
            )
        )
    return lines


# --- a report's figure ---------------------------------------------------------------------


def figure_moves(
    *, plays: Any, figure: Figure, start: datetime, end: datetime
) -> list[dict[str, Any]]:
    """The plays a report's figure counts, newest first: `plays` a readable queryset (one
    student's, or a class's, already window.counted); read up to the report week's end,
    filtered by progress. The one query of a figure's list: its length is the figure."""
    since = {"at__gte": start} if figure.scope == "week" else {}
    rows = plays.filter(at__lt=end, **since).order_by("at", "pk").values(*LINE_FIELDS)
    return figure_plays(rows, figure, start=start, end=end)[::-1]


# --- the live skill grid -------------------------------------------------------------------


@dataclass
class GridCell:
    skill: str
    label: str
    right: int = 0
    wrong: int = 0
    missed: int = 0
    last: str = ""  # the latest outcome: what changed most recently in this cell

    @property
    def n(self) -> int:
        return self.right + self.wrong + self.missed


@dataclass
class GridRow:
    student_id: int
    name: str
    cells: list[GridCell]
    mistake: MoveLine | None = None
    moves: int = 0


@dataclass
class LiveGrid:
    skills: list[dict[str, str]]
    rows: list[GridRow] = field(default_factory=list)


def session_plays(session) -> Any:
    """Every recorded move of the children of a class game (its tables), oldest first."""
    return counted(Play.objects.filter(game__class_table__session=session)).order_by("at", "pk")


def live_grid(session) -> LiveGrid:
    """Children × skills of a class game so far: how many right, wrong and missed in each
    cell (the engine's attempts_of), and each child's latest mistake with the ruling's reason.
    Two queries for the grid, and three for the mistakes whatever the number of children."""
    students = list(
        Student.objects.filter(seats__game__class_table__session=session)
        .distinct()
        .order_by("name")
    )
    plays = list(session_plays(session).values(*LINE_FIELDS))
    cells: dict[int, dict[str, GridCell]] = {
        s.pk: {k: GridCell(k, str(SKILL_LABELS[k])) for k in SKILLS} for s in students
    }
    latest_mistake: dict[int, dict[str, Any]] = {}
    counts: dict[int, int] = defaultdict(int)
    for play in plays:
        row = cells.get(play["student_id"])
        if row is None:
            continue
        counts[play["student_id"]] += 1
        for skill, outcome in play_attempts(play, skills_of_play(play)):
            cell = row[skill]
            setattr(cell, outcome, getattr(cell, outcome) + 1)
            cell.last = outcome
            if outcome != engine_skills.RIGHT:
                latest_mistake[play["student_id"]] = play
    mistakes = {
        line.play_id: line for line in move_lines(list(latest_mistake.values()), viewer="teacher")
    }
    used = list(SKILLS)  # every column from the start: the grid keeps its shape as it fills
    grid = LiveGrid(
        skills=[
            {"key": k, "label": str(SKILL_LABELS[k]), "short": str(SKILL_SHORT[k])} for k in used
        ]
    )
    for student in students:
        mistake = latest_mistake.get(student.pk)
        grid.rows.append(
            GridRow(
                student_id=student.pk,
                name=student.name,
                cells=[cells[student.pk][k] for k in used],
                mistake=mistakes.get(mistake["id"]) if mistake else None,
                moves=counts[student.pk],
            )
        )
    return grid


def cell_moves(*, session, student: Student, skill: str) -> list[MoveLine]:
    """The moves behind one cell of the live grid (a child × a skill), newest first, as every
    figure's list: the cell's count is their number (the same plays, the same attempts_of)."""
    plays = [
        p
        for p in session_plays(session).filter(student=student).values(*LINE_FIELDS)
        if any(s == skill for s, _o in play_attempts(p, skills_of_play(p)))
    ]
    return move_lines(plays[::-1], viewer="teacher", skill=skill)


def class_plays(user: User, classroom: Classroom) -> Any:
    return plays_readable(user).filter(student__classroom=classroom)
