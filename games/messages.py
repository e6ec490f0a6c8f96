"""The engine's refusal and verdict codes, and its events, told in plain words for children."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

# Shown for a code nobody has written a sentence for yet: still friendly, never a stack trace.
FALLBACK_REFUSAL = "not_possible"


def _tr(text: str) -> str:
    """Operators as printed on the keys: a tablet shows − × ÷, the engine speaks ASCII."""
    return (text or "").replace("*", "×").replace("/", "÷").replace(" - ", " − ")


def refusal_message(code: str | None, params: dict[str, Any] | None = None) -> str:
    """Why a move was refused (R3.5 invalid, or not allowed now): nothing changed, try again."""
    p = dict(params or {})
    card = p.get("card", "")
    texts: dict[str, str] = {
        # R3.5 invalid announcements
        "input_too_long": _("That is too long. Say it in fewer symbols."),
        "parse_error": _("I could not read that operation. Check it and try again."),
        "unknown_character": _("Only numbers, X and the operation signs can be used."),
        "digit_not_ascii": _("Only numbers, X and the operation signs can be used."),
        "card_unavailable": _("That card is not on the table any more."),
        "card_reused": _("Each card can be used only once."),
        "too_few_cards": _("You need at least three cards: two to combine and one for the result."),
        "operator_not_allowed": _("That sign is not used at this level."),
        "x_value_missing": _("Say which number each X card stands for."),
        "x_value_out_of_range": _("An X card must stand for a number from %(low)s to %(high)s.")
        % {"low": p.get("low", 0), "high": p.get("high", "")},
        # the flow of play
        "not_your_turn": _("It is not your turn."),
        "wrong_phase": _("You can't do that right now."),
        "own_announcement": _("You can't challenge your own announcement."),
        "already_answered": _("You have already answered."),
        "too_late": _("Too late: someone else said “Kavet 'm eus!” first."),
        "game_over": _("This game is over."),
        "stale_timeout": _("The table changed. Look again!"),
        "place_unknown": _("That event card can't be used here."),
        "place_unavailable": _("You don't hold that event card."),
        "place_odd_trick": _("PEMP takes only a trick with an even number of cards."),
        "bad_move": _("That move could not be read. Try again."),
        "unknown_move": _("That move could not be read. Try again."),
        "unknown_seat": _("You are not playing at this table."),
        # the web layer's own refusals
        "stale": _("The table changed. Look again!"),
        "paused": _("The game is paused. Wait for your teacher."),
        "not_started": _("The game has not started yet."),
        "not_your_seat": _("You are not playing at this table."),
        "bot_seat": _("A computer player is playing for you now."),
        "empty": _("Tap some cards first."),
    }
    if code == "card_unavailable" and card not in ("", None) and not str(card).isdigit():
        return _("There is no %(card)s card to use.") % {"card": card}
    return texts.get(code or "", _("That is not possible right now."))


def verdict_message(code: str | None, params: dict[str, Any] | None = None) -> str:
    """Why an announcement was wrong (R3.5 wrong): a real mistake, shown to everyone."""
    p = dict(params or {})
    expr = _tr(str(p.get("expression", "")))
    value = p.get("value", "")
    result = p.get("result", "")
    if code == "wrong_result":
        if expr:
            return _("%(expression)s makes %(value)s, not %(result)s.") % {
                "expression": expr, "value": value, "result": result}
        return _("The result is not right.")
    if code == "division_by_zero":
        return _("You can't divide by zero.")
    if code == "not_whole":
        return _("%(expression)s does not divide exactly.") % {"expression": expr} if expr else _(
            "That division does not come out exactly.")
    if code == "negative":
        return _("%(expression)s goes below zero.") % {"expression": expr} if expr else _(
            "A step goes below zero.")
    if code == "out_of_bounds":
        return _("%(expression)s = %(value)s is too big for this level.") % {
            "expression": expr, "value": value} if expr else _("A step is too big for this level.")
    if code == "zero_power_zero":
        return _("0 to the power 0 has no value.")
    if code == "exponent_not_allowed":
        return _("A power must be a whole number from 0 to 10.")
    return refusal_message(code, p)


def _name(players: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return players[seat]
    return "?"


def event_sentence(event: dict[str, Any], players: Sequence[str]) -> str | None:
    """One sentence telling the table what happened, or None for events not worth telling."""
    kind = event.get("type")
    who = _name(players, event.get("seat"))
    if kind == "game_started":
        return _("The game begins. %(name)s starts.") % {"name": _name(players, event.get("starter"))}
    if kind == "turn":
        return _("%(name)s's turn.") % {"name": who}
    if kind == "event_card":
        label = "C'HWEC'H" if event.get("event") == "CHWECH" else event.get("event")
        return _("%(name)s takes the event card %(card)s.") % {"name": who, "card": label}
    if kind == "tri_took":
        return _("TRI: %(name)s takes a %(card)s from %(other)s's pile.") % {
            "name": who, "card": event["card"]["label"], "other": _name(players, event.get("from"))}
    if kind == "announced":
        return _("%(name)s says: %(text)s") % {"name": who, "text": _tr(event.get("text", ""))}
    if kind == "said_nothing":
        if event.get("timeout"):
            return _("Time is up for %(name)s: nothing to do.") % {"name": who}
        return _("%(name)s says: nothing to do.") % {"name": who}
    if kind == "verdict":
        if event.get("ok"):
            return _("Right! %(text)s") % {"text": _tr((event.get("operation") or {}).get("text", ""))}
        return _("Wrong: %(why)s") % {"why": verdict_message(event.get("code"), event.get("params"))}
    if kind == "nothing_ruled":
        if event.get("was_true"):
            return _("That was true: there was nothing to do for %(name)s.") % {"name": who}
        return _("There was something to do for %(name)s.") % {"name": who}
    if kind == "lesson":
        op = (event.get("operation") or {}).get("text", "")
        return _("Look: %(text)s was possible.") % {"text": _tr(op)}
    if kind == "challenge_called":
        return _("%(name)s: Kavet 'm eus! (against %(other)s)") % {
            "name": who, "other": _name(players, event.get("against"))}
    if kind == "chwech_offered":
        return _("%(name)s may use C'HWEC'H for a second chance.") % {"name": who}
    if kind == "chwech_decided":
        if event.get("use"):
            return _("%(name)s uses C'HWEC'H and tries again.") % {"name": who}
        return _("%(name)s does not use C'HWEC'H.") % {"name": who}
    if kind == "challenge_ruled":
        names = {"challenger": _name(players, event.get("challenger")),
                 "challenged": _name(players, event.get("challenged"))}
        if event.get("outcome") == "right":
            return _("Right challenge! %(challenger)s wins the trick; %(challenged)s skips a turn.") % names
        if event.get("outcome") == "called_off":
            return _("C'HWEC'H worked: the challenge is called off.")
        return _("False challenge: %(challenger)s gives cards to %(challenged)s and skips a turn.") % names
    if kind == "trick_won":
        size = event.get("size", 0)
        if event.get("placed") == "daou":
            return ngettext(
                "%(name)s wins %(count)d card and gives them to %(other)s with DAOU.",
                "%(name)s wins %(count)d cards and gives them to %(other)s with DAOU.", size,
            ) % {"name": who, "count": size, "other": _name(players, event.get("to"))}
        if event.get("placed") == "pevar":
            return ngettext("%(name)s wins %(count)d card, laid on PEVAR (counts double).",
                            "%(name)s wins %(count)d cards, laid on PEVAR (counts double).",
                            size) % {"name": who, "count": size}
        if event.get("placed") == "pemp":
            return ngettext("%(name)s wins %(count)d card, laid on PEMP (counts half).",
                            "%(name)s wins %(count)d cards, laid on PEMP (counts half).",
                            size) % {"name": who, "count": size}
        return ngettext("%(name)s wins %(count)d card.", "%(name)s wins %(count)d cards.", size) % {
            "name": who, "count": size}
    if kind == "cards_given":
        count = event.get("count", 0)
        return ngettext("%(name)s gives %(count)d card to %(other)s.",
                        "%(name)s gives %(count)d cards to %(other)s.", count) % {
            "name": _name(players, event.get("from")), "count": count,
            "other": _name(players, event.get("to"))}
    if kind == "skip_due":
        return _("%(name)s will skip their next turn.") % {"name": who}
    if kind == "skipped":
        return _("%(name)s skips this turn.") % {"name": who}
    if kind == "ok":
        return _("%(name)s says OK.") % {"name": who}
    if kind == "timeout" and event.get("kind") == "window":
        return _("Time is up: no challenge.")
    if kind == "window_closed" and event.get("reason") == "all_ok":
        return _("Everyone said OK.")
    if kind == "replaced":
        if event.get("bot"):
            return _("A computer player now plays for %(name)s.") % {"name": who}
        return None
    if kind == "game_over":
        return _("The game is over!")
    return None


def events_sentences(events: Sequence[dict[str, Any]], players: Sequence[str]) -> list[str]:
    """The sentences for a list of events, skipping the ones not worth telling."""
    out = []
    for event in events:
        if event.get("type") in ("turned_up", "window_opened"):
            continue
        sentence = event_sentence(event, players)
        if sentence:
            out.append(sentence)
    return out


def settlement_sentence(item: dict[str, Any], players: Sequence[str]) -> str:
    """The end-of-game settlements of R6.2, in words."""
    who = _name(players, item.get("seat"))
    count = item.get("count", 0)
    if item.get("kind") == "unan":
        return ngettext("UNAN: %(name)s takes the %(count)d card left on the table.",
                        "UNAN: %(name)s takes the %(count)d cards left on the table.", count) % {
            "name": who, "count": count}
    other = _name(players, item.get("to"))
    if item.get("kind") == "daou":
        return ngettext("DAOU not used: %(name)s gives %(count)d card to %(other)s.",
                        "DAOU not used: %(name)s gives %(count)d cards to %(other)s.", count) % {
            "name": who, "count": count, "other": other}
    return ngettext("PEMP not used: %(name)s gives %(count)d card to %(other)s.",
                    "PEMP not used: %(name)s gives %(count)d cards to %(other)s.", count) % {
        "name": who, "count": count, "other": other}
