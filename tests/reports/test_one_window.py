"""One window, one filter (issue 36): every figure of every page, export and email and the list
of moves it opens come from the same query: the count shown is the length of its list, its
percentage is the list's right share, and no move of the tutorial is ever counted or listed.
"This week" is live: a game ended a minute ago is in the parent's figures of the week."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classrooms.models import ParentLink
from games import tutorial
from games.models import Play
from reports import moves, selectors, services, views
from reports.mail import selectors as mail_selectors
from reports.progress import figure_parse, week_bounds, week_start_of
from reports.selectors import school_tz
from tests import factories
from tests.reports.plays import PARIS, clock_at, finish, one_move, paris, played_game, say

WEEKS = (date(2026, 11, 9), date(2026, 11, 16))
LINK = re.compile(r'class="figure-link" href="([^"]+)">([^<]+)<')


def _count(response) -> int:
    match = re.search(r'data-count="(\d+)"', response.content.decode())
    assert match, "the list says how many moves it holds"
    return int(match[1])


def _tutorial_game(student, at: datetime) -> None:
    """The lesson's first steps, played as a child plays them (games.tutorial): its moves are
    real plays of a practice game, which no report counts."""
    with clock_at(at):
        game = tutorial.tutorial_create(student=student)
    say(game, 0, "1 + 2 = 3", at=at + timedelta(seconds=5))  # the lesson's first step (R4.4)
    finish(game, at=at + timedelta(seconds=40))


def _right_twin(key: str) -> str:
    """The figure counting the right ones among a percentage's tries."""
    if key.endswith(".n"):
        return key[: -len(".n")] + ".right"
    return key.replace(":announcements", ":right")


def _check_links(client, html: str, tutorial_ids: set[int]) -> int:
    """Every figure link of a page: its list holds as many moves as the number shown (a
    percentage: the list's right share), newest first, none of the tutorial."""
    checked = 0
    for href, text in set(LINK.findall(html)):
        href, text = unescape(href), unescape(text).strip()
        page = client.get(href)
        assert page.status_code == 200, href
        count = _count(page)
        body = page.content.decode()
        listed = [int(p) for p in re.findall(r'data-play="(\d+)"', body)]
        assert not set(listed) & tutorial_ids, href
        times = list(
            Play.objects.filter(pk__in=listed).order_by("-at", "-pk").values_list("pk", flat=True)
        )
        assert listed == times, f"{href}: newest first"
        if text.endswith("%"):
            url = urlsplit(href)
            query = parse_qs(url.query)
            twin = client.get(url.path, {"week": query["week"][0], "f": _right_twin(query["f"][0])})
            right = _count(twin)
            assert count and int(text.split()[-2]) == round(100 * right / count), href
        else:
            assert count == int(text.split()[-1].replace("\u202f", "").replace(",", "")), href
        checked += 1
    return checked


def _list_of(user, student, week: date, key: str) -> int:
    start, end = week_bounds(week, school_tz(student.classroom.school))
    rows = moves.figure_moves(
        plays=moves.plays_readable(user).filter(student=student),
        figure=figure_parse(key),
        start=start,
        end=end,
    )
    return len(rows)


history = st.lists(
    st.tuples(
        st.integers(0, len(WEEKS) - 1),  # which week
        st.integers(0, 4),  # which day of it
        st.sampled_from(["class", "tutorial", "practice"]),
        st.integers(1, 10**5),  # the deal
        st.integers(8, 40),  # how many moves
    ),
    min_size=1,
    max_size=4,
)


