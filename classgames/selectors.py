"""Reads for the class games: the live view of every table, the history and the replay."""

from __future__ import annotations

import hashlib
import json

from django.db.models import Count, Prefetch, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from classrooms import permissions
from classrooms.grouping import rules_summary
from classrooms.models import Classroom
from games import engine
from games.engine import events as ev
from games.models import Game, Move, Seat
from games.selectors import name_seats, player_names
from games.wording import (
    as_printed,
    events_sentences,
    refusal_message,
    ruling_texts,
    verdict_message,
)

from . import reads
from .models import ClassAttendance, ClassSession


def class_sessions_of(classroom: Classroom) -> QuerySet[ClassSession]:
    """A class's class games, newest first."""
    return ClassSession.objects.filter(classroom=classroom).order_by("-created_at")


# --- "Play now": who is present, and the class's usual settings -------------------------------

# What "Play now" copies from the class's last class game (classrooms.forms.ClassGameSettingsForm).
USUAL_KEYS = (
    "challenge_window",
    "challenge_time",
    "turn_time",
    "untimed",
    "nothing_true_penalty",
    "lesson",
    "copies",
    "x_cards",
    "events",
)


def attendance_absent(classroom: Classroom) -> set[int]:
    """The students marked absent at the class's last attendance (none before the first)."""
    row = ClassAttendance.objects.filter(classroom=classroom).only("absent").first()
    return {int(pk) for pk in (row.absent if row else []) if str(pk).isdigit()}


def usual_settings(classroom: Classroom) -> dict:
    """The settings of the class's last class game, or the set-up form's defaults before one.

    Besides these, every table plays at its weakest student's level (R2.3), as in the set-up.
    """
    from classrooms.forms import ClassGameSettingsForm

    form = ClassGameSettingsForm(
        {name: field.initial for name, field in ClassGameSettingsForm.base_fields.items()}
    )
    form.is_valid()  # the defaults are valid by construction
    usual = {**form.settings(), "starter": "first", "cap_range": None, "cap_tier": None}
    last = ClassSession.objects.filter(classroom=classroom).order_by("-created_at").first()
    if last is not None:
        kept = {k: last.settings[k] for k in USUAL_KEYS if k in (last.settings or {})}
        kept.update(
            {k: last.settings.get(k) for k in ("starter", "cap_range", "cap_tier")}
            if "starter" in (last.settings or {})
            else {}
        )
        usual.update(kept)
    return usual


def play_now_context(classroom: Classroom, students) -> dict:
    """The class page's "Play now" block: each child present or absent, and the class game
    going on, if any (its live view and class board are linked instead of a second start)."""
    absent = attendance_absent(classroom)
    rows = [{"student": s, "present": s.pk not in absent} for s in students]
    return {
        "rows": rows,
        "n_present": sum(1 for r in rows if r["present"]),
        "going": class_session_going(classroom),
    }


def class_session_going(classroom: Classroom) -> ClassSession | None:
    """The class's newest class game still running or paused, if any."""
    return (
        ClassSession.objects.filter(
            classroom=classroom,
            status__in=[ClassSession.Status.RUNNING, ClassSession.Status.PAUSED],
        )
        .order_by("-created_at")
        .first()
    )


# --- the live class view -------------------------------------------------------------------

# A running table where nothing happened for this long is flagged as stuck.
STUCK_AFTER_SECONDS = 180
# A student whose turn has lasted this long, or whose tablet went quiet, is flagged.
IDLE_AFTER_SECONDS = 90
TABLET_QUIET_SECONDS = 60
# The live page re-renders at least this often even when no table moved, so flags stay fresh.
LIVE_REFRESH_BUCKET_SECONDS = 20


def session_pulse(session, *, only=None) -> list[tuple]:
    """One small query: what changes between two polls (id, version, status, deadlines), of
    every table or of those of `only` (classgames.reads)."""
    return reads.session_pulse(session, only=only)


def session_fingerprint(pulse: list[tuple], now) -> str:
    bucket = int(now.timestamp()) // LIVE_REFRESH_BUCKET_SECONDS
    body = ";".join(f"{pk}.{version}.{status}" for pk, version, status, *_rest in pulse)
    return hashlib.blake2b(f"{body}|{bucket}".encode(), digest_size=8).hexdigest()


