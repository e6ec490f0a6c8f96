"""The engine's refusal and verdict codes, and its events, told in plain words for children."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import speech
from games.engine import events as ev
from games.engine.operations import OPERATOR_SYMBOLS

E = TypeVar("E", bound=ev.Event)

# The seats a game may have: the engine's GameConfig limits (a class table keeps to fewer,
# classrooms.grouping.MAX_PLAYERS).
MIN_SEATS, MAX_SEATS = 2, 6
# Play.code of a "nothing to do" the server played because the turn's time ran out.
TIMEOUT_CODE = "timeout"


def as_printed(text: str) -> str:
    """Operators as printed on the keys: a tablet shows − × ÷, the engine speaks ASCII.

    A minus only between spaces: "-3" is a negative number (tier 3), not a key.
    """
    text = (text or "").replace("*", OPERATOR_SYMBOLS["*"]).replace("/", OPERATOR_SYMBOLS["/"])
    return text.replace(" - ", f" {OPERATOR_SYMBOLS['-']} ")


_tr = as_printed


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
    if code == "card_unavailable" and card not in ("", None) and p.get("written"):
        # A number the child wrote (typed, not a card tapped): it may never have been there.
        return _("There is no %(card)s card on the table.") % {"card": card}
    if code == "card_unavailable" and card not in ("", None) and not str(card).isdigit():
        return _("There is no %(card)s card to use.") % {"card": card}
    return texts.get(code or "", _("That is not possible right now."))


def players_count_message(count: int) -> str:
    """Why a game can't be set with this many players (the engine's limits)."""
    return _("A game needs %(min)d to %(max)d players, not %(count)d.") % {
        "min": MIN_SEATS,
        "max": MAX_SEATS,
        "count": count,
    }


def _limit_message(field: str) -> str:
    texts = {
        "challenge_window": _(
            "The time to call “Kavet 'm eus!” must be from 0 seconds to one hour."
        ),
        "challenge_time": _(
            "The time for a challenger to announce must be from 0 seconds to one hour."
        ),
        "turn_time": _("The time limit for a turn must be from 0 seconds (no limit) to one hour."),
    }
    return texts[field]


def _numbers(reason: str) -> list[int]:
    """The numbers in an engine reason (its English is for the CLI; only numbers are read)."""
    return [int(n) for n in re.findall(r"-?\d+", reason)]


def _rules_problem_message(problem: str, reason: str) -> str | None:
    """A rules_invalid refusal in words, chosen by its stable `problem` key (RULES_PROBLEMS)."""
    numbers = _numbers(reason)
    if problem == "number_range":
        return _("The number range must be “up to 10” or “up to 20”.")
    if problem == "tier":
        return _("The operations tier must be 1, 2 or 3.")
    if problem == "no_operator":
        return _("Choose at least one operation sign.")
    if problem == "no_basic_operator":
        return _("Choose at least one of +, −, × and ÷: powers alone leave almost nothing to play.")
    if problem == "plus_required":  # R2.5
        return _("The sign + is always played: you may leave out −, ×, ÷ or powers, never +.")
    if problem == "operator_not_in_tier":
        return _("Operations tier %(tier)s does not have the sign %(sign)s.") % {
            "tier": numbers[0] if numbers else "?",
            "sign": _tr(reason.rsplit(" ", 1)[-1]),
        }
    if problem == "bound_fixed":
        return _("At operations tier 3 the largest result can't be changed.")
    if problem == "bound_range" and len(numbers) >= 2:
        return _("The largest result allowed must be a whole number from %(low)d to %(high)d.") % {
            "low": numbers[0],
            "high": numbers[1],
        }
    if problem == "show_steps":
        return _("Showing the intermediate results must be on or off.")
    return None


def _deck_reason_message(reason: str) -> str | None:
    """The engine's deck_invalid reasons (English, for its CLI), in words.

    A deck refusal gives only a reason; its leading words are stable and tested here
    (tests/games/test_wording.py), the numbers in it are read back.
    """
    numbers = _numbers(reason)
    if reason.startswith("copies of each number") and len(numbers) >= 2:
        return _("Copies of each number card: from %(low)d to %(high)d.") % {
            "low": numbers[0],
            "high": numbers[1],
        }
    if reason.startswith("the number of X cards") and len(numbers) >= 2:
        return _("X cards (jokers): from %(low)d to %(high)d.") % {
            "low": numbers[0],
            "high": numbers[1],
        }
    if reason.startswith("events must be"):
        return _("Event cards must be on or off.")
    return None


def settings_error_message(code: str | None, params: dict[str, Any] | None = None) -> str:
    """Why the engine refused a game's settings (EngineError config_invalid, rules_invalid,
    deck_invalid, draw_order_invalid), told to the teacher; never the engine's English."""
    p = dict(params or {})
    field = p.get("field")
    if code == "config_invalid":
        if field == "players":
            return players_count_message(int(p.get("count") or 0))
        if field == "deck":
            return _("The deck must have the same number range as the game (up to %(max)s).") % {
                "max": p.get("rules", "?")
            }
        if field in ("challenge_window", "challenge_time", "turn_time"):
            return _limit_message(field)
        if field == "starter":
            return _("The player who starts must be one of the players at the table.")
        if field == "nothing_true_penalty":
            return _("A false challenge of a true “nothing to do” costs 3 or 4 cards.")
        if field == "untimed":
            return _("Only players at the table can play without a clock.")
    if code == "draw_order_invalid":
        return _("The draw order must name each card at most once, from 0 to %(last)d.") % {
            "last": max(0, int(p.get("cards") or 1) - 1)
        }
    reason = str(p.get("reason") or "")
    text = None
    if code == "rules_invalid":
        text = _rules_problem_message(str(p.get("problem") or ""), reason)
    elif code == "deck_invalid":
        text = _deck_reason_message(reason)
    if text:
        return text
    return _("These game settings are not possible.")


