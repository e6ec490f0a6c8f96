"""The demo stays alive: its running class game plays on by itself, and starts again when over.

The demo children are students, not computer players, so nothing in the platform would play
their turns once the demo is built: half an hour later the live view would say "No move for 31
minutes". Here the children the demo stands in for answer when their thinking time is up
(simulate.Player, through move_submit as a tablet would), computer players and time limits go
through game_tick, and a child whose seat a real tablet has open (someone trying the demo) is
left to that tablet. A game left alone for long is first brought to now (simulate.live_refresh),
so a newcomer sees it freshly played rather than a burst of catching up; once every table is
over, a new class game starts with the same tables.

Where no worker runs (`make demo`), the pages that show the class game (the live view, the
class board) call demo_keep_alive on each poll; where workers run, the beat's
demo.tasks.demo_keep_alive_sweep does it, and the pages write nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from classgames.models import ClassSession
from classrooms.models import School, Student
from games import engine, scheduling
from games.models import Game
from games.services import game_tick

from .data import DEMO_CLASSES, HISTORY_WEEKS, DemoClass
from .simulate import Player, _players, child_move, live_class_game_start, live_refresh

# The flag in ClassSession.settings that marks the demo's running class game.
DEMO_FLAG = "demo_live"
DEMO_SCHOOL_SLUG = "demo"  # demo.school._accounts
# A seat whose tablet had the table open this recently is played by that tablet, not the demo.
REAL_TABLET_SECONDS = 60
# Left alone longer than this, the game is brought to now instead of played through at once.
STALE_AFTER = timedelta(minutes=2)
# Moves played in one call at most, so a page's poll stays quick.
MAX_MOVES_PER_CALL = 40


def _spec(session: ClassSession) -> DemoClass | None:
    return next((s for s in DEMO_CLASSES if s.live and s.code == session.classroom.code), None)


def _tablet_open(seat, now: datetime) -> bool:
    seen = seat.last_seen_at
    return seen is not None and (now - seen).total_seconds() < REAL_TABLET_SECONDS


def _play_due(game: Game, players: dict[int, Player], now: datetime, budget: int) -> int:
    """Every child's answer, computer player's move and time limit due by `now`, in order."""
    applied = 0
    refused: set[tuple[int, int]] = set()
    while applied < budget and game.status == Game.Status.RUNNING:
        state = engine.GameState.from_dict(game.state)
        options: list[tuple[datetime, int, int]] = []
        for due in (game.bot_due_at, game.timer_deadline):
            if due is not None:
                options.append((due, 1, -1))
        for position, player in players.items():
            if (state.version, position) not in refused and engine.legal_moves(state, position):
                options.append((player.answers_at(game, state, position), 0, position))
        if not options:
            break
        moment, _priority, position = min(options)
        if moment > now:
            break
        if position < 0:
            moved = game_tick(game_id=game.pk, now=now)
            game.refresh_from_db()
            if not moved:
                break
            applied += moved
            continue
        outcome = child_move(game, state, position, players[position])
        if outcome is None or not outcome.applied:
            refused.add((state.version, position))
            continue
        applied += 1
        game = outcome.game
    return applied


def _restart(session: ClassSession, spec: DemoClass) -> ClassSession | None:
    """A new class game at the same tables once the demo's is over (unless one is going on)."""
    classroom = session.classroom
    going = ClassSession.objects.filter(
        classroom=classroom, status__in=[ClassSession.Status.RUNNING, ClassSession.Status.PAUSED]
    )
    if going.exists() or session.created_by is None:
        return None
    students = {s.name: s for s in Student.objects.filter(classroom=classroom)}
    if any(word not in students for t in spec.live for word in t.split() if word[0] != "+"):
        return None  # the teacher removed a demo child: leave the class alone
    number = ClassSession.objects.filter(classroom=classroom).count()
    new, _games = live_class_game_start(
        spec=spec,
        classroom=classroom,
        students=students,
        by=session.created_by,
        seed=f"{spec.code}/live/{number}",
    )
    new.settings = {**new.settings, DEMO_FLAG: True}
    new.save(update_fields=["settings"])
    return new


def demo_play_on(*, session: ClassSession, now: datetime | None = None) -> int:
    """Play the demo's running class game up to now; the number of moves applied.

    Anything but the demo's running class game is left alone (nothing read beyond its
    settings). When the game is over, the next one is started.
    """
    if not (session.settings or {}).get(DEMO_FLAG):
        return 0
    spec = _spec(session)
    if spec is None:
        return 0
    now = now or timezone.now()
    running = list(session.games.filter(status=Game.Status.RUNNING))
    last = max((g.last_move_at or g.started_at for g in running if g.started_at), default=None)
    if last is not None and now - last > STALE_AFTER:
        live_refresh(session=session, now=now)
    applied = 0
    for game in session.games.filter(status=Game.Status.RUNNING):
        seats = {s.position: s for s in game.seats.all()}
        players = {
            position: player
            for position, player in _players(game, spec, HISTORY_WEEKS - 1).items()
            if not _tablet_open(seats[position], now)
        }
        applied += _play_due(game, players, now, MAX_MOVES_PER_CALL - applied)
    if not session.games.filter(status=Game.Status.RUNNING).exists():
        session.refresh_from_db()
        if session.status == ClassSession.Status.FINISHED:
            _restart(session, spec)
    return applied


def demo_keep_alive(*, session: ClassSession, now: datetime | None = None) -> int:
    """A page showing a class game: where no worker runs, the demo's game plays on here; where
    workers run, the GET writes nothing (the beat's sweep does it)."""
    if not (session.settings or {}).get(DEMO_FLAG) or not scheduling.runs_in_process():
        return 0
    return demo_play_on(session=session, now=now)


def demo_sessions() -> list[ClassSession]:
    """The demo's class games marked to keep alive that are not paused by the teacher, newest
    first. A site without the demo school answers after one indexed look-up (the beat asks every
    10 s)."""
    school = School.objects.filter(slug=DEMO_SCHOOL_SLUG).only("pk").first()
    if school is None:
        return []
    return list(
        ClassSession.objects.filter(
            classroom__school=school,
            status__in=[ClassSession.Status.RUNNING, ClassSession.Status.FINISHED],
            **{f"settings__{DEMO_FLAG}": True},
        )
        .select_related("classroom")
        .order_by("-created_at")
    )


def demo_restart_if_over() -> ClassSession | None:
    """The next demo class game when the newest one is over (the demo starting again)."""
    for session in demo_sessions():
        spec = _spec(session)
        if spec is not None and session.status == ClassSession.Status.FINISHED:
            return _restart(session, spec)
        return None
    return None