def _flag_minutes(now, since, threshold: int) -> int:
    """The minutes a live-view flag shows for a wait that began at `since` (0: no flag yet)."""
    if since is None:
        return 0
    seconds = (now - since).total_seconds()
    return _minutes(seconds) if seconds > threshold else 0


def table_mark(game, seats: list[tuple[str, object]], now) -> str:
    """What one table of the live view shows, in a word: its moves (version) and status, its
    seats' players (a computer for an absent child: `seats`, [(bot, last_seen_at)] in position
    order) and the minutes its flags show (_live_flags), so the word changes exactly when the
    table's section would. From columns alone (`game` may hold only pk, version, status and
    its three times; no game state): the view's poll answers 204 with two small queries
    (issue 38: it re-rendered every table each 15 s while a class played). The "not played
    for" flag is counted whatever the phase (the phase lives in the state): a word that
    changes for nothing costs one render, never a stale flag."""
    flags = ""
    if game.status == Game.Status.RUNNING:
        last = game.last_move_at or game.started_at
        quiet = [_flag_minutes(now, seen, TABLET_QUIET_SECONDS) for bot, seen in seats if not bot]
        flags = (
            f"{_flag_minutes(now, last, STUCK_AFTER_SECONDS)}"
            f".{_flag_minutes(now, game.phase_started_at or last, IDLE_AFTER_SECONDS)}.{quiet}"
        )
    players = ",".join(bot or "-" for bot, _seen in seats)
    body = f"{game.pk}.{game.version}.{game.status}.{players}.{flags}"
    return hashlib.blake2b(body.encode(), digest_size=6).hexdigest()


def live_shown(session_status: str, marks: list[str]) -> str:
    """The whole live view in a word: the class game's status and each table's mark, in the
    page's order. static/js/kavet.js sends the same word made from the page as it stands (the
    marks of the sections it holds: one-table fetches replace them), so the poll answers 204
    when the page already shows everything as it is."""
    return session_status + ":" + ".".join(marks)


def live_marked_games(session) -> list[Game]:
    """The class game's tables with what their marks read (reads.MARK_FIELDS: the pulse's
    columns among them), in the page's order: one query."""
    return reads.session_games(session, reads.MARK_FIELDS)


def live_table_marks(session, now, games: list[Game] | None = None) -> list[tuple[int, bool, str]]:
    """(game id, over, mark: table_mark) of every table in the page's order, from the rows in
    two queries (one when `games` were read already: live_marked_games): what the view's poll
    compares with the page's word (a 204, or sections)."""
    if games is None:
        games = live_marked_games(session)
    seats: dict[int, list[tuple[str, object]]] = {}
    for seat in reads.session_seats(session, reads.SEAT_MARK_FIELDS):
        seats.setdefault(seat.game_id, []).append((seat.bot, seat.last_seen_at))
    over = (Game.Status.FINISHED, Game.Status.ABANDONED)
    return [
        (game.pk, game.status in over, table_mark(game, seats.get(game.pk, []), now))
        for game in games
    ]


def live_changed(shown: str, session_status: str, marks) -> list[int] | None:
    """The tables whose section the page shows out of date, from the word the page sends
    (`shown`, live_shown's form, as static/js/kavet.js makes it from the page as it stands)
    and the rows' marks (live_table_marks): then the poll sends those sections alone, not the
    whole view. None when the whole view is to be sent: the class game's status is not the one
    shown (its controls, its status line), the page holds other tables than the rows (a word
    forged, cut or from an older page), every table is over (the view then shows the class
    game over), or nothing is out of date (a 204)."""
    status, sep, body = shown.partition(":")
    page = body.split(".") if body else []
    if not sep or status != session_status or len(page) != len(marks):
        return None
    if marks and all(over for _game_id, over, _mark in marks):
        return None
    changed = [
        game_id for (game_id, _over, mark), seen in zip(marks, page, strict=True) if mark != seen
    ]
    return changed or None


def _card_labels(cards: list[dict]) -> list[dict]:
    return [{"label": c.get("label", "?"), "kind": c.get("kind", "number")} for c in cards]


