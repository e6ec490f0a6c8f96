"""From recorded plays to a weekly report's figures: the one report builder.

Pure computation over plain dicts (rows of games.Play as `.values()` gives them), so that the
figures can be checked by hand in tests and built for a whole class without extra queries:
what each play counts for (skills, attempts, figures), a week's tally (week_tally), the
running totals of the weeks before (Summary) and the report (report_from_summary).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from games.engine import skills as engine_skills

from .levels import LEVEL_UP_WINDOW, RECENT, band_for, recommend

MAX_GAME_MINUTES = 60  # a game left open over lunch is not an hour of play
EXAMPLES = 5


# --- skills of one play --------------------------------------------------------------------


def skills_of_play(play: Mapping[str, Any]) -> list[str]:
    """The skills stored on the play when its move was applied (games.services, from the
    engine's skills_of): reports read them and never work them out again."""
    return [s for s in play.get("skills") or () if s in engine_skills.ALL_SKILLS]


def _judged(play: Mapping[str, Any]) -> bool:
    # Refused moves are not mistakes (R3.5); unjudged ones are not anything yet.
    return play.get("verdict_kind") != "invalid" and play.get("ok") is not None


def _overlooked(play: Mapping[str, Any]) -> bool:
    return bool(play.get("missed")) or play.get("ok") is False


def play_attempts(play: Mapping[str, Any], skills: list[str]) -> tuple[tuple[str, str], ...]:
    """(skill, "right"/"wrong"/"missed") for each skill this play is an attempt at: the
    engine's attempts_of on the recorded play (the live skill grid reads the same)."""
    return engine_skills.attempts_of(
        kind=play["kind"],
        ok=play.get("ok"),
        verdict_kind=play.get("verdict_kind") or "",
        missed=bool(play.get("missed")),
        challenge_outcome=play.get("challenge_outcome") or "",
        skills=skills,
    )


def skill_outcomes(
    play: Mapping[str, Any], skills: list[str]
) -> list[tuple[str, bool, int | None]]:
    """(skill, right?, reaction ms) for each skill this play is an attempt at; the reaction
    time of announcements only (a challenge or a "nothing to do" is not timed)."""
    ms = play.get("reaction_ms") if play["kind"] == "announce" else None
    return [
        (skill, outcome == engine_skills.RIGHT, ms)
        for skill, outcome in play_attempts(play, skills)
    ]


def play_figures(
    play: Mapping[str, Any],
    skills: list[str],
    outcomes: list[tuple[str, bool, int | None]],
) -> list[str]:
    """The counts of a report this play adds one to, by name: what Period.add counts, and
    what a figure's list of moves is filtered by (figure_plays), so the two always agree.

    "announcements", "right", "wrong", "right_challenges", "false_challenges",
    "nothing_true", "overlooked", "skill.<skill>.n", "skill.<skill>.right",
    "mistake_code.<code>", "mistake_skill.<skill>".
    """
    keys = []
    for skill, ok, _ms in outcomes:
        keys.append(f"skill.{skill}.n")
        if ok:
            keys.append(f"skill.{skill}.right")
    kind = play["kind"]
    if kind == "announce":
        if not _judged(play):
            return keys
        keys.append("announcements")
        if play["ok"]:
            keys.append("right")
        else:
            keys += ["wrong", f"mistake_code.{play.get('code') or 'wrong_result'}"]
            keys += [f"mistake_skill.{s}" for s in skills if s in engine_skills.SKILLS]
    elif kind == "challenge":
        if play.get("challenge_outcome") == "right":
            keys.append("right_challenges")
        elif play.get("challenge_outcome") == "false":
            keys.append("false_challenges")
    elif kind == "nothing":
        if _overlooked(play):
            keys += ["overlooked", "mistake_code.overlooked"]
            keys += [f"mistake_skill.{s}" for s in skills if s in engine_skills.SKILLS]
        else:
            keys.append("nothing_true")
    return keys


# --- tallies ------------------------------------------------------------------------------


@dataclass
class Tally:
    """Attempts and right answers of one skill, with the reaction times of the right ones."""

    n: int = 0
    right: int = 0
    times: list[int] = field(default_factory=list)

    def add(self, ok: bool, ms: int | None = None) -> None:
        self.n += 1
        if ok:
            self.right += 1
            if ms is not None:
                self.times.append(ms)

    def merge(self, other: Tally) -> None:
        self.n += other.n
        self.right += other.right
        self.times.extend(other.times)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "right": self.right,
            "accuracy": round(self.right / self.n, 4) if self.n else None,
            "median_ms": int(statistics.median(self.times)) if self.times else None,
        }

    def state(self) -> dict[str, Any]:
        return {"n": self.n, "right": self.right, "times": self.times}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Tally:
        return cls(n=state["n"], right=state["right"], times=list(state["times"]))


