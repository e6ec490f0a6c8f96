"""The end of a game (R6): the settlements, the score and the finishing ranks."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from . import events as ev
from .state import DAOU_PENALTY, PEMP_PENALTY, Event, GameState

# --- the end (R6) --------------------------------------------------------------------------


def _finish(s: GameState, reason: str, events: list[Event]) -> None:
    """R6.2, in its order: UNAN takes the table; held and event cards join their owner's pile;
    only then are an unused DAOU and an unused PEMP paid, so no card is sheltered from them.
    Payments come from the pile alone, never from the tricks laid on PEVAR or PEMP."""
    settlements: list[dict[str, Any]] = []
    n = s.n_seats
    for seat in range(n):  # (1) the rest is yours
        if s.event_held(seat, "UNAN") is not None:
            taken = list(s.table)
            s.piles[seat].extend(taken)
            s.table.clear()
            settlements.append({"kind": "unan", "seat": seat, "cards": taken, "count": len(taken)})
    # Who holds an unused DAOU / PEMP, read before the event cards leave the rows.
    daou = [seat for seat in range(n) if s.event_held(seat, "DAOU") is not None]
    pemp = [seat for seat in range(n) if s.event_held(seat, "PEMP") is not None]
    for seat in range(n):  # (2) held cards and event cards, used or not, join the pile
        s.piles[seat].extend(s.held[seat] + s.events_row[seat])
        s.held[seat].clear()
        s.events_row[seat].clear()
    for seat in daou:  # (3) an unused DAOU: 5 cards to the right-hand neighbour
        neighbour = (seat - 1) % n
        given = _give_from_pile(s, seat, neighbour, DAOU_PENALTY)
        settlements.append(
            {"kind": "daou", "seat": seat, "to": neighbour, "cards": given, "count": len(given)}
        )
    for seat in pemp:  # (4) an unused PEMP: 2 cards to each other player, the next seat first
        for step in range(1, n):
            other = (seat + step) % n
            given = _give_from_pile(s, seat, other, PEMP_PENALTY)
            settlements.append(
                {"kind": "pemp", "seat": seat, "to": other, "cards": given, "count": len(given)}
            )
    scores = scores_of(s)
    s.result = {
        "reason": reason,
        "scores": scores,
        "places": ranks_of(scores),  # the stored key of the finishing ranks
        "settlements": settlements,
        "cards": [len(s.piles[i]) + sum(len(t) for t in s.laid[i].values()) for i in range(n)],
    }
    s.phase = "over"
    s.pending = None
    s.challenge = None
    events.append(ev.GameOver.from_dict(copy.deepcopy(s.result)).to_dict())


def _give_from_pile(s: GameState, giver: int, receiver: int, count: int) -> list[int]:
    """The last-won cards of the giver's pile, fewer if the pile has fewer."""
    pile = s.piles[giver]
    given = pile[len(pile) - min(count, len(pile)) :]
    del pile[len(pile) - len(given) :]
    s.piles[receiver].extend(given)
    return given


def score_of(s: GameState, seat: int) -> int:
    """R6.3: one point a card, the PEVAR trick again, minus half the PEMP trick.

    At any moment of the game: held cards and unused event cards count one each, as they will
    once they join the pile (R6.2); a game's final score is this after the settlements.
    """
    pevar = len(s.laid[seat].get("pevar", []))
    pemp = len(s.laid[seat].get("pemp", []))
    cards = len(s.piles[seat]) + len(s.held[seat]) + len(s.events_row[seat])
    return cards + 2 * pevar + pemp - pemp // 2


def scores_of(s: GameState) -> list[int]:
    """R6.3: every seat's score, in seat order (final once the game is over)."""
    return [score_of(s, seat) for seat in range(s.n_seats)]


def ranks_of(scores: Sequence[int]) -> list[int]:
    """R6.3: finishing ranks, 1 for the highest score; equal scores share the rank."""
    return [1 + sum(other > mine for other in scores) for mine in scores]
