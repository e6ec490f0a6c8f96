"""The live class view's tables rendered by Jinja2 (classgames.live, templates/classrooms/live/,
issue 38) are byte for byte what Django's templates rendered (the partials live_table,
live_clock and live_changed of templates/classrooms/session_live.html), and the whole view's #live that
includes them is as it was: for tables as the live
view builds them (classgames.selectors.live_table, from real games: a table waiting for a
student's turn, with a computer seat; an operation announced, open to challenge; a finished
table; a table with no state yet), and variants of them (flags, a challenge under way, events
and skips, a player placed, one card left to draw, names to escape), each in its section, out of
band or not, alone (the one-table fetch) and with the "updated" time (the poll's answer), in
en, fr and de.

The goldens (tests/classgames/golden/live.json) are digests of Django's renders, written by
this file's `test_jinja_and_django_side_by_side` at commit 90bf100, where the partials were
still there and both renders were compared side by side; the partials are gone since (the
markup's one home is templates/classrooms/live/)."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import RequestFactory
from django.utils import translation

from classgames import live, selectors
from games import services
from games.engine.state import BOT_STRENGTHS
from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden" / "live.json"
LANGUAGES = ["en", "fr", "de"]
CSRF = "goldencsrftoken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
NOW = datetime(2026, 11, 17, 8, 0, 5, tzinfo=UTC)  # 09:00:05 in Paris
ODD = "Zoé <b>\"Lou\" & 'Ana'"


def _fixed(table: dict, number: int) -> dict:
    """What changes from one run to the next (the game's id, its mark) made fixed."""
    table = copy.copy(table)
    game = copy.copy(table["game"])
    game.pk = game.id = 900 + number
    table["game"] = game
    table["mark"] = f"m{number}-{table['status']}"
    table["flags"] = []
    return table


def tables(make_game, classroom) -> list[tuple[str, dict]]:
    kids = [factories.student(classroom=classroom, name=n) for n in ("Anna", "Bo", "Corentin")]
    turn = make_game([{"student": kids[0]}, {"student": kids[1]}, {"bot": "hard"}])
    announced = make_game([{"student": kids[0]}, {"bot": "easy", "name": "Robo"}])
    services.move_submit(
        game_id=announced.pk, seat=0, seen_version=0, move={"type": "announce", "text": "2 + 3 = 5"}
    )
    finished = make_game([{"student": kids[1]}, {"student": kids[2]}, {"bot": "medium"}])
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    for position, (score, place) in enumerate([(7, 1), (1, 3), (4, 2)]):
        finished.seats.filter(position=position).update(score=score, place=place)
    fresh = make_game([{"student": kids[2]}, {"student": kids[0]}], start=False)
    games = Game.objects.prefetch_related("seats").filter(
        pk__in=[turn.pk, announced.pk, finished.pk, fresh.pk]
    )
    by_pk = {g.pk: selectors.live_table(g, NOW) for g in games}
    made = [
        ("turn", _fixed(by_pk[turn.pk], 1)),
        ("announced", _fixed(by_pk[announced.pk], 2)),
        ("finished", _fixed(by_pk[finished.pk], 3)),
        ("fresh", _fixed(by_pk[fresh.pk], 4)),
    ]
    flagged = copy.deepcopy(made[0][1])
    flagged["flags"] = ["No move for 4 min", "Anna has not played for 3 min"]
    flagged["challenge"] = "Bo challenges Anna: 2 + 3 = 5"
    flagged["seats"][0]["events"] = ["+2", "Kavet 'm eus!"]
    flagged["seats"][1]["skips"] = 1
    flagged["seats"][1]["place"] = 2
    flagged["seats"][1]["score"] = 1
    flagged["draw_count"] = 1
    made.append(("flagged", flagged))
    odd = copy.deepcopy(made[1][1])
    odd["label"] = "T<1> & \"the\" 'best'"
    odd["flags"] = [f"{ODD} has not played for 3 min"]
    odd["pending"] = "2 < 3 & 3 > 2"
    for seat in odd["seats"]:
        seat["name"] = ODD
        seat["events"] = ["<i>", "a & b"]
    odd["humans"] = [s for s in odd["seats"] if not s["bot"]]
    odd["cards"] = [{"kind": "num", "label": "<2>"}, {"kind": 'op"', "label": "&"}]
    odd["draw_count"] = 0
    made.append(("odd", odd))
    return made


def request():
    req = RequestFactory().get("/")
    req.htmx = False
    return req


def contexts(made):
    session = SimpleNamespace(pk=77)
    for name, table in made:
        for oob in (False, True):
            ctx = {"t": table, "session": session, "strengths": BOT_STRENGTHS, "csrf_token": CSRF}
            if oob:
                ctx["oob"] = True
            yield f"{name}/{'oob' if oob else 'in'}", "table", ctx
    tables_ = [t for _n, t in made]
    yield "clock", "clock", {"now": NOW}
    yield "clock/oob", "clock", {"now": NOW, "oob": True}
    for status in ("running", "finished"):
        page_session = SimpleNamespace(pk=77, status=status, get_status_display=status.title)
        yield (
            f"page/{status}",
            "page",
            {
                "session": page_session,
                "tables": tables_,
                "fingerprint": "running:m1.m2",
                "strengths": BOT_STRENGTHS,
                "now": NOW,
                "live": status != "finished",
                "csrf_token": CSRF,
            },
        )
    yield (
        "changed",
        "changed",
        {
            "session": session,
            "tables": tables_,
            "strengths": BOT_STRENGTHS,
            "now": NOW,
            "csrf_token": CSRF,
        },
    )


def page(ctx: dict) -> str:
    """The whole view's #live (Django's template, the tables and the time included)."""
    from django.template.loader import render_to_string

    return render_to_string("classrooms/session_live.html#live", ctx, request())


def jinja(kind: str, ctx: dict) -> str:
    if kind == "page":
        return page(ctx)
    if kind == "table":
        return live.render_table(ctx, request())
    if kind == "clock":
        return live.render_clock(ctx)
    return live.render_changed(ctx, request())


@pytest.fixture
def made(make_game, classroom):
    return tables(make_game, classroom)


def renders(made, render):
    out = {}
    for language in LANGUAGES:
        with translation.override(language):
            for name, kind, ctx in contexts(made):
                out[f"{language}/{name}"] = str(render(kind, ctx))
    return out


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def test_the_live_tables_render_as_django_rendered_them(made):
    got = renders(made, jinja)
    assert "Zoé &lt;b&gt;&quot;Lou&quot; &amp; &#x27;Ana&#x27;" in got["en/odd/in"]
    assert "csrfmiddlewaretoken" in got["fr/turn/in"]
    golden = json.loads(GOLDEN.read_text())
    assert {k: digest(v) for k, v in got.items()} == golden