@dataclass
class Period:
    """Everything counted over one stretch of time (a week, or the school year so far)."""

    skills: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    announcements: int = 0
    right: int = 0
    wrong: int = 0
    cards_in_tricks: int = 0
    right_challenges: int = 0
    false_challenges: int = 0
    nothing_true: int = 0
    overlooked: int = 0
    mistakes_by_skill: Counter = field(default_factory=Counter)
    mistakes_by_code: Counter = field(default_factory=Counter)
    overlooked_examples: list[str] = field(default_factory=list)
    wrong_examples: list[str] = field(default_factory=list)

    def add(
        self,
        play: Mapping[str, Any],
        skills: list[str],
        outcomes: list[tuple[str, bool, int | None]],
    ) -> None:
        """Count one play; `skills` and `outcomes` come from skills_of_play/skill_outcomes.
        Which counts it adds to are play_figures' (one home: a figure's list of moves is
        filtered by the same names)."""
        for skill, ok, ms in outcomes:
            self.skills[skill].add(ok, ms)
        for key in play_figures(play, skills, outcomes):
            name, _dot, arg = key.partition(".")
            if name in self._COUNTS:
                setattr(self, name, getattr(self, name) + 1)
            elif name == "mistake_code":
                self.mistakes_by_code[arg] += 1
            elif name == "mistake_skill":
                self.mistakes_by_skill[arg] += 1
            if name == "right":
                self.cards_in_tricks += play.get("n_cards") or 0
            elif name == "wrong":
                _remember(self.wrong_examples, play.get("text") or "")
            elif name == "overlooked":
                _remember(self.overlooked_examples, play.get("missed_operation") or "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "skills": {
                s: self.skills[s].to_dict() for s in engine_skills.ALL_SKILLS if s in self.skills
            },
            "announcements": self.announcements,
            "right": self.right,
            "wrong": self.wrong,
            "accuracy": round(self.right / self.announcements, 4) if self.announcements else None,
            "cards_in_tricks": self.cards_in_tricks,
            "right_challenges": self.right_challenges,
            "false_challenges": self.false_challenges,
            "nothing_true": self.nothing_true,
            "overlooked": self.overlooked,
            "mistakes_by_skill": dict(self.mistakes_by_skill.most_common()),
            "mistakes_by_code": dict(self.mistakes_by_code.most_common()),
            "overlooked_examples": self.overlooked_examples,
            "wrong_examples": self.wrong_examples,
        }

    # A week's Period is stored (WeekTally.data) and merged into the next reports: merging
    # the weeks in order gives exactly the figures of counting their plays one by one.
    _COUNTS = (
        "announcements",
        "right",
        "wrong",
        "cards_in_tricks",
        "right_challenges",
        "false_challenges",
        "nothing_true",
        "overlooked",
    )

    def merge(self, other: Period) -> None:
        for skill, tally in other.skills.items():
            self.skills[skill].merge(tally)
        for name in self._COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.mistakes_by_skill.update(other.mistakes_by_skill)
        self.mistakes_by_code.update(other.mistakes_by_code)
        for text in other.overlooked_examples:
            _remember(self.overlooked_examples, text)
        for text in other.wrong_examples:
            _remember(self.wrong_examples, text)

    def state(self) -> dict[str, Any]:
        # Counters as [key, count] pairs: their order (first seen first) breaks most_common's ties,
        # and PostgreSQL's jsonb does not keep the order of an object's keys.
        return {
            "skills": [[s, t.state()] for s, t in self.skills.items()],
            **{name: getattr(self, name) for name in self._COUNTS},
            "mistakes_by_skill": list(self.mistakes_by_skill.items()),
            "mistakes_by_code": list(self.mistakes_by_code.items()),
            "overlooked_examples": self.overlooked_examples,
            "wrong_examples": self.wrong_examples,
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Period:
        period = cls(**{name: state[name] for name in cls._COUNTS})
        for skill, tally in state["skills"]:
            period.skills[skill] = Tally.from_state(tally)
        period.mistakes_by_skill = Counter(dict(state["mistakes_by_skill"]))
        period.mistakes_by_code = Counter(dict(state["mistakes_by_code"]))
        period.overlooked_examples = list(state["overlooked_examples"])
        period.wrong_examples = list(state["wrong_examples"])
        return period


def _remember(examples: list[str], text: str) -> None:
    # The latest few, without repeats (a repeat moves to the end): "try this at home" examples.
    if not text:
        return
    if text in examples:
        examples.remove(text)
    examples.append(text)
    del examples[:-EXAMPLES]


# --- weeks ------------------------------------------------------------------------------


def week_start_of(moment: datetime, tz: ZoneInfo) -> date:
    """The Monday (in the school's time zone) of the week holding `moment`."""
    local = moment.astimezone(tz).date()
    return local - timedelta(days=local.weekday())


def week_bounds(week_start: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    start = datetime.combine(week_start, time(0), tzinfo=tz)
    return start, datetime.combine(week_start + timedelta(days=7), time(0), tzinfo=tz)


# --- one week's tally, and the whole report ------------------------------------------------

TALLY_VERSION = 4  # bump when week_tally's or week_summary's shape or meaning changes: stored tallies are rebuilt
SETTLED = ("finished", "abandoned")  # games.Game.Status: a game whose length no longer changes


def week_tally(plays: Iterable[Mapping[str, Any]], week_start: date) -> dict[str, Any]:
    """Everything a report needs from one week's plays (oldest first), JSON-ready.

    Reports of later weeks merge the stored tallies of the weeks before instead of reading
    their plays again: the last attempts per skill and per level are kept as long as the
    report's windows (RECENT, LEVEL_UP_WINDOW), so the merge gives the same figures.
    """
    period = Period()
    recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=RECENT))
    at_level: dict[str, deque] = defaultdict(lambda: deque(maxlen=LEVEL_UP_WINDOW))
    series: dict[str, Tally] = defaultdict(Tally)
    spans: dict[int, list[datetime]] = {}
    for play in plays:
        at = play["at"]
        skills = skills_of_play(play)
        outcomes = skill_outcomes(play, skills)
        period.add(play, skills, outcomes)
        span = spans.setdefault(play["game_id"], [at, at])
        span[0], span[1] = min(span[0], at), max(span[1], at)
        for skill, ok, ms in outcomes:
            recent[skill].append([ok, ms])
            series[skill].add(ok)
        if play["kind"] == "announce" and _judged(play):
            key = f"{play.get('number_range')}/{play.get('tier')}"
            at_level[key].append([bool(play["ok"]), play.get("reaction_ms")])
    return {
        "version": TALLY_VERSION,
        "week_start": week_start.isoformat(),
        "period": period.state(),
        "recent": {skill: list(attempts) for skill, attempts in recent.items()},
        "at_level": {key: list(answers) for key, answers in at_level.items()},
        "series": {skill: [t.n, t.right] for skill, t in series.items()},
        "spans": [[game_id, a.isoformat(), b.isoformat()] for game_id, (a, b) in spans.items()],
    }


