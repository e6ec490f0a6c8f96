"""The command line's narrator: a game's events told in plain English (python -m games.engine)."""

from __future__ import annotations

from typing import Any

from .cards import EVENT_LABELS
from .errors import english_message


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
        role = {"challenge": " to back the challenge", "chwech": " with C'HWEC'H"}.get(
            event["role"], ""
        )
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
        return (
            f"   challenge {event['outcome'].replace('_', ' ')} ({event['reason'].replace('_', ' ')}): "
            f"{name(event['challenger'])} against {name(event['challenged'])}"
        )
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
            lines.append(
                f"   {item['kind'].upper()}: {name(item['seat'])} "
                + (
                    f"takes {item['count']} card(s) from the table"
                    if item["kind"] == "unan"
                    else f"gives {item['count']} card(s) to {name(item['to'])}"
                )
            )
        order = sorted(range(len(players)), key=lambda i: event["places"][i])
        for i in order:
            lines.append(f"   {event['places'][i]}. {name(i)}: {event['scores'][i]} points")
        return "\n".join(lines)
    return None