def verdict_message(code: str | None, params: dict[str, Any] | None = None) -> str:
    """Why an announcement was wrong (R3.5 wrong): a real mistake, shown to everyone."""
    p = dict(params or {})
    expr = _tr(str(p.get("expression", "")))
    value = p.get("value", "")
    result = p.get("result", "")
    if code == "wrong_result":
        if expr:
            return _("%(expression)s makes %(value)s, not %(result)s.") % {
                "expression": expr,
                "value": value,
                "result": result,
            }
        return _("The result is not right.")
    if code == "division_by_zero":
        return _("You can't divide by zero.")
    if code == "not_whole":
        return (
            _("%(expression)s does not divide exactly.") % {"expression": expr}
            if expr
            else _("That division does not come out exactly.")
        )
    if code == "negative":
        return (
            _("%(expression)s goes below zero.") % {"expression": expr}
            if expr
            else _("A step goes below zero.")
        )
    if code == "out_of_bounds":
        return (
            _("%(expression)s = %(value)s is too big for this level.")
            % {"expression": expr, "value": value}
            if expr
            else _("A step is too big for this level.")
        )
    if code == "zero_power_zero":
        return _("0 to the power 0 has no value.")
    if code == "exponent_not_allowed":
        return _("A power must be a whole number from 0 to 10.")
    return refusal_message(code, p)