# --- running totals: a week's report from the summary of the weeks before -------------------


class Summary:
    """The running totals of a student's weeks up to `until` (the end of the last week added):
    what report_from_summary needs of the earlier weeks, in a size that does not grow with
    them (except the per-week series of the charts and the reaction times of the year's
    medians): the year's Period, the last attempts per skill and per level, and the games:
    the settled ones (finished or ended early, with both times: their length is fixed) as a
    count and minutes, the others (still open, or known only from plays) by id with the span
    of the student's plays in them, looked at again by the next weeks.
    """

    def __init__(self, state: Mapping[str, Any] | None = None) -> None:
        state = state or {
            "year": Period().state(),
            "recent": {},
            "at_level": {},
            "series": {},
            "done": [0, 0],
            "open": [],
            "until": None,
        }
        self.until = datetime.fromisoformat(state["until"]) if state["until"] else None
        self.year = Period.from_state(state["year"])
        self.recent = {
            skill: deque(attempts, maxlen=RECENT) for skill, attempts in state["recent"].items()
        }
        self.at_level = {
            key: deque(answers, maxlen=LEVEL_UP_WINDOW)
            for key, answers in state["at_level"].items()
        }
        self.series = {skill: list(points) for skill, points in state["series"].items()}
        self.done = list(state["done"])
        self.open = [list(row) for row in state["open"]]
        self.week_start = state.get("week_start")

    def add(
        self, tally: Mapping[str, Any], games: Iterable[Mapping[str, Any]], *, until: datetime
    ) -> None:
        """One more week (week_tally) ending at `until`. `games`: rows as report_from_summary
        takes them, with "status"; any superset of the games started since the last week
        added, the open ones and those of the week's plays."""
        self.year.merge(Period.from_state(tally["period"]))
        for skill, attempts in tally["recent"].items():
            self.recent.setdefault(skill, deque(maxlen=RECENT)).extend(attempts)
        for key, answers in tally["at_level"].items():
            self.at_level.setdefault(key, deque(maxlen=LEVEL_UP_WINDOW)).extend(answers)
        for skill, (n, right) in tally["series"].items():
            self.series.setdefault(skill, []).append([tally["week_start"], n, right])
        state = {"open": self.open}
        spans = _open_spans(state)
        _add_spans(spans, tally["spans"])
        still_open = []
        for game, _at, span, _known in _games_since(
            state, games, spans, since=self.until, until=until
        ):
            if _settled(game):
                self.done[0] += 1
                self.done[1] += _game_minutes(game, span)
            else:
                still_open.append(
                    [game["id"], span[0].isoformat(), span[1].isoformat()]
                    if span
                    else [game["id"], None, None]
                )
        self.open, self.until, self.week_start = still_open, until, tally["week_start"]

    def state(self) -> dict[str, Any]:
        return {
            "version": TALLY_VERSION,
            "week_start": self.week_start,
            "until": self.until.isoformat() if self.until else None,
            "year": self.year.state(),
            "recent": {skill: list(attempts) for skill, attempts in self.recent.items()},
            "at_level": {key: list(answers) for key, answers in self.at_level.items()},
            "series": self.series,
            "done": self.done,
            "open": self.open,
        }


