"""How to play: a page for children (short sentences, pictures of cards, a worked example) and a
page for teachers (levels, class games, challenges, the end-of-game settlements). Both are read
from the rules (docs/rules.md, R0–R9) and open to everyone: a child may read it before signing in."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

# The six event cards (R7), in the order of their number: picture key, name, what it does.
EVENTS_CHILD = (
    ("unan", "UNAN", _("At the end, you take the cards left on the table.")),
    ("daou", "DAOU", _("A gift: you may give a trick you win to the player on your right.")),
    ("tri", "TRI", _("Take one card from each other player. You can use them in your operations.")),
    ("pevar", "PEVAR", _("Lay a trick you win on PEVAR: it counts double.")),
    (
        "pemp",
        "PEMP",
        _(
            "Careful! A trick laid on PEMP counts half. Keep it unused and you give 2 cards to each player."
        ),
    ),
    (
        "chwech",
        "C'HWEC'H",
        _("A second chance: when someone says “Kavet 'm eus!” to you, try again."),
    ),
)

EVENTS_TEACHER = (
    (
        "unan",
        "UNAN",
        _("The rest is yours: at the end, its holder takes the cards left on the table (R7.2)."),
    ),
    (
        "daou",
        "DAOU",
        _(
            "A gift: its holder may give a trick they win to their right-hand neighbour; unused at the end, it costs 5 cards to that neighbour (R7.3, R6.2)."
        ),
    ),
    (
        "tri",
        "TRI",
        _(
            "Its holder at once takes one random card from every other player's pile; these held cards are theirs to use in operations (R7.4)."
        ),
    ),
    ("pevar", "PEVAR", _("Double: a trick laid on it counts twice at the end; once only (R7.5).")),
    (
        "pemp",
        "PEMP",
        _(
            "Half: a trick with an even number of cards laid on it counts half; unused at the end, it costs 2 cards to each other player (R7.6, R6.2)."
        ),
    ),
    (
        "chwech",
        "C'HWEC'H",
        _(
            "The second chance: a challenged holder may announce again before the challenger does (R7.7)."
        ),
    ),
)

# The worked example of the rules (R3.2): "8 − 5 = 3, × 6 = 18" wins 8, 5, 6 and 18.
EXAMPLE_TABLE = (8, 5, 11, 6, 2, 18)
EXAMPLE_WON = (8, 5, 6, 18)


@require_safe
def howto_child(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "games/howto_child.html",
        {
            "events": EVENTS_CHILD,
            "table_cards": [(n, n in EXAMPLE_WON) for n in EXAMPLE_TABLE],
            "won": EXAMPLE_WON,
        },
    )


@require_safe
def howto_teacher(request: HttpRequest) -> HttpResponse:
    return render(request, "games/howto_teacher.html", {"events": EVENTS_TEACHER})


# Included from games/urls.py under "how-to-play/", inside the "games" namespace.
urlpatterns = [
    path("", howto_child, name="howto_child"),
    path("teachers/", howto_teacher, name="howto_teacher"),
]
