"""Forms of the students' pages."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .engine.parser import MAX_INPUT_LENGTH, MAX_TOKENS
from .models import Seat
from .services import PLAYER_MOVES


class PracticeForm(forms.Form):
    """A practice game: how many computer players, and how strong."""

    computers = forms.TypedChoiceField(
        label=_("Computer players"),
        choices=[(1, "1"), (2, "2"), (3, "3")],
        coerce=int,
        initial=2,
        widget=forms.RadioSelect,
    )
    strength = forms.ChoiceField(
        label=_("How strong?"), choices=Seat.Bot.choices, initial="easy", widget=forms.RadioSelect
    )


# --- A move posted by a tablet: read at the boundary, bounded in size, depth and shape ----------
# Every refusal here is one of the engine's refusal codes (told by games.wording.refusal_message),
# so a hostile or broken post answers like any refused move: a message on the table, nothing changed.

#: The longest typed announcement and the most tokens the engine reads (its parser refuses
#: longer ones with the same code).
MAX_TEXT = MAX_INPUT_LENGTH
#: The raw JSON fields: a structured announcement of MAX_TOKENS tokens fits well under these.
MAX_TOKENS_CHARS = 8000
MAX_X_VALUES_CHARS = 2000
#: `tokens` is a list of flat objects, `x_values` one flat object: no deeper nesting is read.
MAX_JSON_DEPTH = 2
#: Card ids, literal numbers and X values: far beyond any deck, far below anything costly.
MAX_NUMBER = 10**6
MAX_SHORT = 20  # the move type, the event card to place, an operator key
MAX_SEEN_VERSION = 2**31 - 1
TOKEN_KEYS = frozenset({"card", "op", "num"})


class MoveRefused(ValueError):
    """A post that can't be a move; `code` is the engine's refusal code to tell the player."""

    def __init__(self, code: str = "bad_move") -> None:
        super().__init__(code)
        self.code = code


def _clean_text(value: str) -> bool:
    """No NUL, no control character but tab and line breaks, no lone surrogate."""
    return not any(unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n\r" for ch in value)


def json_depth(raw: str) -> int:
    """How deep the brackets of a JSON text go, strings skipped: checked before json.loads,
    so `[[[[…` never reaches the decoder's recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _bounded_json(raw: str, limit: int) -> Any:
    if len(raw) > limit:
        raise MoveRefused("input_too_long")
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise MoveRefused("bad_move")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise MoveRefused("bad_move") from None


def _small_int(value: Any) -> bool:
    return type(value) is int and -MAX_NUMBER <= value <= MAX_NUMBER


def _token(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict) or len(item) != 1:
        raise MoveRefused("bad_move")
    ((key, value),) = item.items()
    if key not in TOKEN_KEYS:
        raise MoveRefused("bad_move")
    if key == "op":
        if not isinstance(value, str) or not 0 < len(value) <= 2 or not value.isprintable():
            raise MoveRefused("bad_move")
    elif not _small_int(value):
        raise MoveRefused("bad_move")
    return {key: value}


def _x_values(raw: Any) -> dict[str, int]:
    if not isinstance(raw, dict) or len(raw) > MAX_TOKENS:
        raise MoveRefused("bad_move")
    out: dict[str, int] = {}
    for key, value in raw.items():
        if not (key.isascii() and key.isdigit() and len(key) < 10) or not _small_int(value):
            raise MoveRefused("bad_move")
        out[key] = value
    return out


def _field(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    return value if isinstance(value, str) else ""


def parse_move(data: Mapping[str, Any]) -> dict[str, Any]:
    """The move a tablet posted, as the engine's typed shape; MoveRefused when it can't be one.

    The seat never comes from here. An announcement with nothing in it is {"type": "announce",
    "empty": True} (the view answers "Tap some cards first.").
    """
    kind = _field(data, "type")
    if len(kind) > MAX_SHORT:
        raise MoveRefused("bad_move")
    if kind in ("chwech_yes", "chwech_no"):
        return {"type": "chwech", "use": kind == "chwech_yes"}  # R7.7: the second chance
    if kind not in PLAYER_MOVES - {"chwech"}:
        raise MoveRefused("bad_move")
    if kind != "announce":
        return {"type": kind}
    move = _announcement(data)
    if move is None:
        return {"type": "announce", "empty": True}
    place = _field(data, "place").strip()
    if place:
        if len(place) > MAX_SHORT or not place.isprintable():
            raise MoveRefused("bad_move")
        move["place"] = place
    return move


def _announcement(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """What was announced: typed text, or tapped tokens with the X cards' values (R3.4); None when
    nothing was."""
    text = _field(data, "text").strip()
    if text:
        if len(text) > MAX_TEXT:
            raise MoveRefused("input_too_long")
        if not _clean_text(text):
            raise MoveRefused("unknown_character")
        return {"type": "announce", "text": text}
    raw_tokens = _field(data, "tokens").strip()
    if not raw_tokens:
        return None
    tokens = _bounded_json(raw_tokens, MAX_TOKENS_CHARS)
    if not isinstance(tokens, list):
        raise MoveRefused("bad_move")
    if not tokens:
        return None
    if len(tokens) > MAX_TOKENS:
        raise MoveRefused("input_too_long")
    return {
        "type": "announce",
        "tokens": [_token(item) for item in tokens],
        "x_values": _x_values(
            _bounded_json(_field(data, "x_values").strip() or "{}", MAX_X_VALUES_CHARS)
        ),
    }


def seen_version(data: Mapping[str, Any]) -> int:
    """The version the player saw; -1 (never current) for anything that is not a small number."""
    raw = _field(data, "seen_version").strip()
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 10):
        return -1
    value = int(raw)
    return value if value <= MAX_SEEN_VERSION else -1
