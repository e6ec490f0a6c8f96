"""The only code that changes a game: create, start, pause, end, moves, timers and computer players.

Every change to a running game goes through `_apply_locked`, inside a short transaction holding
`select_for_update(no_key=True)` on the game row: the engine applies the move, the move is
appended, per-student Play rows are written, the version is bumped, and the next deadlines are
stamped. Celery jobs are queued only after commit (games.scheduling decides how), and so is the
tablets' news (games.push.table_changed).

One lock order everywhere: the game row first (`select_for_update(no_key=True)`, by id when
there are several), then its seats and moves; a student row is locked only after their games
(student_games_erase). A move costs at most five statements: lock the game (its class read
in the same statement), read its seats once, insert the move, insert the plays, save the game.

Due moves (an expired time limit, a computer player's turn) are applied by game_tick from
whoever gets there first, under the same lock: the computer player's task and the beat sweep
(games.tasks), a page that shows the table (a tablet's poll, the projector's board, the teacher's
live view: due_moves_apply, once a move is games.scheduling.page_due_grace() late), and a player's
own move (move_submit applies what fell due before it came). The locked row decides what is
due, so a move is never applied twice; and a game keeps going while Redis, and with it every
task, is down.

One module per concern; callers import from the package (`from games.services import
move_submit`), which re-exports them:

- base: the refusal (GameError), a move's outcome, the game row's lock, the news after commit;
- setup: creating a game and its rules, start, pause, resume, end, a seat to a computer player;
- timers: the computer players' pauses and the turn's time limits, a game's clocks shifted;
- moves: a player's move (move_submit) and the moves that fall due (game_tick);
- plays: what each student did, recorded with every move for the reports;
- seats: the table's tablets (a seat's visit, due moves applied by a page);
- erase: a student's name scrubbed from their games, and the games past their keeping.
"""

from .base import (
    FIRST_TURN_GRACE,
    MAX_TICK_MOVES,
    PLAYER_MOVES,
    GameError,
    MoveOutcome,
    first_turn_grace,
)
from .erase import ERASED_NAME, games_erase_before, games_over_before, student_games_erase
from .moves import due_game_ids, game_tick, move_submit, upcoming_game_deadlines
from .seats import (
    PRESENCE_RESOLUTION,
    due_moves_apply,
    page_due,
    seat_poll_seen,
    streams_seen,
    table_visit,
)
from .setup import (
    game_config_build,
    game_create,
    game_end,
    game_pause,
    game_resume,
    game_start,
    practice_create,
    seat_replace_by_bot,
)
from .timers import game_clocks_shift

__all__ = (
    "ERASED_NAME",
    "FIRST_TURN_GRACE",
    "GameError",
    "MAX_TICK_MOVES",
    "MoveOutcome",
    "PLAYER_MOVES",
    "PRESENCE_RESOLUTION",
    "streams_seen",
    "due_game_ids",
    "due_moves_apply",
    "first_turn_grace",
    "game_clocks_shift",
    "game_config_build",
    "game_create",
    "game_end",
    "game_pause",
    "game_resume",
    "game_start",
    "game_tick",
    "games_erase_before",
    "games_over_before",
    "move_submit",
    "page_due",
    "practice_create",
    "seat_poll_seen",
    "seat_replace_by_bot",
    "student_games_erase",
    "table_visit",
    "upcoming_game_deadlines",
)
