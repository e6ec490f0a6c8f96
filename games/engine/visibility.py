"""What one seat may see of a game (R1.5, R8.1): the engine's per-seat view (a playerView)."""

from __future__ import annotations

from typing import Any

from .game import GameState, card_dict, legal_moves, score_of


def seat_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """A JSON-able view for one seat (None: a spectator or the teacher).

    It never holds the draw pile's order or the seed (R1.5), and while an announcement is
    under review it does not say whether it is right: that is what the players must spot.
    """
    cfg = state.config
    cards = state.cards
    view: dict[str, Any] = {
        "seat": seat,
        "players": list(cfg.players),
        "phase": state.phase,
        "active": state.active,
        "version": state.version,
        "timer": state.timer,
        "rules": cfg.rules.to_dict(),
        "settings": {
            "challenge_window": cfg.challenge_window,
            "challenge_time": cfg.challenge_time,
            "turn_time": cfg.turn_time,
            "nothing_true_penalty": cfg.nothing_true_penalty,
            "lesson": cfg.lesson_on,
        },
        "draw_count": len(state.draw),
        "table": [card_dict(cards[c]) for c in state.table],
        "seats": [
            {
                "seat": i,
                "name": cfg.players[i],
                "pile_count": len(state.piles[i]),
                "held": [card_dict(cards[c]) for c in state.held[i]],
                "events": [card_dict(cards[c]) for c in state.events_row[i]],
                "laid": {place: len(trick) for place, trick in state.laid[i].items()},
                "skips": state.skips[i],
                "score": score_of(state, i),  # R6.3 as the cards stand (final once over)
                "bot": state.bots[i] if i < len(state.bots) else None,
            }
            for i in range(state.n_seats)
        ],
        "pending": _public_pending(state),
        "challenge": dict(state.challenge) if state.challenge else None,
        "legal": legal_moves(state, seat),
        "result": state.result,
    }
    return view


def _public_pending(state: GameState) -> dict[str, Any] | None:
    pending = state.pending
    if pending is None:
        return None
    public = {
        "kind": pending["kind"],
        "seat": pending["seat"],
        "oks": list(pending["oks"]),
    }
    if pending["kind"] == "announce":
        public.update(
            text=pending["text"],
            tokens=pending["tokens"],
            x_values=[list(p) for p in pending["x_values"]],
            cards=[card_dict(state.cards[c]) for c in pending["cards"]],
            place=pending["place"],
        )
    else:
        public["timeout"] = pending["timeout"]
    return public
