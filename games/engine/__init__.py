"""The rules of Kavet 'm eus as pure Python: cards, levels, operations, solver and game."""

from .bots import bot_answer_delay, bot_delay, bot_move, bot_rng, play_bot_game
from .cards import EVENT_LABELS, EVENT_NAMES, Card, DeckSpec, build_deck
from .checker import check_operation
from .errors import (
    CODES,
    INVALID_CODES,
    MOVE_REFUSAL_CODES,
    PARSE_REASONS,
    SETTINGS_CODES,
    WRONG_CODES,
    EngineError,
    Refusal,
)
from .game import (
    BOT_STRENGTHS,
    PHASES,
    GameConfig,
    GameState,
    apply_move,
    check_invariants,
    legal_moves,
    new_game,
    operation_dict,
    ranks_of,
    replay,
    score_of,
    scores_of,
    start_game,
)
from .narration import describe_event
from .operations import Operation, Verdict
from .reach import can_make
from .rules import RULES_PROBLEMS, RuleSet, combine_levels, ruleset_for_players
from .skills import GAME_SKILLS, MISSED, RIGHT, SKILLS, WRONG, attempts_of, outcome_of, skills_of
from .solver import best_operation, find_operation
from .visibility import seat_view

__all__ = [
    "BOT_STRENGTHS",
    "CODES",
    "MOVE_REFUSAL_CODES",
    "PARSE_REASONS",
    "RULES_PROBLEMS",
    "SETTINGS_CODES",
    "EVENT_LABELS",
    "EVENT_NAMES",
    "INVALID_CODES",
    "WRONG_CODES",
    "Card",
    "DeckSpec",
    "EngineError",
    "Operation",
    "Refusal",
    "RuleSet",
    "SKILLS",
    "GAME_SKILLS",
    "RIGHT",
    "WRONG",
    "MISSED",
    "Verdict",
    "best_operation",
    "build_deck",
    "can_make",
    "check_operation",
    "combine_levels",
    "find_operation",
    "ruleset_for_players",
    "skills_of",
    "attempts_of",
    "outcome_of",
    # the game (E2)
    "PHASES",
    "GameConfig",
    "GameState",
    "apply_move",
    "bot_answer_delay",
    "bot_delay",
    "bot_move",
    "bot_rng",
    "check_invariants",
    "describe_event",
    "legal_moves",
    "new_game",
    "operation_dict",
    "ranks_of",
    "play_bot_game",
    "replay",
    "score_of",
    "scores_of",
    "seat_view",
    "start_game",
]
