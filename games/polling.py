"""The table poll's cheap path: the signed poll token, and "has this table changed?" in one query.

600 tablets poll every 2 s, so the unchanged poll is the hottest path of the site. A page
rendered after the full permission check carries a signed token naming the game, the seat and
the user (`poll_token`); `poll_unchanged` trusts it to answer only ever "nothing new" (204),
with no session, no user and no rendering. Anything else goes through the view's full path.

The same query stamps the seat's presence (Seat.last_seen_at, at most every PRESENCE_RESOLUTION
seconds), which the teacher's live view reads for "the tablet has gone quiet": the services run
it (seat_poll_seen), the one writer of seats. That is a presence stamp, not game state: the poll
never changes a game and never applies a due move — a move that is due
(games.scheduling.page_due_grace() late) makes the answer "changed", and the view then applies it
through the one service (services.due_moves_apply).

- PostgreSQL: one statement, `WITH touched AS (UPDATE seat ... FOR UPDATE SKIP LOCKED ...)
  SELECT game ...`: a seat row held by a move in progress is skipped (the next poll stamps it),
  so a poll never waits for a lock.
- SQLite (the embedded default): no data-modifying CTE, so the SELECT also reads the seat's
  stamp and a second statement (an UPDATE) is sent only when the stamp is older than
  PRESENCE_RESOLUTION: one query per poll, two about every 30 s.
"""

from __future__ import annotations

from django.core.signing import BadSignature, Signer
from django.http import HttpRequest
from django.utils import timezone

from .models import Game
from .services import page_due, seat_poll_seen

POLL_SIGNER = Signer(salt="kavet.games.poll")


def poll_token(game: Game, seat_position: int, user_id: int) -> str:
    """Put in the poll URL of a page rendered after the full permission check on this game."""
    return POLL_SIGNER.sign(f"{game.pk}.{seat_position}.{user_id}")


def poll_token_read(token: str) -> tuple[int, int, int] | None:
    """(game id, seat position, user id) of a genuine token; None for a forged or broken one."""
    try:
        game_id, position, user_id = POLL_SIGNER.unsign(token).split(".")
        return int(game_id), int(position), int(user_id)
    except (BadSignature, ValueError):
        return None


def poll_unchanged(request: HttpRequest, game_id: int) -> bool:
    """True when the poll may be answered 204: the table is as this tablet last saw it.

    One database round trip (see the module docstring for SQLite's occasional second
    statement). False for a bad token, an unknown game, a change, or a move that is due now
    (R4.9, R5.1): the view then takes the full path and applies it through the service.
    """
    read = poll_token_read(request.GET.get("t", ""))
    if read is None or read[0] != game_id:
        return False
    now = timezone.now()
    game = seat_poll_seen(game_id=game_id, position=read[1], now=now)
    if game is None:
        return False
    version, status, deadline, bot_due = game
    if status == Game.Status.RUNNING and (
        (deadline and deadline <= now) or (bot_due and bot_due <= now)
    ):
        if page_due(status=status, timer_deadline=deadline, bot_due_at=bot_due, now=now):
            return False
    return request.GET.get("v") == str(version) and request.GET.get("s") == status
