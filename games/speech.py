"""What a tablet says aloud: the page's own words, told so a voice reads them well.

Every child page has one speaker button (templates/games/_speaker.html) in the same place; what
it says is built here from the same facts as the page's text, in the child's language:

- operations in words: "5 − 3 = 2" is said "5 minus 3 is 2", "5 + 0 = X (X=5)" is said
  "5 plus 0 is X, X is 5" (`spoken`);
- sentences joined with one mark between them, never ".." or "!." (`join`);
- no sign a voice reads badly: no "(", ")", "=", "−", "×", "÷", "^" (`speech_faults`, the test's
  checker, run over every state the tests build).

The browser joins the parts of a page the same way (static/js/kavet.js, kavetSpeech).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.utils.translation import pgettext

# The parts of a live board a speaker says (templates/games/board/, each with a data-speech
# attribute), in this order: what went wrong with a tap, a pause, the coach, the end, the
# ruling, whose turn it is.
BOARD_PARTS = (".news-flash", ".banner", "#coach", ".end-screen", ".ruling", ".whose-turn")
# A sentence already ends with one of these: the next part follows after a space.
ENDS = ".!?…:"
# The signs an operation may hold, as the engine writes them (ASCII) and as a tablet prints them.
_SIGNS = {"+": "plus", "-": "minus", "−": "minus", "*": "times", "×": "times"}
_SIGNS |= {"/": "divided", "÷": "divided", "^": "power", "=": "is"}
# "(X=5, X=9)": the numbers the X cards stood for, the group the engine appends (checker.py).
_X_GROUP = re.compile(r"\s*\(\s*(X\s*=\s*-?\d+(?:\s*,\s*X\s*=\s*-?\d+)*)\s*\)")
# A sign between two terms; a minus straight before a digit after a space or "(" is a negative
# number ("-3", tier 3), said "minus 3" too.
_KEY_EQUALS = re.compile(r"(?<=[\s,])=(?=\s*[,.])")
_TOKEN = re.compile(r"(?<![\w'])-(?=\d)|[+\-−*×/÷^=]")


def sign_words() -> dict[str, str]:
    """The words for the operation signs, in the active language."""
    return {
        "plus": pgettext("spoken operation", "plus"),
        "minus": pgettext("spoken operation", "minus"),
        "times": pgettext("spoken operation", "times"),
        "divided": pgettext("spoken operation", "divided by"),
        "power": pgettext("spoken operation", "to the power of"),
        "is": pgettext("spoken operation", "is"),
    }


def _tidy(text: str) -> str:
    """One space between words, one mark between sentences, none before a comma or a stop."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    text = re.sub(r",+", ",", text)
    text = re.sub(r",\s*(?=[.!?:]|$)", "", text)  # "double,." / a trailing comma
    text = re.sub(r"([.!?:])\s*,", r"\1", text)  # "Kavet 'm eus!, against"
    text = re.sub(r"([!?])\s*\.", r"\1", text)  # "!." "?."
    text = re.sub(r":\s*\.", ".", text)  # ":."
    text = re.sub(r"(?<!\.)\.(\s*\.)+(?!\.)", ".", text)  # ".." ". ." but not "…"
    return text.strip(" ,")


def spoken(text: str) -> str:
    """A text as a voice should say it: operations in words, no brackets, tidy marks."""
    text = str(text or "")
    if not text.strip():
        return ""
    words = sign_words()
    text = _X_GROUP.sub(lambda m: ", " + m.group(1).replace(",", ", ") + ",", text)
    # "Tap 4, +, 5, =, 9": the key "=" by its name; in an operation "=" is said "is".
    # (Out of the f-string: xgettext does not read calls inside one.)
    equals = pgettext("spoken key", "equals")
    text = _KEY_EQUALS.sub(f" {equals}", text)
    text = _TOKEN.sub(lambda m: f" {words[_SIGNS[m.group(0)]]} ", text)
    # Brackets: around part of an operation a pause, around words a pause too.
    text = text.replace("(", ", ").replace(")", ", ")
    return _tidy(text)


def join(parts: Iterable[str | None]) -> str:
    """Sentences as one text: each ends with a mark, the next follows after a space."""
    out: list[str] = []
    for part in parts:
        part = _tidy(str(part or ""))
        if not part:
            continue
        out.append(part if part[-1] in ENDS else part + ".")
    return " ".join(out)


def say(*parts: str | None) -> str:
    """The parts of a page as one spoken text (`join`, then `spoken`)."""
    return spoken(join(parts))


# --- the tests' checker ---------------------------------------------------------------------
_BAD_SIGNS = "()=−×÷^*/<>[]{}#_|\\"


def _operations(text: str) -> list[str]:
    """The spoken operations in a text: "5 plus 3 is 8" (numbers and X with sign words)."""
    words = sign_words()
    signs = "|".join(
        re.escape(w) for w in sorted((v for k, v in words.items() if k != "is"), key=len)[::-1]
    )
    term = r"(?:minus )?(?:\d+|X)"
    equals = re.escape(words["is"])
    # The numbers the X cards stood for belong to the operation: "X is 6" and "X is 5" differ.
    pattern = rf"{term}(?: (?:{signs}) {term})+ {equals} {term}(?:, X {equals} (?:minus )?\d+)*"
    return re.findall(pattern, text)


def speech_faults(text: str) -> list[str]:
    """What a voice would read badly in `text`, in the active language; [] when it is clean."""
    faults = []
    if not (text or "").strip():
        return ["empty"]
    if re.search(r"(?<!\.)\.\s*\.(?!\.)", text):
        faults.append("double stop")
    if re.search(r"[!?:,]\s*\.|[.!?]\s*[,:]", text):
        faults.append("stray mark")
    faults += [f"sign {c!r}" for c in _BAD_SIGNS if c in text]
    if re.search(r"(?<![\w])[+\-](?=\s|\d)", text):
        faults.append("sign '+/-'")
    if "  " in text or text != text.strip():
        faults.append("spacing")
    if re.search(r"\s[,.]", text):  # a space before "!", "?" or ":" is French typography
        faults.append("space before a mark")
    ops = _operations(text)
    if len(ops) != len(set(ops)):
        faults.append("operation twice")
    # Words, not numbers: "gibt Computer 1 1 Karte" is a name and a count.
    if re.search(r"\b([^\W\d_]+) \1\b", text, flags=re.IGNORECASE):
        faults.append("doubled word")
    if "{" in text or "%(" in text:
        faults.append("unfilled")
    return faults
