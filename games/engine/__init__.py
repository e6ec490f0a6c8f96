"""The rules of Kavet 'm eus as pure Python: cards, levels, operations, solver and game."""

from .cards import EVENT_LABELS, EVENT_NAMES, Card, DeckSpec, build_deck
from .errors import INVALID_CODES, WRONG_CODES, EngineError, Refusal
from .operations import Operation, Verdict
from .rules import RuleSet, combine_levels, ruleset_for_players

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
    "Verdict",
    "build_deck",
    "combine_levels",
    "ruleset_for_players",
]