def _minutes(seconds: float) -> int:
    return max(1, int(seconds // 60))


def live_table(game, now) -> dict:
    """Everything the live view shows for one table, from the stored state (no query)."""
    seats = name_seats(game.seats.all())  # prefetched; computer players numbered, no query
    rules = (game.config or {}).get("rules", {})
    finished = game.status in (Game.Status.FINISHED, Game.Status.ABANDONED)
    view = None
    if game.state:
        view = engine.seat_view(engine.GameState.from_dict(game.state), None)
    by_position = {s.position: s for s in seats}
    table: dict = {
        "game": game,
        "label": str(game),
        "status": game.status,
        "status_text": game.get_status_display(),
        "rules": rules_summary(rules.get("max_number", 20), rules.get("tier", 1)) if rules else "",
        "cards": [],
        "draw_count": None,
        "phase_text": "",
        "challenge": None,
        "pending": "",
        "flags": [],
        "seats": _live_seats(seats, view, finished),
        "finished": finished,
    }
    table["humans"] = [s for s in table["seats"] if not s["bot"]]
    if view:
        table["cards"] = _card_labels(view.get("table") or [])
        table["draw_count"] = view.get("draw_count")
        table.update(_live_phase(view, by_position))
    # Flags: a table that has not moved for long, a student who has not played for a while.
    if game.status == Game.Status.RUNNING:
        table["flags"] = _live_flags(game, seats, by_position, view, now)
    table["mark"] = table_mark(game, [(s.bot, s.last_seen_at) for s in seats], now)
    return table


def _live_seats(seats, view: dict | None, finished: bool) -> list[dict]:
    """Each seat of a live table: name, score, cards held, events and skips owed."""
    active = view["active"] if view else None
    phase = view["phase"] if view else None
    rows = []
    for position, seat in enumerate(seats):
        seat_data = view["seats"][position] if view and position < len(view["seats"]) else {}
        rows.append(
            {
                "seat": seat,
                "position": seat.position,
                "name": seat.display_name,
                "bot": seat.bot,
                "is_active": phase == "turn" and active == seat.position and not finished,
                "score": seat.score
                if seat.score is not None
                else (seat_data.get("score", 0) if seat_data else 0),
                "place": seat.place,
                "held": len(seat_data.get("held") or []),
                "events": [c.get("label") for c in seat_data.get("events") or []],
                # A skip still owed when the game ends is never served (R4.7): not shown.
                "skips": 0 if finished else seat_data.get("skips", 0),
            }
        )
    return rows


def _live_phase(view: dict, by_position: dict) -> dict:
    """What the table is waiting for, in words: whose turn, an announcement open to challenge,
    a challenge under way, or the game over."""
    phase, active = view["phase"], view["active"]
    pending = view.get("pending")
    challenge = view.get("challenge")
    said: dict = {}

    def name(position) -> str:
        return by_position[position].display_name if position in by_position else "?"

    if phase == "turn" and active is not None:
        said["phase_text"] = _("%(name)s's turn") % {"name": name(active)}
    elif phase == "window" and pending:
        if pending.get("kind") == "announce":
            said["phase_text"] = _("%(name)s announced — the others may call “Kavet 'm eus!”") % {
                "name": name(pending.get("seat"))
            }
            said["pending"] = as_printed(pending.get("text", ""))
        else:
            said["phase_text"] = _(
                "%(name)s said “nothing to do” — the others may call “Kavet 'm eus!”"
            ) % {"name": name(pending.get("seat"))}
    elif phase in ("challenge", "chwech_offer", "chwech_announce") and challenge:
        said["challenge"] = _("Kavet 'm eus! %(challenger)s challenges %(challenged)s") % {
            "challenger": name(challenge.get("challenger")),
            "challenged": name(challenge.get("challenged")),
        }
        if pending and pending.get("kind") == "announce":
            said["pending"] = as_printed(pending.get("text", ""))
    elif phase == "over":
        said["phase_text"] = _("Game over")
    return said


def _live_flags(game, seats, by_position: dict, view: dict | None, now) -> list[str]:
    """A running table's warnings: no move for long, a child who has not played for a while,
    a tablet gone quiet (their minutes counted as table_mark counts them)."""
    active = view["active"] if view else None
    phase = view["phase"] if view else None
    flags = []
    last = game.last_move_at or game.started_at
    stuck = _flag_minutes(now, last, STUCK_AFTER_SECONDS)
    if stuck:
        flags.append(
            ngettext("No move for %(n)s minute", "No move for %(n)s minutes", stuck) % {"n": stuck}
        )
    idle = _flag_minutes(now, game.phase_started_at or last, IDLE_AFTER_SECONDS)
    if phase == "turn" and active in by_position and not by_position[active].bot and idle:
        flags.append(
            ngettext(
                "%(name)s has not played for %(n)s minute",
                "%(name)s has not played for %(n)s minutes",
                idle,
            )
            % {"name": by_position[active].display_name, "n": idle}
        )
    for seat in seats:
        if seat.bot:
            continue
        quiet = _flag_minutes(now, seat.last_seen_at, TABLET_QUIET_SECONDS)
        if quiet:
            flags.append(
                ngettext(
                    "%(name)s's tablet has been quiet for %(n)s minute",
                    "%(name)s's tablet has been quiet for %(n)s minutes",
                    quiet,
                )
                % {"name": seat.display_name, "n": quiet}
            )
    return flags


def live_tables(session, now, *, only: list[int] | None = None) -> list[dict]:
    """Every table of a class game (or those of `only` that are among them): two queries
    whatever the number of tables or moves."""
    games = reads.session_games(session, reads.LIVE_FIELDS, only=only, with_seats=reads.SEAT_FIELDS)
    return [live_table(game, now) for game in games]


# --- history and replay ----------------------------------------------------------------------


def replay_at_move(request) -> int | None:
    """The move a replay is opened at (?move=N, from a list of moves): shown open and marked."""
    value = request.GET.get("move", "")
    return int(value) if value.isdigit() and len(value) < 7 else None


def finished_games(classroom: Classroom):
    return (
        Game.objects.filter(
            classroom=classroom, status__in=[Game.Status.FINISHED, Game.Status.ABANDONED]
        )
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.order_by("place", "position")))
        .order_by("-finished_at", "-pk")
    )


