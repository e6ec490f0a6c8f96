"""The operation builder's two facts from the engine (games.engine.entry), for the table page.

- `entry_table_json`: what may come next, one table for every game, sent once with the table
  page (templates/games/table.html, a data attribute) for static/js/table.js to walk. Not in
  the board, which is cached per version (games/table_cache.py): the table never changes.
- `table_steps`: the running results of the operation a tablet is building (R2.4), asked as the
  child taps; exact, the operator as its key prints it, the numbers as the checker writes them
  ("7 ÷ 2 = 7/2", as a wrong operation's reason shows a value).
"""

from __future__ import annotations

import json
from functools import lru_cache

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from games.engine.cards import DeckSpec
from games.engine.entry import entry_table, running_steps
from games.engine.operations import OPERATOR_SYMBOLS
from games.engine.state import deck_of
from games.forms import MoveRefused, parse_move
from games.permissions import seats_for_user


@lru_cache(maxsize=1)
def entry_table_json() -> str:
    return json.dumps(entry_table(), separators=(",", ":"))


def _values(deck: dict, x_values: dict[str, int]) -> dict[int, int | None]:
    """Each card id of the game's deck to the value it counts for (an X: the number named)."""
    out: dict[int, int | None] = {}
    for card in deck_of(DeckSpec.from_dict(deck)):
        if card.kind == "number":
            out[card.id] = card.value
        elif card.kind == "x":
            out[card.id] = x_values.get(str(card.id))
    return out


@require_GET
def table_steps(request: HttpRequest, game_id: int) -> HttpResponse:
    """R2.4: {"steps": ["8 − 5 = 3", ...]} for the tokens a seat of this game is building.

    The same fields as the move form (`tokens`, `x_values`), read at the same boundary. A
    player of the game only, and only where the game shows its intermediate results; one
    small query (the game's state is not loaded, only two keys of it).
    """
    row = (
        seats_for_user(user=request.user)
        .filter(game_id=game_id)
        .values_list("game__state__config__rules__show_steps", "game__state__config__deck")
        .first()
    )
    if row is None:
        raise Http404("no such game")
    show, deck = row
    steps: list[str] = []
    if show is True and isinstance(deck, dict):
        data = {"type": "announce", "tokens": request.GET.get("tokens", "")}
        data["x_values"] = request.GET.get("x_values", "")
        try:
            move = parse_move(data)
        except MoveRefused:
            return JsonResponse({"steps": []}, status=400)
        if "tokens" in move:
            values = _values(deck, move["x_values"])
            steps = [
                f"{s.left} {OPERATOR_SYMBOLS[s.operator]} {s.right} = {s.value}"
                for s in running_steps(move["tokens"], values)
            ]
    response = JsonResponse({"steps": steps})
    response["Cache-Control"] = "private, max-age=300"  # the same tokens, the same steps
    return response
