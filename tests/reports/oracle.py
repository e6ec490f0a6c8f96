"""The test oracle of the reports: a week's figures counted afresh from every play.

builder.report_from_summary is the one report builder; what it builds from stored running
totals must always agree with this plain fold of every week's tally (week_tally), which
keeps no totals between builds. The report's shape (builder._report_dict) is shared.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from reports.builder import (
    Period,
    _game_minutes,
    _game_time,
    _report_dict,
    _week_game,
    plays_by_week,
    week_bounds,
    week_tally,
)
from reports.levels import LEVEL_UP_WINDOW, RECENT


def report_from_weeks(
    *,
    weeks: Iterable[Mapping[str, Any]],
    week_start: date,
    tz: ZoneInfo,
    level: tuple[int, int],
    games: Iterable[Mapping[str, Any]] = (),
    cards_won: Mapping[int, int] | None = None,
    level_changes: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The figures of one student's weekly report from week tallies (week_tally), JSON-ready.

    weeks: the tallies of the report's week and of the weeks before it (later ones are left out).
    games: {"id", "kind", "started_at", "ended_at", "score"} for each game the student sat in.
    cards_won: game id -> cards won in tricks (from the game's trick_won events).
    """
    start, end = week_bounds(week_start, tz)
    week, year = Period(), Period()
    recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=RECENT))
    at_level: deque = deque(maxlen=LEVEL_UP_WINDOW)
    level_key = f"{level[0]}/{level[1]}"
    series: dict[str, dict[str, list[int]]] = defaultdict(dict)
    play_span: dict[int, list[datetime]] = {}
    this_week = week_start.isoformat()

    for tally in sorted(weeks, key=lambda t: t["week_start"]):
        key = tally["week_start"]
        if key > this_week:
            continue
        period = Period.from_state(tally["period"])
        year.merge(period)
        if key == this_week:
            week.merge(period)
        for skill, attempts in tally["recent"].items():
            recent[skill].extend((ok, ms) for ok, ms in attempts)
        at_level.extend((ok, ms) for ok, ms in tally["at_level"].get(level_key, ()))
        for skill, (n, right) in tally["series"].items():
            series[skill][key] = [n, right]
        for game_id, first, last in tally["spans"]:
            first, last = datetime.fromisoformat(first), datetime.fromisoformat(last)
            span = play_span.setdefault(game_id, [first, last])
            span[0], span[1] = min(span[0], first), max(span[1], last)

    # Games: those the student sat in, plus any that only their plays mention.
    cards_won = cards_won or {}
    game_rows = {g["id"]: dict(g) for g in games}
    for game_id in play_span:
        game_rows.setdefault(
            game_id,
            {"id": game_id, "kind": "", "started_at": None, "ended_at": None, "score": None},
        )
    week_games, year_games, year_minutes = [], 0, 0
    for game in sorted(
        game_rows.values(), key=lambda g: (_game_time(g, play_span) or end, g["id"])
    ):
        at = _game_time(game, play_span)
        if at is None or at >= end:
            continue
        minutes = _game_minutes(game, play_span.get(game["id"]))
        year_games += 1
        year_minutes += minutes
        if at >= start:
            week_games.append(_week_game(game, at, minutes, cards_won))

    return _report_dict(
        week_start=week_start,
        end=end,
        level=level,
        week=week,
        year=year,
        recent=recent,
        at_level=at_level,
        series=series,
        week_games=week_games,
        year_games=year_games,
        year_minutes=year_minutes,
        level_changes=level_changes,
    )


def report_data(
    *,
    plays: Iterable[Mapping[str, Any]],
    week_start: date,
    tz: ZoneInfo,
    level: tuple[int, int],
    **details: Any,
) -> dict[str, Any]:
    """The report counted afresh from every play up to the end of the week (oldest first):
    what report_build's stored tallies must always agree with. `details` as report_from_weeks."""
    _start, end = week_bounds(week_start, tz)
    weeks = plays_by_week((p for p in plays if p["at"] < end), tz)
    return report_from_weeks(
        weeks=[week_tally(rows, monday) for monday, rows in weeks.items()],
        week_start=week_start,
        tz=tz,
        level=level,
        **details,
    )
