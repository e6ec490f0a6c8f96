"""What a tablet reads on its board (games.board): the version, the poll's URL,
the cards, and the moves its form offers; and the move a child makes from there.

Read with regular expressions, lazily: a board pushed to a tablet is only looked at for its
version until that tablet is the one to play.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass, field

VERSION = re.compile(rb'data-version="(\d+)"')
POLLER = re.compile(r'class="poller" hx-get="([^"]+)"')
DUE = re.compile(r'data-due="(\d+)"')
STREAM = re.compile(r'data-stream="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
CARD = re.compile(r'data-card="(\d+)" data-label="([^"]*)" data-kind="(\w+)"')
PLACE = re.compile(r'name="place" value="(pevar|pemp|daou)"')
APPLIED = re.compile(r'data-applied="1"')
HX_GET = re.compile(r'hx-get="([^"]+)"')


def unescape(value: str) -> str:
    return html.unescape(value)


def version_of(body: bytes) -> int:
    m = VERSION.search(body)
    return int(m.group(1)) if m else -1


@dataclass
class Board:
    """A board as the tablet shows it."""

    version: int
    text: str
    poller: str = ""
    due_ms: int = 0
    table: list[tuple[int, str, str]] = field(default_factory=list)  # (id, label, kind)
    held: list[tuple[int, str, str]] = field(default_factory=list)
    moves: frozenset[str] = frozenset()  # announce, nothing, challenge, ok, chwech
    places: tuple[str, ...] = ()
    csrf: str = ""

    @classmethod
    def read(cls, body: bytes) -> Board:
        text = body.decode()
        board = cls(version=version_of(body), text=text)
        m = POLLER.search(text)
        board.poller = unescape(m.group(1)) if m else ""
        m = DUE.search(text)
        board.due_ms = int(m.group(1)) if m else 0
        cards_at = text.find('class="table-cards"')
        held_at = text.find("my-held")
        form_at = text.find('id="move-form"')
        end = len(text)
        table_part = text[cards_at : held_at if held_at > 0 else (form_at if form_at > 0 else end)]
        board.table = [(int(i), unescape(lab), k) for i, lab, k in CARD.findall(table_part)]
        if held_at > 0:
            held_part = text[held_at : form_at if form_at > 0 else end]
            board.held = [(int(i), unescape(lab), k) for i, lab, k in CARD.findall(held_part)]
        if form_at > 0:
            form = text[form_at:]
            board.moves = frozenset(
                kind
                for kind, marker in (
                    ("announce", 'value="announce"'),
                    ("nothing", 'value="nothing"'),
                    ("challenge", 'value="challenge"'),
                    ("ok", 'value="ok"'),
                    ("chwech", 'value="chwech_yes"'),
                )
                if marker in form
            )
            board.places = tuple(PLACE.findall(form))
            m = CSRF.search(form)
            board.csrf = m.group(1) if m else ""
        return board

    @property
    def over(self) -> bool:
        return not self.poller

    @property
    def paused(self) -> bool:
        return "s=paused" in self.poller


def _values(cards: list[tuple[int, str, str]]) -> list:
    out: list = []
    for _id, label, kind in cards:
        if kind == "x":
            out.append("X")
        elif kind == "number":
            try:
                out.append(int(label))
            except ValueError:
                continue
    return out


@dataclass(frozen=True)
class Mix:
    """How a child plays, as shares: on its turn a right operation (when there is one), else
    a wrong one, else "nothing to do" (wrong when there was one); in a check window a
    "Kavet 'm eus!" (right when the child sees an operation the announcer missed), else OK."""

    wrong: float = 0.12
    missed: float = 0.08  # "nothing to do" with an operation on the table
    challenge: float = 0.12  # in a window: "Kavet 'm eus!" rather than OK
    place: float = 0.5  # a trick placed on an event card when the board offers one


def choose(board: Board, rules, rng: random.Random, mix: Mix) -> tuple[str, dict[str, str]]:
    """The move this tablet's child makes on this board: (the kind counted, the form posted).
    `rules` is the game's games.engine.rules.RuleSet; the operation comes from the engine's
    solver on this seat's view (the table and its held cards)."""
    from games.engine.bots import wrong_sum
    from games.engine.solver import find_operation

    form = {"csrfmiddlewaretoken": board.csrf, "seen_version": str(board.version)}
    moves = board.moves
    if "chwech" in moves:
        use = rng.random() < 0.5
        form["type"] = "chwech_yes" if use else "chwech_no"
        return ("chwech yes" if use else "chwech no"), form
    if "announce" in moves:
        values, held = _values(board.table), _values(board.held)
        op = find_operation(values, rules, held=held) if len(values) + len(held) >= 3 else None
        roll = rng.random()
        if op is not None and roll >= mix.wrong + mix.missed:
            form |= {"type": "announce", "text": op.text, "tokens": "", "x_values": "{}"}
            if board.places and rng.random() < mix.place:
                form["place"] = rng.choice(board.places)
                return "announce right, placed on an event card", form
            return "announce right", form
        # A wrong sum of three numbers on the table, the commonest slip of a young player.
        slip = wrong_sum([v for v in values if isinstance(v, int)])
        if slip is not None and (op is None or roll < mix.wrong) and rng.random() < 0.7:
            form |= {"type": "announce", "text": slip, "tokens": "", "x_values": "{}"}
            return "announce wrong", form
        if "nothing" in moves:
            form["type"] = "nothing"
            return ("nothing, right" if op is None else "nothing, wrong"), form
        if op is not None:  # a challenger must show an operation: the right one
            form |= {"type": "announce", "text": op.text, "tokens": "", "x_values": "{}"}
            return "announce right", form
        form |= {"type": "announce", "text": slip or "1 + 1 = 3", "tokens": "", "x_values": "{}"}
        return "announce wrong", form
    if "challenge" in moves:
        values, held = _values(board.table), _values(board.held)
        sees = find_operation(values, rules, held=held) if len(values) + len(held) >= 3 else None
        if rng.random() < mix.challenge:
            form["type"] = "challenge"
            return ("challenge, sees one" if sees is not None else "challenge, blind"), form
        form["type"] = "ok"
        return "ok", form
    raise LookupError("no move on this board")