def _as_stored(value):
    """A value as it comes back from a JSON column (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def _comparable(state_dict: dict | None) -> dict:
    """A stored state without what a replay cannot know (which seats were bots from the start)."""
    data = _as_stored(state_dict or {})
    data.pop("bots", None)
    return data


def replay_names(game, *, child=None) -> list[str]:
    """The players' names in seat order for a replay. For a parent (`child` given), every other
    child becomes "Player N" (their seat number); computer players keep their names."""
    seats = name_seats(game.seats.all())
    if child is None:
        return player_names(game, seats)
    return [
        s.display_name
        if s.bot or s.student_id == child.pk
        else _("Player %(number)s") % {"number": s.position + 1}
        for s in seats
    ]


def _table_operation(state) -> str:
    """An operation with the table's cards as they lie then (R5.6, the solver at that moment)."""
    values = [state.value_of(c) for c in state.table]
    op = engine.find_operation(values, state.config.rules) if len(values) >= 3 else None
    return as_printed(op.text) if op is not None else ""


def _step_rulings(events: list[dict], players: list[str], before) -> dict:
    """Who each ruling of one move is about: the operation's author is credited with its verdict,
    the challenger with the challenge (R5.4, R5.5), and each false "nothing to do" or missed
    chance to call "Kavet 'm eus!" comes with an operation that was possible (R5.6)."""

    def who(seat) -> str:
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else ""

    texts = ruling_texts(players)
    typed = [ev.event_from_dict(e) for e in events]
    challenged = any(isinstance(e, ev.ChallengeCalled) for e in typed)
    window_closed = any(isinstance(e, ev.WindowClosed) for e in typed)
    verdicts, missed, outcomes = [], [], []
    for event in typed:
        match event:
            case ev.Verdict():
                ok = bool(event.ok)
                verdicts.append(
                    {
                        "who": who(event.seat),
                        "ok": ok,
                        "text": as_printed((event.operation or {}).get("text", ""))
                        or as_printed(event.text),
                        "why": "" if ok else verdict_message(event.code, event.params),
                    }
                )
                if not ok and window_closed and not challenged:
                    # A wrong operation nobody challenged: the table is as it was before it.
                    missed.append(
                        {
                            "kind": "chance",
                            "who": who(event.seat),
                            "operation": _table_operation(before),
                        }
                    )
            case ev.NothingRuled(was_true=False):
                possible = as_printed((event.possible or {}).get("text", ""))
                missed.append(
                    {
                        "kind": "nothing",
                        "who": who(event.seat),
                        "operation": possible or _table_operation(before),
                        "unchallenged": window_closed and not challenged,
                    }
                )
            case ev.ChallengeRuled():
                ruling = texts.outcome(event)
                outcomes.append(
                    {
                        "ok": ruling["ok"],
                        "word": ruling["word"],
                        "reason": ruling["reason"],
                        "challenger": who(event.challenger),
                        "challenged": who(event.challenged),
                    }
                )
    return {"verdicts": verdicts, "missed": missed, "outcomes": outcomes}


