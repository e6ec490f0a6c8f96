"""From recorded plays to skills: accuracy and speed per skill, mastery bands, level advice.

Pure computation over plain dicts (rows of games.Play as `.values()` gives them), so that the
figures can be checked by hand in tests and built for a whole class without extra queries.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine import skills as engine_skills

# The engine's skills (games.engine.skills), in the order reports show them: those of an
# operation's shape, then the two that come from the game (challenges, "nothing to do").
OPERATION_SKILLS = engine_skills.SKILLS
SPOTTING = engine_skills.SPOTTING
NOTICING = engine_skills.NOTICING
SKILLS = OPERATION_SKILLS + engine_skills.GAME_SKILLS

SKILL_LABELS = {
    "addsub_10": _("Adding and taking away within 10"),
    "addsub_20": _("Adding and taking away within 20"),
    "mult": _("Multiplication facts"),
    "div": _("Division facts"),
    "multi_step": _("Operations in several steps (three or more numbers)"),
    "frac_pow": _("Fractions and powers"),
    "joker": _("Using the X card"),
    SPOTTING: _("Spotting others' mistakes"),
    NOTICING: _("Seeing every possible operation"),
}
SKILL_SHORT = {
    "addsub_10": pgettext_lazy("skill, short", "+ − to 10"),
    "addsub_20": pgettext_lazy("skill, short", "+ − to 20"),
    "mult": pgettext_lazy("skill, short", "×"),
    "div": pgettext_lazy("skill, short", "÷"),
    "multi_step": pgettext_lazy("skill, short", "steps"),
    "frac_pow": pgettext_lazy("skill, short", "fractions, powers"),
    "joker": pgettext_lazy("skill, short", "X card"),
    SPOTTING: pgettext_lazy("skill, short", "challenges"),
    NOTICING: pgettext_lazy("skill, short", "finding operations"),
}
# What a parent can do at home for a skill that is still being learnt.
SKILL_AT_HOME = {
    "addsub_10": _(
        "Make 10 together: with fingers, coins or cards, ask “how many more to make 10?” (3 and 7, 6 and 4…)."
    ),
    "addsub_20": _(
        "Add and take away across 10: 8 + 5 is 8 + 2 + 3. Count on from the bigger number, then back."
    ),
    "mult": _(
        "Say the times tables out loud in the car or while cooking, a few facts at a time; start with 2, 5 and 10."
    ),
    "div": _(
        "Share things out fairly: 12 sweets between 3 plates. Each division is a multiplication backwards."
    ),
    "multi_step": _(
        "Pick three cards or dice and look for a way to join them: (8 − 5) × 2 = 6. Say each step aloud."
    ),
    "frac_pow": _(
        "Talk about halves and quarters of a pizza, and squares: 3 × 3 = 3², 4 × 4 = 4²."
    ),
    "joker": _("The X card can be any number: ask “which number would make 7 + ? = 10 true?”"),
    SPOTTING: _("Make small mistakes on purpose (“5 + 4 = 8?”) and let your child catch you."),
    NOTICING: _(
        "Lay out four cards and look together for every operation you can make before saying “nothing”."
    ),
}
# Kinds of mistakes for the teachers' summary: the engine's "wrong" codes (R3.5) and misses.
MISTAKE_LABELS = {
    "wrong_result": _("the result was false"),
    "division_by_zero": _("a division by zero"),
    "not_whole": _("a division that is not exact"),
    "negative": _("a negative intermediate result"),
    "out_of_bounds": _("an intermediate result out of bounds"),
    "zero_power_zero": _("0 to the power 0"),
    "exponent_not_allowed": _("an exponent out of range"),
    "overlooked": _("an operation overlooked (“nothing to do” was false)"),
}


@dataclass(frozen=True)
class Band:
    key: str
    label: Any
    explanation: Any
    colour: str  # readable on white and distinct for colour-blind readers with the letter
    letter: Any  # the band's initial in the reader's language


BANDS = (
    Band(
        "practising",
        _("Practising"),
        _("Still learning this. Mistakes are part of learning; regular play helps most."),
        "#f4c7c3",
        pgettext_lazy("band letter: Practising", "P"),
    ),
    Band(
        "getting_there",
        _("Getting there"),
        _("Right more often than not. A little more practice will make it sure."),
        "#fde7a9",
        pgettext_lazy("band letter: Getting there", "G"),
    ),
    Band(
        "confident",
        _("Confident"),
        _("Right most of the time."),
        "#c9e7c3",
        pgettext_lazy("band letter: Confident", "C"),
    ),
    Band(
        "mastered",
        _("Mastered"),
        _("Right almost every time, and quickly."),
        "#7fc48a",
        pgettext_lazy("band letter: Mastered", "M"),
    ),
)
BAND_BY_KEY = {b.key: b for b in BANDS}

RECENT = 40  # bands look at a skill's last 40 attempts: the child now, not in September
MIN_ATTEMPTS = 5  # fewer than this: "not enough play yet", no band
MASTERED_MIN = 20
FAST_MS = 20_000  # a median answer within 20 s counts as "quickly"
LEVEL_UP_WINDOW = 60  # "92 % of the last 60 operations right, quickly"
LEVEL_UP_ACCURACY = 0.9
LEVEL_DOWN_WINDOW = 40
LEVEL_DOWN_ACCURACY = 0.5
MAX_GAME_MINUTES = 60  # a game left open over lunch is not an hour of play
EXAMPLES = 5


def band_for(
    n: int, accuracy: float | None, median_ms: int | None, *, timed: bool = True
) -> str | None:
    """The band of a skill from its recent attempts; None while there is too little play."""
    if n < MIN_ATTEMPTS or accuracy is None:
        return None
    if accuracy < 0.6:
        return "practising"
    if accuracy < 0.8:
        return "getting_there"
    quick = (not timed) or (median_ms is not None and median_ms <= FAST_MS)
    if accuracy >= 0.9 and n >= MASTERED_MIN and quick:
        return "mastered"
    return "confident"


# --- skills of one play --------------------------------------------------------------------


def skills_of_play(play: Mapping[str, Any]) -> list[str]:
    """The skills stored on the play when its move was applied (games.services, from the
    engine's skills_of): reports read them and never work them out again."""
    return [s for s in play.get("skills") or () if s in SKILL_LABELS]


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
            keys += [f"mistake_skill.{s}" for s in skills if s in OPERATION_SKILLS]
    elif kind == "challenge":
        if play.get("challenge_outcome") == "right":
            keys.append("right_challenges")
        elif play.get("challenge_outcome") == "false":
            keys.append("false_challenges")
    elif kind == "nothing":
        if _overlooked(play):
            keys += ["overlooked", "mistake_code.overlooked"]
            keys += [f"mistake_skill.{s}" for s in skills if s in OPERATION_SKILLS]
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
            "skills": {s: self.skills[s].to_dict() for s in SKILLS if s in self.skills},
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


# --- level advice ---------------------------------------------------------------------------


def next_level(number_range: int, tier: int) -> tuple[int, int] | None:
    """One step up: first the numbers to 20, then the next tier of operations (R2)."""
    if number_range < 20:
        return (20, tier)
    if tier < 3:
        return (20, tier + 1)
    return None


def previous_level(number_range: int, tier: int) -> tuple[int, int] | None:
    if tier > 1:
        return (number_range, tier - 1)
    if number_range > 10:
        return (10, tier)
    return None


def recommend(level: tuple[int, int], at_level: Iterable[tuple[bool, int | None]]) -> dict | None:
    """A level proposal from the operations announced at the student's own level, oldest first.

    Up when the last 60 are at least 90 % right with a median answer within 20 s; down when
    the last 40 are less than half right. Nothing otherwise, or with too little evidence.
    """
    recent = list(at_level)
    window = recent[-LEVEL_UP_WINDOW:]
    up = next_level(*level)
    if up and len(window) >= LEVEL_UP_WINDOW:
        right = sum(1 for ok, _ms in window if ok)
        times = [ms for ok, ms in window if ok and ms is not None]
        median_ms = int(statistics.median(times)) if times else None
        if (
            right / len(window) >= LEVEL_UP_ACCURACY
            and median_ms is not None
            and median_ms <= FAST_MS
        ):
            return {
                "direction": "up",
                "number_range": up[0],
                "tier": up[1],
                "n": len(window),
                "right": right,
                "accuracy": round(right / len(window), 4),
                "median_ms": median_ms,
            }
    window = recent[-LEVEL_DOWN_WINDOW:]
    down = previous_level(*level)
    if down and len(window) >= LEVEL_DOWN_WINDOW:
        right = sum(1 for ok, _ms in window if ok)
        if right / len(window) < LEVEL_DOWN_ACCURACY:
            times = [ms for ok, ms in window if ok and ms is not None]
            return {
                "direction": "down",
                "number_range": down[0],
                "tier": down[1],
                "n": len(window),
                "right": right,
                "accuracy": round(right / len(window), 4),
                "median_ms": int(statistics.median(times)) if times else None,
            }
    return None


# --- one week's tally, and the whole report ------------------------------------------------

TALLY_VERSION = 3  # bump when week_tally's or week_summary's shape or meaning changes: stored tallies are rebuilt
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
        """One more week (week_tally) ending at `until`. `games`: rows as report_from_weeks
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
    """report_from_weeks's figures from the running totals of the weeks before (week_summary,
    or None) and the report week's tally: the same work in week 2 and in week 72.

    games: as week_summary's (the games started since the summary's end, its open games and
    those of the week's plays, at least); cards_won and level_changes as report_from_weeks.
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


