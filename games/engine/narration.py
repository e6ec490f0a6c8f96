"""What one seat may see of a game (R1.5, R8.1), and events told in plain English for the CLI."""

from __future__ import annotations

from typing import Any

from .cards import EVENT_LABELS
from .errors import english_message
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


# --- events in words (English, for the command line and debugging) --------------------------


def describe_event(event: dict[str, Any], players: list[str]) -> str | None:
    """One line telling what happened, or None for events not worth a line."""

    def name(seat: int | None) -> str:
        return players[seat] if seat is not None and 0 <= seat < len(players) else "?"

    kind = event["type"]
    who = name(event.get("seat"))
    if kind == "game_started":
        return f"New game: {', '.join(event['players'])}; {name(event['starter'])} starts."
    if kind == "turn":
        return f"-- {who}'s turn"
    if kind == "turned_up":
        return f"   {who} turns up {event['card']['label']}"
    if kind == "event_card":
        return f"   {who} takes the event card {EVENT_LABELS.get(event['event'], event['event'])}"
    if kind == "tri_took":
        return f"   TRI: {who} takes {event['card']['label']} from {name(event['from'])}'s pile"
    if kind == "announced":
        place = f" (trick on {event['place'].upper()})" if event.get("place") else ""
        role = {"challenge": " to back the challenge", "chwech": " with C'HWEC'H"}.get(event["role"], "")
        return f"   {who} announces {event['text']}{role}{place}"
    if kind == "said_nothing":
        why = " (time ran out)" if event.get("timeout") else ""
        return f"   {who}: nothing to do{why}"
    if kind == "verdict":
        if event["ok"]:
            return f"   correct: {event['operation']['text']}"
        return f"   wrong ({event['code']}): {english_message(event['code'], event['params'])}"
    if kind == "nothing_ruled":
        return None if event["was_true"] else f"   there was something to do for {who}"
    if kind == "lesson":
        return f"   lesson: {event['operation']['text']} was possible"
    if kind == "ok":
        return None
    if kind == "window_closed":
        return None
    if kind == "challenge_called":
        return f"   {who}: Kavet 'm eus! (against {name(event['against'])})"
    if kind == "chwech_offered":
        return None
    if kind == "chwech_decided":
        return f"   {who} {'uses' if event['use'] else 'does not use'} C'HWEC'H"
    if kind == "challenge_ruled":
        return (f"   challenge {event['outcome'].replace('_', ' ')} ({event['reason'].replace('_', ' ')}): "
                f"{name(event['challenger'])} against {name(event['challenged'])}")
    if kind == "trick_won":
        placed = {"pevar": " laid on PEVAR", "pemp": " laid on PEMP"}.get(event["placed"] or "", "")
        if event["placed"] == "daou":
            placed = f" given with DAOU to {name(event['to'])}"
        return f"   {who} wins a trick of {event['size']} cards{placed}"
    if kind == "cards_given":
        return f"   {name(event['from'])} gives {event['count']} card(s) to {name(event['to'])}"
    if kind == "skip_due":
        return f"   {who} will skip their next turn"
    if kind == "skipped":
        return f"   {who} skips this turn"
    if kind == "timeout":
        return f"   time ran out ({event['kind']})"
    if kind == "replaced":
        return f"   {who} is now played by {event['bot'] or 'a person'}"
    if kind == "game_over":
        lines = [f"Game over ({event['reason'].replace('_', ' ')})."]
        for item in event["settlements"]:
            lines.append(f"   {item['kind'].upper()}: {name(item['seat'])} "
                         + (f"takes {item['count']} card(s) from the table" if item["kind"] == "unan"
                            else f"gives {item['count']} card(s) to {name(item['to'])}"))
        order = sorted(range(len(players)), key=lambda i: event["places"][i])
        for i in order:
            lines.append(f"   {event['places'][i]}. {name(i)}: {event['scores'][i]} points")
        return "\n".join(lines)
    return None
