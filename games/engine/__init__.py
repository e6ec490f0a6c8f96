"""The rules of Kavet 'm eus as pure Python: cards, levels, operations, solver and game."""

from .cards import EVENT_LABELS, EVENT_NAMES, Card, DeckSpec, build_deck
from .checker import check_operation
from .errors import INVALID_CODES, WRONG_CODES, EngineError, Refusal
from .operations import Operation, Verdict
from .rules import RuleSet, combine_levels, ruleset_for_players
from .skills import SKILLS, skills_of
from .solver import best_operation, can_make, find_operation

__all__ = [
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
    "Verdict",
    "best_operation",
    "build_deck",
    "can_make",
    "check_operation",
    "combine_levels",
    "find_operation",
    "ruleset_for_players",
    "skills_of",
]