def _bands(recent: Mapping[str, Iterable]) -> dict[str, Any]:
    bands = {}
    for skill in SKILLS:
        attempts = recent.get(skill)
        if not attempts:
            continue
        tally = Tally()
        for ok, ms in attempts:
            tally.add(ok, ms)
        figures = tally.to_dict()
        figures["band"] = band_for(
            tally.n, figures["accuracy"], figures["median_ms"], timed=skill in OPERATION_SKILLS
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


# --- a figure's moves: every number of a report opens the plays it counts ------------------

FIGURE_SCOPES = (
    "week",
    "year",
    "recent",
)  # the report's week, the weeks up to its end, a band's last tries
_FIGURE_COUNTS = (
    "announcements",
    "right",
    "wrong",
    "right_challenges",
    "false_challenges",
    "nothing_true",
    "overlooked",
)
_CODE = re.compile(r"[a-z_]{1,40}")


@dataclass(frozen=True)
class Figure:
    """One number of a report: a scope and a count of play_figures, e.g. week:right,
    year:skill.mult.n, recent:skill.div.right (the band's last RECENT tries of a skill)."""

    scope: str
    key: str

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"

    @property
    def skill(self) -> str:
        name, _dot, arg = self.key.partition(".")
        return arg.split(".")[0] if name in ("skill", "mistake_skill") else ""


def figure_parse(text: str) -> Figure | None:
    """The figure a link names, or None for anything else (the page answers 404)."""
    scope, _colon, key = (text or "").partition(":")
    name, _dot, arg = key.partition(".")
    if scope not in FIGURE_SCOPES:
        return None
    if name == "skill":
        skill, _dot, which = arg.partition(".")
        ok = skill in SKILLS and which in ("n", "right")
    elif scope == "recent":
        ok = False  # a band counts the last tries of one skill only
    elif name in _FIGURE_COUNTS:
        ok = not arg
    elif name == "mistake_code":
        ok = bool(_CODE.fullmatch(arg))
    elif name == "mistake_skill":
        ok = arg in OPERATION_SKILLS
    else:
        ok = False
    return Figure(scope, key) if ok else None


def figure_plays(
    plays: Iterable[Mapping[str, Any]], figure: Figure, *, start: datetime, end: datetime
) -> list[Mapping[str, Any]]:
    """The plays (oldest first) a figure of the report of the week [start, end) counts: those
    play_figures names it for, the very names Period.add and the bands count by."""
    rows = [p for p in plays if p["at"] < end and (figure.scope != "week" or p["at"] >= start)]
    if figure.scope == "recent":
        tries = f"skill.{figure.skill}.n"
        rows = [p for p in rows if tries in _figures_of(p)][-RECENT:]
    return [p for p in rows if figure.key in _figures_of(p)]


def _figures_of(play: Mapping[str, Any]) -> list[str]:
    skills = skills_of_play(play)
    return play_figures(play, skills, skill_outcomes(play, skills))


def figure_title(figure: Figure) -> str:
    """What a figure counts, in the reader's words: the heading of its list of moves."""
    name, _dot, arg = figure.key.partition(".")
    skill = str(SKILL_LABELS.get(figure.skill, figure.skill))
    if name == "skill":
        what = (
            _("Right tries: %(skill)s") if arg.endswith(".right") else _("Tries: %(skill)s")
        ) % {"skill": skill}
    elif name == "mistake_code":
        what = _("Mistakes: %(kind)s") % {"kind": MISTAKE_LABELS.get(arg, arg)}
    elif name == "mistake_skill":
        what = _("Mistakes in: %(skill)s") % {"skill": skill}
    else:
        what = str(FIGURE_COUNT_LABELS[name])
    when = {
        "week": _("this week"),
        "year": _("since the start of the school year"),
        "recent": _("the last %(n)d tries") % {"n": RECENT},
    }[figure.scope]
    return _("%(what)s, %(when)s") % {"what": what, "when": when}


FIGURE_COUNT_LABELS = {
    "announcements": _("Operations"),
    "right": _("Right operations"),
    "wrong": _("Wrong operations"),
    "right_challenges": _("Mistakes spotted with “Kavet 'm eus!”"),
    "false_challenges": _("“Kavet 'm eus!” when there was no mistake"),
    "nothing_true": _("“Nothing to do” when there was nothing"),
    "overlooked": _("Operations overlooked (“nothing to do” was false)"),
}