def game_replay(game, *, players: list[str] | None = None) -> dict:
    """The game replayed from its seed and stored moves, step by step, with every verdict.

    Each step re-applies the stored move with the engine (R9.2) and says whether the events
    and the final state are the ones recorded when the game was played. `players` are the
    names to tell it with (replay_names); by default every player's own name.
    """
    config = engine.GameConfig.from_dict(game.config)
    players = players if players is not None else player_names(game)
    state = engine.new_game(config, seed=game.seed, draw_order=game.draw_order)
    opening = _card_labels(engine.seat_view(state, None).get("table") or [])
    steps: list[dict] = []
    moves = list(Move.objects.filter(game=game).order_by("number"))
    matches = True
    error = ""
    for move in moves:
        before = state
        try:
            state, events = engine.apply_move(state, move.payload)
        except engine.EngineError as exc:
            matches = False
            error = _("The replay stopped at move %(number)d: %(why)s") % {
                "number": move.number,
                "why": refusal_message(exc.code, exc.params),
            }
            break
        if move.events and _as_stored(events) != move.events:
            matches = False
        view = engine.seat_view(state, None)
        rulings = _step_rulings(events, players, before)
        tones = [v["ok"] for v in rulings["verdicts"]] + [o["ok"] for o in rulings["outcomes"]]
        steps.append(
            {
                "number": move.number,
                "who": players[move.seat]
                if move.seat is not None and move.seat < len(players)
                else "",
                "kind": move.payload.get("type", ""),
                "sentences": events_sentences(events, players),
                **rulings,
                "tone": ("bad" if rulings["missed"] or not all(tones) else "ok")
                if tones or rulings["missed"]
                else "",
                "table": _card_labels(view.get("table") or []),
                "scores": list(
                    zip(players, [s.get("score", 0) for s in view.get("seats") or []], strict=False)
                ),
                "at": move.created_at,
            }
        )
    if not error and game.state is not None:
        matches = matches and _comparable(state.to_dict()) == _comparable(game.state)
    seats = name_seats(game.seats.all())
    return {
        "players": players,
        "seats": [
            {
                "name": players[s.position] if s.position < len(players) else "",
                "score": s.score,
                "place": s.place,
            }
            for s in seats
        ],
        "opening": opening,
        "steps": steps,
        "matches": matches,
        "error": error,
        "final": state,
    }


def games_of_student(student, *, since=None, until=None, limit: int = 20) -> list[Game]:
    """A student's finished games (as a player), newest first: the parent's list of replays."""
    games = Game.objects.filter(
        seats__student=student, status__in=[Game.Status.FINISHED, Game.Status.ABANDONED]
    )
    if since is not None:
        games = games.filter(finished_at__gte=since)
    if until is not None:
        games = games.filter(finished_at__lt=until)
    return list(games.distinct().order_by("-finished_at", "-pk")[:limit])


# --- what this app adds to the teachers' pages of classrooms (classrooms.pages) ---------------


def teacher_home_panel(user) -> dict:
    """The teacher's home: the class games running in the classes this user may see."""
    sessions = (
        permissions.readable(user, ClassSession)
        .filter(status__in=[ClassSession.Status.RUNNING, ClassSession.Status.PAUSED])
        .select_related("classroom")
        .annotate(n_games=Count("tables", distinct=True))
        .order_by("-created_at")
    )
    return {"sessions": list(sessions)}


def class_page_panel(classroom: Classroom, students) -> dict:
    """A class's page: its latest class games, and "Play now" (who is present, one tap each,
    and the one-tap start)."""
    return {
        "sessions": list(class_sessions_of(classroom)[:5]),
        "play_now": play_now_context(classroom, students),
    }
