"""The game of Kavet 'm eus as a pure state machine (R4–R7), as one import.

Split the way boardgame.io splits a game: the configuration and state with its invariants
(state.py), the moves and the one function that applies them (moves.py), the flow of play,
the challenge and C'HWEC'H that follow a move (flow.py), and the end with the score and the
finishing ranks (end.py). The events a move causes are named in events.py.
"""

from __future__ import annotations

from .end import (
    ranks_of,
    score_of,
    scores_of,
)
from .flow import (
    operation_dict,
    player_operation,
)
from .moves import (
    apply_move,
    legal_moves,
    new_game,
    replay,
    start_game,
)
from .state import (
    BOT_STRENGTHS,
    DAOU_PENALTY,
    FALSE_CHALLENGE_PENALTY,
    MOVE_TYPES,
    PEMP_PENALTY,
    PHASES,
    PLACES,
    TIMER_KINDS,
    Event,
    GameConfig,
    GameState,
    Move,
    all_places,
    card_dict,
    check_invariants,
    deck_of,
)

__all__ = [
    "BOT_STRENGTHS",
    "DAOU_PENALTY",
    "Event",
    "FALSE_CHALLENGE_PENALTY",
    "GameConfig",
    "GameState",
    "MOVE_TYPES",
    "Move",
    "PEMP_PENALTY",
    "PHASES",
    "PLACES",
    "TIMER_KINDS",
    "all_places",
    "apply_move",
    "card_dict",
    "check_invariants",
    "deck_of",
    "legal_moves",
    "new_game",
    "operation_dict",
    "player_operation",
    "ranks_of",
    "replay",
    "score_of",
    "scores_of",
    "start_game",
]