def summary_open_games(summary: Mapping[str, Any] | None) -> list[int]:
    """The games a summary counts again in the next weeks (their rows are read again)."""
    return [row[0] for row in (summary or {}).get("open", ())]


def report_from_summary(
    *,
    summary: Mapping[str, Any] | None,
    tally: Mapping[str, Any],
    week_start: date,
    tz: ZoneInfo,
    level: tuple[int, int],
    games: Iterable[Mapping[str, Any]] = (),
    cards_won: Mapping[int, int] | None = None,
    level_changes: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The figures of one student's weekly report, JSON-ready: the one report builder.

    From the running totals of the weeks before (Summary.state(), or None) and the report
    week's tally (week_tally): the same work in week 2 and in week 72.

    games: {"id", "kind", "started_at", "ended_at", "score", "status"} for the games started
    since the summary's end, its open games and those of the week's plays, at least.
    cards_won: game id -> cards won in tricks (games.engine.events.cards_won).
    level_changes: the week's level changes, as report_details gives them.
    """
    start, end = week_bounds(week_start, tz)
    since = datetime.fromisoformat(summary["until"]) if summary and summary["until"] else None
    week = Period()
    week.merge(Period.from_state(tally["period"]))
    year = Period.from_state(summary["year"]) if summary else Period()
    year.merge(Period.from_state(tally["period"]))
    level_key = f"{level[0]}/{level[1]}"
    recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=RECENT))
    at_level: deque = deque(maxlen=LEVEL_UP_WINDOW)
    series: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for part in ((summary or {}).get("recent", {}), tally["recent"]):
        for skill, attempts in part.items():
            recent[skill].extend((ok, ms) for ok, ms in attempts)
    for part in ((summary or {}).get("at_level", {}), tally["at_level"]):
        at_level.extend((ok, ms) for ok, ms in part.get(level_key, ()))
    for skill, points in (summary or {}).get("series", {}).items():
        for key, n, right in points:
            series[skill][key] = [n, right]
    for skill, (n, right) in tally["series"].items():
        series[skill][tally["week_start"]] = [n, right]
    spans = _open_spans(summary)
    _add_spans(spans, tally["spans"])

    cards_won = cards_won or {}
    year_games, year_minutes = (summary or {}).get("done", [0, 0])
    week_games = []
    counted = sorted(
        _games_since(summary, games, spans, since=since, until=end),
        key=lambda row: (row[1], row[0]["id"]),
    )
    for game, at, span, _known in counted:
        minutes = _game_minutes(game, span)
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


def _settled(game: Mapping[str, Any]) -> bool:
    return (
        game.get("status") in SETTLED
        and bool(game.get("started_at"))
        and bool(game.get("ended_at"))
    )


def _open_spans(summary: Mapping[str, Any] | None) -> dict[int, list[datetime] | None]:
    spans: dict[int, list[datetime] | None] = {}
    for game_id, first, last in (summary or {}).get("open", ()):
        spans[game_id] = (
            [datetime.fromisoformat(first), datetime.fromisoformat(last)] if first else None
        )
    return spans


def _add_spans(spans: dict[int, list[datetime] | None], rows: Iterable) -> None:
    for game_id, first, last in rows:
        first, last = datetime.fromisoformat(first), datetime.fromisoformat(last)
        span = spans.get(game_id)
        if span is None:
            spans[game_id] = [first, last]
        else:
            span[0], span[1] = min(span[0], first), max(span[1], last)


def _games_since(summary, games, spans, *, since: datetime | None, until: datetime):
    """(row, time, span, open before) of the games counted in [since, until): those whose time
    falls in it, and the summary's open games (already timed before `since`); the settled
    games of earlier weeks are in the summary's totals and left out."""
    open_before = set(summary_open_games(summary))
    rows = {g["id"]: g for g in games}
    for game_id in spans:
        rows.setdefault(
            game_id,
            {"id": game_id, "kind": "", "started_at": None, "ended_at": None, "score": None},
        )
    known = {game_id: span for game_id, span in spans.items() if span is not None}
    for game_id, game in rows.items():
        at = _game_time(game, known)
        if at is None or at >= until:
            continue
        if game_id not in open_before and since is not None and at < since:
            continue  # settled in an earlier week: in the summary's totals
        yield game, at, known.get(game_id), game_id in open_before


def plays_by_week(
    plays: Iterable[Mapping[str, Any]], tz: ZoneInfo
) -> dict[date, list[Mapping[str, Any]]]:
    """Plays (oldest first) grouped by their week in the school's time zone, in order."""
    weeks: dict[date, list[Mapping[str, Any]]] = {}
    week_from = week_until = None
    rows: list[Mapping[str, Any]] = []
    for play in plays:
        at = play["at"]
        # Plays come in time order: the week changes rarely, so the time-zone arithmetic
        # is done once per week rather than once per play.
        if week_from is None or not week_from <= at < week_until:
            monday = week_start_of(at, tz)
            week_from, week_until = week_bounds(monday, tz)
            rows = weeks.setdefault(monday, [])
        rows.append(play)
    return weeks


def _bands(recent: Mapping[str, Iterable]) -> dict[str, Any]:
    bands = {}
    for skill in engine_skills.ALL_SKILLS:
        attempts = recent.get(skill)
        if not attempts:
            continue
        tally = Tally()
        for ok, ms in attempts:
            tally.add(ok, ms)
        figures = tally.to_dict()
        figures["band"] = band_for(
            tally.n, figures["accuracy"], figures["median_ms"], timed=skill in engine_skills.SKILLS
        )
        bands[skill] = figures
    return bands


def _report_dict(
    *,
    week_start: date,
    end: datetime,
    level: tuple[int, int],
    week: Period,
    year: Period,
    recent: Mapping[str, Iterable],
    at_level: Iterable,
    series: Mapping[str, Mapping[str, list[int]]],
    week_games: list[dict],
    year_games: int,
    year_minutes: int,
    level_changes: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    week_minutes = sum(g["minutes"] for g in week_games)
    week_dict, year_dict = week.to_dict(), year.to_dict()
    week_dict.update(
        games=len(week_games),
        minutes=week_minutes,
        cards_won=sum(g["cards_won"] for g in week_games),
    )
    year_dict.update(games=year_games, minutes=year_minutes)
    return {
        "version": 1,
        "week_start": week_start.isoformat(),
        "week_end": (week_start + timedelta(days=6)).isoformat(),
        "level": {"number_range": level[0], "tier": level[1]},
        "week": week_dict,
        "year": year_dict,
        "bands": _bands(recent),
        "series": {
            skill: [[w, n, right] for w, (n, right) in sorted(weeks.items())]
            for skill, weeks in series.items()
        },
        "games": week_games,
        "levels": [
            {
                "at": c["changed_at"].isoformat(),
                "number_range": c["number_range"],
                "tier": c["tier"],
            }
            for c in level_changes
            if c["changed_at"] < end
        ],
        "recommendation": recommend(level, at_level),
    }


def _week_game(game: Mapping[str, Any], at: datetime, minutes: int, cards_won: dict) -> dict:
    """One of the week's games as the report lists it."""
    return {
        "id": game["id"],
        "kind": game.get("kind") or "",
        "at": at.isoformat(),
        "cards_won": cards_won.get(game["id"], 0),
        "score": game.get("score"),
        "minutes": minutes,
    }


def _game_time(game: Mapping[str, Any], play_span: Mapping[int, list[datetime]]) -> datetime | None:
    if game.get("started_at"):
        return game["started_at"]
    span = play_span.get(game["id"])
    return span[0] if span else None


def _game_minutes(game: Mapping[str, Any], span: list[datetime] | None) -> int:
    """An estimate: the game's length (capped), else the time between the child's first and
    last plays in it plus a minute."""
    if game.get("started_at") and game.get("ended_at"):
        seconds = (game["ended_at"] - game["started_at"]).total_seconds()
    elif span:
        seconds = (span[1] - span[0]).total_seconds() + 60
    else:
        return 0
    return int(min(max(seconds, 0) / 60, MAX_GAME_MINUTES) + 0.5)
