"""The command line's narrator: a game's events told in plain English (python -m games.engine)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import events as ev
from .cards import EVENT_LABELS
from .errors import english_message


def describe_event(event: Mapping[str, Any] | ev.Event, players: list[str]) -> str | None:
    """One line telling what happened, or None for events not worth a line."""

    def name(seat: int | None) -> str:
        return players[seat] if seat is not None and 0 <= seat < len(players) else "?"

    e = ev.event_from_dict(event)
    who = name(getattr(e, "seat", None))
    match e:
        case ev.GameStarted():
            return f"New game: {', '.join(e.players)}; {name(e.starter)} starts."
        case ev.Turn():
            return f"-- {who}'s turn"
        case ev.TurnedUp():
            return f"   {who} turns up {e.card['label']}"
        case ev.EventCard():
            return f"   {who} takes the event card {EVENT_LABELS.get(e.event, e.event)}"
        case ev.TriTook():
            return f"   TRI: {who} takes {e.card['label']} from {name(e.from_)}'s pile"
        case ev.Announced():
            place = f" (trick on {e.place.upper()})" if e.place else ""
            role = {"challenge": " to back the challenge", "chwech": " with C'HWEC'H"}.get(
                e.role, ""
            )
            return f"   {who} announces {e.text}{role}{place}"
        case ev.SaidNothing():
            why = " (time ran out)" if e.timeout else ""
            return f"   {who}: nothing to do{why}"
        case ev.Verdict(ok=True):
            return f"   correct: {(e.operation or {}).get('text', e.text)}"
        case ev.Verdict():
            return f"   wrong ({e.code}): {english_message(e.code or '', e.params)}"
        case ev.NothingRuled():
            return None if e.was_true else f"   there was something to do for {who}"
        case ev.Lesson():
            return f"   lesson: {(e.operation or {}).get('text', '')} was possible"
        case ev.ChallengeCalled():
            return f"   {who}: Kavet 'm eus! (against {name(e.against)})"
        case ev.ChwechDecided():
            return f"   {who} {'uses' if e.use else 'does not use'} C'HWEC'H"
        case ev.ChallengeRuled():
            return (
                f"   challenge {e.outcome.replace('_', ' ')} ({e.reason.replace('_', ' ')}): "
                f"{name(e.challenger)} against {name(e.challenged)}"
            )
        case ev.TrickWon():
            placed = {"pevar": " laid on PEVAR", "pemp": " laid on PEMP"}.get(e.placed or "", "")
            if e.placed == "daou":
                placed = f" given with DAOU to {name(e.to)}"
            return f"   {who} wins a trick of {e.size} cards{placed}"
        case ev.CardsGiven():
            return f"   {name(e.from_)} gives {e.count} card(s) to {name(e.to)}"
        case ev.SkipDue():
            return f"   {who} will skip their next turn"
        case ev.Skipped():
            return f"   {who} skips this turn"
        case ev.Timeout():
            return f"   time ran out ({e.kind})"
        case ev.Replaced():
            return f"   {who} is now played by {e.bot or 'a person'}"
        case ev.GameOver():
            lines = [f"Game over ({e.reason.replace('_', ' ')})."]
            for item in e.settlements:
                lines.append(
                    f"   {item['kind'].upper()}: {name(item['seat'])} "
                    + (
                        f"takes {item['count']} card(s) from the table"
                        if item["kind"] == "unan"
                        else f"gives {item['count']} card(s) to {name(item['to'])}"
                    )
                )
            for i in sorted(range(len(players)), key=lambda i: e.ranks[i]):
                lines.append(f"   {e.ranks[i]}. {name(i)}: {e.scores[i]} points")
            return "\n".join(lines)
    # ok, window_opened, window_closed, chwech_offered and unknown kinds: no line.
    return None
