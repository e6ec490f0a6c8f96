"""The command line's narrator: a game's events told in plain English (python -m games.engine)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import events as ev
from .cards import EVENT_LABELS
from .errors import english_message

Name = Callable[[int | None], str]  # a seat's player, "?" for none


def describe_event(event: Mapping[str, Any] | ev.Event, players: list[str]) -> str | None:
    """One line telling what happened, or None for events not worth a line."""

    def name(seat: int | None) -> str:
        return players[seat] if seat is not None and 0 <= seat < len(players) else "?"

    e = ev.event_from_dict(event)
    tell = _TELLERS.get(type(e))
    if tell is None:  # ok, window_opened, window_closed, chwech_offered, unknown kinds
        return None
    if isinstance(tell, str):
        fields = vars(e) | {k: name(getattr(e, k)) for k in _SEATS if hasattr(e, k)}
        return tell.format_map(fields)
    return tell(e, name, players)


def _announced(e: ev.Announced, name: Name, players: list[str]) -> str:
    place = f" (trick on {e.place.upper()})" if e.place else ""
    role = {"challenge": " to back the challenge", "chwech": " with C'HWEC'H"}.get(e.role, "")
    return f"   {name(e.seat)} announces {e.text}{role}{place}"


def _verdict(e: ev.Verdict, name: Name, players: list[str]) -> str:
    if e.ok:
        return f"   correct: {(e.operation or {}).get('text', e.text)}"
    return f"   wrong ({e.code}): {english_message(e.code or '', e.params)}"


def _challenge_ruled(e: ev.ChallengeRuled, name: Name, players: list[str]) -> str:
    outcome, reason = e.outcome.replace("_", " "), e.reason.replace("_", " ")
    return f"   challenge {outcome} ({reason}): {name(e.challenger)} against {name(e.challenged)}"


def _trick_won(e: ev.TrickWon, name: Name, players: list[str]) -> str:
    placed = {"pevar": " laid on PEVAR", "pemp": " laid on PEMP"}.get(e.placed or "", "")
    if e.placed == "daou":
        placed = f" given with DAOU to {name(e.to)}"
    return f"   {name(e.seat)} wins a trick of {e.size} cards{placed}"


def _settlement(item: Mapping[str, Any], name: Name) -> str:
    if item["kind"] == "unan":
        done = f"takes {item['count']} card(s) from the table"
    else:
        done = f"gives {item['count']} card(s) to {name(item['to'])}"
    return f"   {item['kind'].upper()}: {name(item['seat'])} {done}"


def _game_over(e: ev.GameOver, name: Name, players: list[str]) -> str:
    lines = [f"Game over ({e.reason.replace('_', ' ')})."]
    lines += [_settlement(item, name) for item in e.settlements]
    for i in sorted(range(len(players)), key=lambda i: e.ranks[i]):
        lines.append(f"   {e.ranks[i]}. {name(i)}: {e.scores[i]} points")
    return "\n".join(lines)


# Each kind of event worth a line: a template of its fields (a seat: the player's name), or a
# function of (the event, a seat's player, the players) for a line that needs more.
_TELLERS: dict[type[ev.Event], str | Callable[[Any, Name, list[str]], str | None]] = {
    ev.GameStarted: lambda e, who, _: f"New game: {', '.join(e.players)}; {who(e.starter)} starts.",
    ev.Turn: "-- {seat}'s turn",
    ev.TurnedUp: "   {seat} turns up {card[label]}",
    ev.EventCard: lambda e, who, _: (
        f"   {who(e.seat)} takes the event card {EVENT_LABELS.get(e.event, e.event)}"
    ),
    ev.TriTook: "   TRI: {seat} takes {card[label]} from {from_}'s pile",
    ev.Announced: _announced,
    ev.SaidNothing: lambda e, who, _: (
        f"   {who(e.seat)}: nothing to do{' (time ran out)' if e.timeout else ''}"
    ),
    ev.Verdict: _verdict,
    ev.NothingRuled: lambda e, who, _: (
        None if e.was_true else f"   there was something to do for {who(e.seat)}"
    ),
    ev.Lesson: lambda e, who, _: f"   lesson: {(e.operation or {}).get('text', '')} was possible",
    ev.ChallengeCalled: "   {seat}: Kavet 'm eus! (against {against})",
    ev.ChwechDecided: lambda e, who, _: (
        f"   {who(e.seat)} {'uses' if e.use else 'does not use'} C'HWEC'H"
    ),
    ev.ChallengeRuled: _challenge_ruled,
    ev.TrickWon: _trick_won,
    ev.CardsGiven: "   {from_} gives {count} card(s) to {to}",
    ev.SkipDue: "   {seat} will skip their next turn",
    ev.Skipped: "   {seat} skips this turn",
    ev.Timeout: "   time ran out ({kind})",
    ev.Replaced: lambda e, who, _: f"   {who(e.seat)} is now played by {e.bot or 'a person'}",
    ev.GameOver: _game_over,
}
_SEATS = ("seat", "from_", "to", "against")  # the fields of a template that name a seat