@pytest.mark.django_db
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(games=history)
def test_every_figure_counts_the_moves_its_list_holds(client, school, teacher, games):
    classroom = factories.classroom(school=school, teachers=[teacher])
    anna, brieuc = (factories.student(classroom=classroom) for _ in range(2))
    parent = factories.parent(email="p@example.org")
    ParentLink.objects.create(parent=parent, student=anna)
    for i, (week, day, kind, seed, n) in enumerate(games):
        at = datetime.combine(WEEKS[week] + timedelta(days=day), datetime.min.time(), PARIS)
        at += timedelta(hours=9, minutes=10 * i)
        if kind == "tutorial":
            _tutorial_game(anna, at)
        elif kind == "practice":
            played_game(
                classroom=classroom, students=[anna], bots=["easy"], at=at, seed=seed, moves=n
            )
        else:
            played_game(classroom=classroom, students=[anna, brieuc], at=at, seed=seed, moves=n)
    tutorial_ids = set(
        Play.objects.filter(student=anna, game__draw_order=tutorial.DRAW_ORDER).values_list(
            "pk", flat=True
        )
    )
    assert (any(k == "tutorial" for _w, _d, k, _s, _n in games)) == bool(tutorial_ids)
    checked = 0
    for week in WEEKS:
        if services.report_read(student=anna, week=week) is None:
            services.report_build(student=anna, week_start=week)
            services.report_build(student=brieuc, week_start=week)
        # The teacher's pages: the student's report, the class report.
        client.force_login(teacher)
        for url in (
            reverse("reports:student", args=[anna.pk]),
            reverse("reports:class", args=[classroom.pk]),
        ):
            page = client.get(url, {"week": week.isoformat()})
            assert page.status_code == 200
            checked += _check_links(client, page.content.decode(), tutorial_ids)
        # The CSV export: each skill's tries, the week's operations, as the lists hold them.
        report = services.reports_fresh(students=[anna, brieuc], week_start=week)
        _header, rows = views.class_csv_table(
            selectors.class_report(classroom=classroom, week_start=week)
        )
        for student, row in zip(sorted([anna, brieuc], key=lambda s: s.name), rows, strict=True):
            data = report[student.pk].data if student.pk in report else {}
            assert row[-2] == _list_of(teacher, student, week, "week:announcements")
            for skill, band in data.get("bands", {}).items():
                assert band["n"] == _list_of(teacher, student, week, f"recent:skill.{skill}.n")
                assert band["n"] in row
        # The parent's page.
        client.force_login(parent)
        page = client.get(reverse("reports:child", args=[anna.pk]), {"week": week.isoformat()})
        if page.status_code == 200:
            checked += _check_links(client, page.content.decode(), tutorial_ids)
    # The email of the last week: its figures are the lists' lengths.
    for child in mail_selectors.email_children(parent=parent, week_start=WEEKS[-1]):
        week = child.week
        assert week.get("announcements", 0) == _list_of(
            parent, anna, WEEKS[-1], "week:announcements"
        )
        assert week.get("right", 0) == _list_of(parent, anna, WEEKS[-1], "week:right")
        for line in child.lines:
            assert line.n == _list_of(parent, anna, WEEKS[-1], f"recent:skill.{line.key}.n")
            assert line.right == _list_of(parent, anna, WEEKS[-1], f"recent:skill.{line.key}.right")
    if any(k != "tutorial" for _w, _d, k, _s, _n in games):
        assert checked >= 5, "the pages' figures were opened"
    # Tutorial moves never counted: a history of the tutorial alone has no figure at all.
    if all(k == "tutorial" for _w, _d, k, _s, _n in games):
        assert checked == 0 or not anna.weekly_reports.exclude(data__week__announcements=0).exists()


@pytest.mark.django_db
def test_a_game_ended_now_changes_this_weeks_figures_on_the_parents_page(
    client, classroom, students
):
    anna = students[0]
    parent = factories.parent(email="p@example.org")
    ParentLink.objects.create(parent=parent, student=anna)
    now = timezone.now()
    monday = week_start_of(now, PARIS)
    start, _end = week_bounds(monday, PARIS)
    earlier = max(start + timedelta(minutes=5), now - timedelta(minutes=30))
    one_move(classroom=classroom, student=anna, at=earlier, move="2 + 3 = 5")  # R4.4
    client.force_login(parent)
    page = client.get(reverse("reports:child", args=[anna.pk])).content.decode()
    assert "This week so far" in page
    before = anna.weekly_reports.get(week_start=monday).data["week"]
    assert before["announcements"] == 1
    # A game that ended a minute ago: one more right operation.
    one_move(
        classroom=classroom,
        student=anna,
        at=max(earlier + timedelta(seconds=60), now - timedelta(minutes=2)),
        move="2 + 3 = 5",
    )
    page = client.get(reverse("reports:child", args=[anna.pk])).content.decode()
    after = anna.weekly_reports.get(week_start=monday).data["week"]
    assert after["announcements"] == 2 and after["games"] == before["games"] + 1
    assert re.search(r'f=week%3Aannouncements">2<', page), "the page shows the new figure"
    # ... and the figure's list holds both moves.
    link = reverse("reports:child_moves", args=[anna.pk])
    listed = client.get(link, {"week": monday.isoformat(), "f": "week:announcements"})
    assert _count(listed) == 2


@pytest.mark.django_db
def test_the_tutorial_is_in_no_report(client, classroom, students):
    anna = students[0]
    _tutorial_game(anna, paris(2026, 11, 17, 9, 0))  # R4.4: a right announcement in the lesson
    assert Play.objects.filter(student=anna).exists()
    report = services.report_build(student=anna, week_start=WEEKS[1])
    assert report.data["week"]["announcements"] == 0 and report.data["week"]["games"] == 0
    assert report.data["bands"] == {}
