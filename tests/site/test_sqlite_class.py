"""A whole class on the embedded default: 30 tablets at 8 tables with computer players, at once.

The live server runs on the test database of the settings: on SQLite (no DATABASE_URL) that is a
file in WAL mode with IMMEDIATE transactions, as `make demo` runs. Each simulated tablet signs
in like a child (class code, name, three pictures) over HTTP, then polls its table as htmx does
and plays the buttons its board offers, for about ten seconds. Nothing may answer 500 (the old
"database table is locked"), and every move a tablet was told was applied is in the database.
The same test runs on PostgreSQL when DATABASE_URL is set.
"""

from __future__ import annotations

import http.cookiejar
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter

import pytest
from django.db import connection

from classgames import services as class_game_services
from classrooms.grouping import PlannedTable
from games.models import Game, Move
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

TABLETS = 30
TABLES = 8
SECONDS = 10.0
POLL_EVERY = 0.7  # faster than htmx's 2 s, to make up for a class of 30 rather than 600

VERSION = re.compile(r'id="board"[^>]*data-version="(\d+)"')
APPLIED = re.compile(r'id="board"[^>]*data-applied="1"')
POLL_URL = re.compile(r'class="poller" hx-get="([^"]+)"')
BUTTON = re.compile(r'<button type="submit" name="type" value="(\w+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class Tablet:
    """One child's tablet: its own cookies, speaking HTTP to the server like a browser."""

    def __init__(self, base: str, rnd: random.Random) -> None:
        self.base = base
        self.rnd = rnd
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.statuses: Counter[int] = Counter()
        self.errors: list[str] = []
        self.accepted = 0
        self.board = ""

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def request(
        self, path: str, data: dict | None = None, headers: dict | None = None
    ) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.base + path, data=body, headers=dict(headers or {}))
        if data is not None:
            req.add_header("X-CSRFToken", self.csrf())
            req.add_header("Referer", self.base + path)
        try:
            with self.opener.open(req, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read().decode(errors="replace")
        except OSError as exc:
            self.errors.append(f"{path}: {exc!r}")
            return 0, ""
        self.statuses[status] += 1
        if status >= 500:
            self.errors.append(f"{path}: {status} {text[:300]}")
        return status, text

    def sign_in(self, class_code: str, student_id: int, pictures: list[int]) -> None:
        self.request("/tablet/")
        self.request("/tablet/", {"code": class_code})
        self.request(f"/tablet/student/{student_id}/")
        so_far: list[int] = []
        for pick in pictures:
            self.request(
                f"/tablet/student/{student_id}/",
                {"so_far": "-".join(map(str, so_far)), "pick": str(pick)},
            )
            so_far.append(pick)
        status, page = self.request("/me/")
        assert status == 200 and any(c.name == "sessionid" for c in self.jar), page[:300]

    def play(self, game_id: int, until: float) -> None:
        status, self.board = self.request(f"/play/{game_id}/")
        if status != 200:
            self.errors.append(f"table {game_id}: {status}")
            return
        token = CSRF.search(self.board)
        htmx = {"HX-Request": "true"}
        while time.monotonic() < until and not self.errors:
            moves = [m for m in BUTTON.findall(self.board) if m != "announce"]
            version = VERSION.search(self.board)
            if moves and version and self.rnd.random() < 0.6:
                # A child taps one of the buttons on the board, with the version it shows.
                status, html = self.request(
                    f"/play/{game_id}/move/",
                    {
                        "seen_version": version.group(1),
                        "type": self.rnd.choice(moves),
                        "csrfmiddlewaretoken": token.group(1) if token else "",
                    },
                    htmx,
                )
                if status == 200:
                    self.accepted += bool(APPLIED.search(html))
                    self.board = html
                    continue
            time.sleep(self.rnd.uniform(0.5, 1.5) * POLL_EVERY)
            poll = POLL_URL.search(self.board)
            if poll is None:
                return  # the game is over: the end screen no longer polls
            status, html = self.request(
                poll.group(1).replace("&amp;", "&"), headers={**htmx, "X-Kavet-Poll": "1"}
            )
            if status == 200:
                self.board = html


def test_thirty_tablets_at_eight_tables_play_at_once(live_server):
    if connection.vendor == "sqlite":
        # The database the live server uses is a file in WAL mode, not the shared-cache memory
        # database that locks whole tables.
        assert not connection.is_in_memory_db()
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    kids = [
        factories.student(
            classroom=classroom,
            name=f"Kid {i:02}",
            number_range=10,
            tier=1,
            picture_code=f"{i % 16}-{(i // 16) % 16}-{(i + 5) % 16}",
        )
        for i in range(TABLETS)
    ]
    groups = [kids[i::TABLES] for i in range(TABLES)]  # 4 4 4 4 4 4 3 3
    tables = [
        PlannedTable(number=n, students=g, bots=1, bot_strength="medium")
        for n, g in enumerate(groups, start=1)
    ]
    session = class_game_services.class_session_start(
        classroom=classroom,
        tables=tables,
        by=teacher,
        settings={"challenge_window": 3, "challenge_time": 10, "turn_time": 8},
    )
    games = list(Game.objects.filter(class_table__session=session).order_by("label"))
    assert len(games) == TABLES and all(g.status == Game.Status.RUNNING for g in games)
    game_of = {seat.student_id: g.pk for g in games for seat in g.seats.exclude(student=None)}

    tablets = [Tablet(live_server.url, random.Random(i)) for i in range(TABLETS)]
    for tablet, kid in zip(tablets, kids, strict=True):
        tablet.sign_in(classroom.code, kid.pk, [int(p) for p in kid.picture_code.split("-")])

    until = time.monotonic() + SECONDS
    threads = [
        threading.Thread(target=t.play, args=(game_of[k.pk], until), daemon=True)
        for t, k in zip(tablets, kids, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SECONDS + 120)
    assert not any(thread.is_alive() for thread in threads), "a tablet hung"

    errors = [e for t in tablets for e in t.errors]
    statuses = sum((t.statuses for t in tablets), Counter())
    assert not errors, errors[:5]
    assert set(statuses) <= {200, 204, 302}, statuses
    accepted = sum(t.accepted for t in tablets)
    by_tablets = Move.objects.filter(
        game__class_table__session=session, by_user__isnull=False
    ).count()
    assert by_tablets == accepted  # no lost move, and none applied twice
    assert accepted >= TABLES  # every table got going, not a run where nothing happened
    computer = Move.objects.filter(
        game__class_table__session=session, by_user=None, seat__isnull=False
    ).count()
    assert computer > 0  # the computer players moved too, driven by the tablets' polls
    assert statuses[204] > 0 and statuses[200] > 0
