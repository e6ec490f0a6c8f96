"""What several browser tests do alike: sign a user's browser context in, move a game on through
the services, open a tablet's table and wait for it to catch up."""

from __future__ import annotations

import time

from django.conf import settings as django_settings
from django.db import OperationalError
from django.test import Client
from playwright.sync_api import expect

from games import services
from games.models import Game


def sign_in_context(context, live_server, user) -> None:
    """The context carries the session of a real login as `user` (without typing a password or
    tapping the pictures)."""
    client = Client()
    client.force_login(user)
    context.add_cookies(
        [
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )


# Whether the page's push stream is up (static/js/live.js tells it): add it to the context with
# add_init_script, then wait_stream_up(page).
STREAM_UP = """
window.__kvUp = false;
document.addEventListener("kavet:stream-up", function () { window.__kvUp = true; });
document.addEventListener("kavet:stream-down", function () { window.__kvUp = false; });
"""


def wait_stream_up(page, timeout: float = 10) -> None:
    """Until the page's push stream is up. Polled from here: wait_for_function evaluates a string
    in the page, which the site's Content-Security-Policy (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout
    while not page.evaluate("window.__kvUp === true"):
        assert time.monotonic() < deadline, "the push stream never came up"
        page.wait_for_timeout(100)


def fresh(game: Game) -> Game:
    """Re-read the game; on SQLite the live server may hold a table lock for a moment."""
    for _ in range(50):
        try:
            game.refresh_from_db()
            return game
        except OperationalError:
            time.sleep(0.1)
    game.refresh_from_db()
    return game


def move(game: Game, seat: int, **kw) -> None:
    """One move from a seat, through games.services, on the game's current version."""
    outcome = services.move_submit(
        game_id=game.pk, seat=seat, move=kw, seen_version=fresh(game).version
    )
    assert outcome.applied, outcome.message


def open_table(page, live_server, game: Game) -> None:
    """The tablet opens the game's table and shows its current version."""
    page.goto(f"{live_server.url}/play/{game.pk}/")
    expect(page.locator("#board")).to_have_attribute("data-version", str(fresh(game).version))