def _name(players: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return players[seat]
    return "?"


def _typed(event: Mapping[str, Any] | ev.Event, kind: type[E]) -> E:
    """`event` as the catalogue's `kind` (a stored dict, with or without its "type")."""
    return event if isinstance(event, kind) else kind.from_dict(event)  # type: ignore[return-value]


def _challenge_ruled_sentence(e: ev.ChallengeRuled, players: Sequence[str]) -> str:
    """How a challenge ended (R5.3, R5.4, R7.7)."""
    names = {
        "challenger": _name(players, e.challenger),
        "challenged": _name(players, e.challenged),
    }
    if e.outcome == "right":
        return _("Right challenge! %(challenger)s wins the trick; %(challenged)s skips a turn.") % (
            names
        )
    if e.outcome == "called_off":
        return _("C'HWEC'H worked: the challenge is called off.")
    return (
        _("False challenge: %(challenger)s gives cards to %(challenged)s and skips a turn.") % names
    )


def _trick_sentence(e: ev.TrickWon, who: str, players: Sequence[str]) -> str:
    """Where a won trick went: the player's pile, or DAOU's, PEVAR's or PEMP's place (R7)."""
    size = e.size
    if e.placed == "daou":
        return ngettext(
            "%(name)s wins %(count)d card and gives them to %(other)s with DAOU.",
            "%(name)s wins %(count)d cards and gives them to %(other)s with DAOU.",
            size,
        ) % {"name": who, "count": size, "other": _name(players, e.to)}
    if e.placed == "pevar":
        return ngettext(
            "%(name)s wins %(count)d card, laid on PEVAR (counts double).",
            "%(name)s wins %(count)d cards, laid on PEVAR (counts double).",
            size,
        ) % {"name": who, "count": size}
    if e.placed == "pemp":
        return ngettext(
            "%(name)s wins %(count)d card, laid on PEMP (counts half).",
            "%(name)s wins %(count)d cards, laid on PEMP (counts half).",
            size,
        ) % {"name": who, "count": size}
    return ngettext("%(name)s wins %(count)d card.", "%(name)s wins %(count)d cards.", size) % {
        "name": who,
        "count": size,
    }


def event_sentence(  # noqa: C901 (one case per kind of event in the catalogue, events.py)
    event: Mapping[str, Any] | ev.Event, players: Sequence[str]
) -> str | None:
    """One sentence telling the table what happened, or None for events not worth telling."""
    e = ev.event_from_dict(event)
    who = _name(players, getattr(e, "seat", None))
    match e:
        case ev.GameStarted():
            return _("The game begins. %(name)s starts.") % {"name": _name(players, e.starter)}
        case ev.Turn():
            return _("%(name)s's turn.") % {"name": who}
        case ev.EventCard():
            label = "C'HWEC'H" if e.event == "CHWECH" else e.event
            return _("%(name)s takes the event card %(card)s.") % {"name": who, "card": label}
        case ev.TriTook():
            return _("TRI: %(name)s takes the card %(card)s from %(other)s's pile.") % {
                "name": who,
                "card": e.card["label"],
                "other": _name(players, e.from_),
            }
        case ev.Announced():
            return _("%(name)s says: %(text)s") % {"name": who, "text": _tr(e.text)}
        case ev.SaidNothing(timeout=True):
            return _("Time is up for %(name)s: nothing to do.") % {"name": who}
        case ev.SaidNothing():
            return _("%(name)s says: nothing to do.") % {"name": who}
        case ev.Verdict(ok=True):
            return _("Right! %(text)s") % {"text": _tr((e.operation or {}).get("text", ""))}
        case ev.Verdict():
            return _("Wrong: %(why)s") % {"why": verdict_message(e.code, e.params)}
        case ev.NothingRuled(was_true=True):
            return _("That was true: there was nothing to do for %(name)s.") % {"name": who}
        case ev.NothingRuled():
            return _("There was something to do for %(name)s.") % {"name": who}
        case ev.Lesson():
            op = (e.operation or {}).get("text", "")
            return _("Look: %(text)s was possible.") % {"text": _tr(op)}
        case ev.ChallengeCalled():
            return _("%(name)s: Kavet 'm eus! (against %(other)s)") % {
                "name": who,
                "other": _name(players, e.against),
            }
        case ev.ChwechOffered():
            return _("%(name)s may use C'HWEC'H for a second chance.") % {"name": who}
        case ev.ChwechDecided(use=True):
            return _("%(name)s uses C'HWEC'H and tries again.") % {"name": who}
        case ev.ChwechDecided():
            return _("%(name)s does not use C'HWEC'H.") % {"name": who}
        case ev.ChallengeRuled():
            return _challenge_ruled_sentence(e, players)
        case ev.TrickWon():
            return _trick_sentence(e, who, players)
        case ev.CardsGiven():
            return ngettext(
                "%(name)s gives %(count)d card to %(other)s.",
                "%(name)s gives %(count)d cards to %(other)s.",
                e.count,
            ) % {
                "name": _name(players, e.from_),
                "count": e.count,
                "other": _name(players, e.to),
            }
        case ev.SkipDue():
            return _("%(name)s will skip their next turn.") % {"name": who}
        case ev.Skipped():
            return _("%(name)s skips this turn.") % {"name": who}
        case ev.Ok():
            return _("%(name)s says OK.") % {"name": who}
        case ev.Timeout(kind="window"):
            return _("Time is up: no challenge.")
        case ev.WindowClosed(reason="all_ok"):
            return _("Everyone said OK.")
        case ev.Replaced() if e.bot:
            return _("A computer player now plays for %(name)s.") % {"name": who}
        case ev.GameOver():
            return _("The game is over!")
    return None


def events_sentences(
    events: Sequence[Mapping[str, Any] | ev.Event], players: Sequence[str]
) -> list[str]:
    """The sentences for a list of events, skipping the ones not worth telling."""
    out = []
    for event in map(ev.event_from_dict, events):
        if isinstance(event, ev.TurnedUp | ev.WindowOpened):
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
        return ngettext(
            "UNAN: %(name)s takes the %(count)d card left on the table.",
            "UNAN: %(name)s takes the %(count)d cards left on the table.",
            count,
        ) % {"name": who, "count": count}
    other = _name(players, item.get("to"))
    if item.get("kind") == "daou":
        return ngettext(
            "DAOU not used: %(name)s gives %(count)d card to %(other)s.",
            "DAOU not used: %(name)s gives %(count)d cards to %(other)s.",
            count,
        ) % {"name": who, "count": count, "other": other}
    return ngettext(
        "PEMP not used: %(name)s gives %(count)d card to %(other)s.",
        "PEMP not used: %(name)s gives %(count)d cards to %(other)s.",
        count,
    ) % {"name": who, "count": count, "other": other}


def settlement_steps(
    result: Mapping[str, Any] | None, players: Sequence[str], cards: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The end's settlements (R6.2) as the end screen plays them, one step after the other:
    who gives (None: the table, for UNAN), who receives, the cards that move (as the views show
    them, engine.card_dict: their numbers, X, or an event card's picture), the sentence shown
    and the same sentence as spoken (games.speech). A settlement that moves no card is left out.
    `cards`: every card of the deck by id."""
    steps = []
    for item in (result or {}).get("settlements", []):
        if item.get("count", 0) <= 0:
            continue
        text = settlement_sentence(item, players)
        unan = item.get("kind") == "unan"
        giver = None if unan else item.get("seat")
        receiver = item.get("seat") if unan else item.get("to")
        steps.append(
            {
                "number": len(steps) + 1,
                "kind": item.get("kind"),
                "giver": giver,
                "giver_name": _("The table") if unan else _name(players, giver),
                "receiver": receiver,
                "receiver_name": _name(players, receiver),
                "cards": [cards[c] for c in item.get("cards", []) if 0 <= c < len(cards)],
                "text": text,
                "speech": speech.say(text),
            }
        )
    return steps


def end_speech(*, abandoned: bool, settlements: Sequence[str], ranking: Sequence[dict]) -> str:
    """The end screen said aloud: how it ended, the settlements (R6.2), each place and points."""
    parts = [_("The game was ended early.") if abandoned else _("The game is over!")]
    parts += list(settlements)
    return speech.say(*parts, ranking_speech(ranking))


def ranking_speech(ranking: Sequence[dict]) -> str:
    """The end screen's ranking said aloud: each place, name and points (R6.3)."""
    parts = []
    for r in ranking:
        n = r.get("score") or 0
        if r.get("place"):
            parts.append(
                ngettext(
                    "Place %(place)s: %(name)s, %(count)d point.",
                    "Place %(place)s: %(name)s, %(count)d points.",
                    n,
                )
                % {"place": r["place"], "name": r["name"], "count": n}
            )
        else:
            parts.append(
                ngettext("%(name)s: %(count)d point.", "%(name)s: %(count)d points.", n)
                % {"name": r["name"], "count": n}
            )
    return speech.say(*parts)


class ruling_texts:  # noqa: N801 - read as a function: ruling_texts(players).verdict(event)
    """The words of the ruling panel (games.selectors.ruling_panel): a big word and a reason a
    child can read, for each verdict (R3.5), each "nothing to do" ruling (R5.6) and each
    challenge's outcome (R5.4, R5.5, R7.7)."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = players

    def verdict(self, event: Mapping[str, Any] | ev.Verdict) -> dict[str, Any]:
        e = _typed(event, ev.Verdict)
        if e.ok:
            op = e.operation or {}
            steps = [_tr(s) for s in op.get("steps") or []]
            return {
                "ok": True,
                "word": _("Right!"),
                "reason": ", ".join(steps) if len(steps) > 1 else _tr(op.get("text", "")),
            }
        return {
            "ok": False,
            "word": _("Wrong!"),
            "reason": verdict_message(e.code, e.params),
        }

    def nothing(self, event: Mapping[str, Any] | ev.NothingRuled) -> dict[str, Any]:
        e = _typed(event, ev.NothingRuled)
        if e.was_true:
            return {"ok": True, "word": _("True!"), "reason": _("There was nothing to do.")}
        op = (e.possible or {}).get("text", "")
        if op:
            return {
                "ok": False,
                "word": _("Not true!"),
                "reason": _("There was something to do: %(text)s") % {"text": _tr(op)},
            }
        return {"ok": False, "word": _("Not true!"), "reason": _("There was something to do.")}

    def outcome(self, event: Mapping[str, Any] | ev.ChallengeRuled) -> dict[str, Any]:
        e = _typed(event, ev.ChallengeRuled)
        names = {
            "challenger": _name(self.players, e.challenger),
            "challenged": _name(self.players, e.challenged),
        }
        result = e.outcome
        reason = e.reason
        if result == "right":
            return {
                "ok": True,
                "word": _("Good catch!"),
                "reason": _("%(challenger)s was right to say “Kavet 'm eus!”.") % names,
            }
        if result == "called_off":
            return {
                "ok": True,
                "word": _("Second chance worked!"),
                "reason": _("C'HWEC'H: the challenge is called off."),
            }
        reasons = {
            "correct_announcement": _("%(challenged)s's operation was right."),
            "true_nothing": _("There really was nothing to do for %(challenged)s."),
            "timeout": _("%(challenger)s ran out of time to show an operation."),
            "no_valid_operation": _("%(challenger)s did not show a right operation."),
        }
        return {
            "ok": False,
            "word": _("False challenge!"),
            "reason": reasons.get(reason, _("The challenge was wrong.")) % names,
        }

    def consequence(self, event: Mapping[str, Any] | ev.Event) -> str | None:
        e = ev.event_from_dict(event)
        if isinstance(e, ev.CardsGiven) and not e.count:
            return _("%(name)s has no cards to give yet, so gives 0 cards.") % {
                "name": _name(self.players, e.from_)
            }
        return event_sentence(event, self.players)

    def speech(self, panel: dict[str, Any]) -> str:
        """The whole ruling as one text for the voice (games.speech): each operation said once,
        in words; a right verdict is its word alone, the operation was just said."""
        main = panel["main"]
        if main["kind"] == "announce":
            first = _("%(name)s says: %(text)s") % {"name": main["who"], "text": main["said"]}
        elif main.get("timeout"):
            first = _("Time ran out for %(name)s: nothing to do.") % {"name": main["who"]}
        else:
            first = _("%(name)s says: nothing to do.") % {"name": main["who"]}
        challenge = panel.get("challenge")
        verdict = main.get("verdict")
        if verdict and main["kind"] == "nothing" and (challenge or {}).get("said"):
            # The operation that was possible is the one the challenger shows: said once, there.
            verdict = verdict | {"reason": _("There was something to do.")}
        parts = [first, self._verdict_speech(verdict)]
        if challenge:
            parts.append(_("%(name)s: Kavet 'm eus!") % {"name": challenge["who"]})
            if challenge.get("said"):
                parts.append(
                    _("%(name)s says: %(text)s")
                    % {"name": challenge["who"], "text": challenge["said"]}
                )
            parts.append(self._verdict_speech(challenge.get("verdict")))
        second = panel.get("second")
        if second:
            parts.append(
                _("%(name)s says: %(text)s") % {"name": main["who"], "text": second["said"]}
            )
            parts.append(self._verdict_speech(second.get("verdict")))
        parts.append(self._verdict_speech(panel.get("outcome")))
        parts.extend(panel.get("consequences") or [])
        parts.extend(panel.get("told") or [])
        return speech.say(*parts)

    @staticmethod
    def _verdict_speech(verdict: dict[str, Any] | None) -> str:
        if not verdict:
            return ""
        if verdict["ok"] and "=" in verdict["reason"]:  # the operation, or its steps: just said
            return verdict["word"]
        return speech.join([verdict["word"], verdict["reason"]])


def event_explanations(
    held_events: set[str] | frozenset[str], rules: dict[str, Any] | None = None
) -> dict[str, str]:
    """What the event cards a child holds do, in a child's words (R7), shown next to the choice
    of where a trick goes and beside the cards in the player's row."""
    texts = {
        "PEVAR": _("PEVAR: lay a trick on it and its cards count double at the end."),
        "PEMP": _(
            "PEMP: a trick with an even number of cards laid on it counts only half. If "
            "PEMP is still empty at the end, you give 2 cards to each other player."
        ),
        "DAOU": _(
            "DAOU: you may give this trick to the player on your right. If you never use "
            "DAOU, at the end you give them 5 cards."
        ),
        "CHWECH": _("C'HWEC'H: if someone says “Kavet 'm eus!” against you, you may try again."),
        "UNAN": _("UNAN: at the end you take the cards left on the table."),
        "TRI": _(
            "TRI: you took a card from each other player's pile: use them in your operations."
        ),
    }
    return {name: text for name, text in texts.items() if name in held_events}
