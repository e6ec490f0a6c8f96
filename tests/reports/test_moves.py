"""From a number to its moves (issue 28): every figure of a report opens the moves it counts,
and the teacher's live skill grid opens the moves behind each cell; nobody opens another
family's, class's or school's moves."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.urls import reverse

from classrooms.models import ParentLink
from games import engine
from games.models import Play
from reports import moves, services
from reports.progress import (
    MISTAKE_LABELS,
    SKILLS,
    figure_parse,
    week_bounds,
)
from reports.selectors import school_tz
from tests import factories
from tests.reports.plays import card, paris, played_game, say

WEEK = date(2026, 11, 16)


def _count(response) -> int:
    match = re.search(r'data-count="(\d+)"', response.content.decode())
    assert match, "the list says how many moves it holds"
    return int(match[1])


def _lines(response) -> int:
    return response.content.decode().count('class="move-line ')


def _report_figures(data: dict) -> dict[str, int]:
    """Every number of a stored report that counts moves, by the figure that opens it."""
    figures = {}
    for scope in ("week", "year"):
        period = data[scope]
        for name in (
            "announcements",
            "right",
            "wrong",
            "right_challenges",
            "false_challenges",
            "nothing_true",
            "overlooked",
        ):
            figures[f"{scope}:{name}"] = period[name]
        for skill, tally in period["skills"].items():
            figures[f"{scope}:skill.{skill}.n"] = tally["n"]
            figures[f"{scope}:skill.{skill}.right"] = tally["right"]
        if scope == "week":
            for code, n in period["mistakes_by_code"].items():
                figures[f"week:mistake_code.{code}"] = n
            for skill, n in period["mistakes_by_skill"].items():
                figures[f"week:mistake_skill.{skill}"] = n
    for skill, band in data["bands"].items():
        figures[f"recent:skill.{skill}.n"] = band["n"]
        figures[f"recent:skill.{skill}.right"] = band["right"]
    return figures


def test_a_charts_weekly_figures_open_that_weeks_moves(client, teacher, season):
    anna, _brieuc = season
    data = anna.weekly_reports.get(week_start=WEEK).data
    client.force_login(teacher)
    checked = 0
    for skill, points in data["series"].items():
        for week, n, right in points:
            for which, shown in (("n", n), ("right", right)):
                page = client.get(
                    reverse("reports:child_moves", args=[anna.pk]),
                    {"week": week, "f": f"week:skill.{skill}.{which}"},
                )
                assert _count(page) == shown, (skill, week, which)
                checked += 1
    assert checked >= 8  # two weeks, several skills
    page = client.get(reverse("reports:child", args=[anna.pk]), {"week": WEEK}).content.decode()
    assert "week=2026-11-09&amp;f=week%3Askill." in page  # the earlier week's bar opens its moves


@pytest.fixture
def season(classroom, students):
    """Two weeks of real games between Anna and Brieuc played by the engine's easy players
    (who slip and overlook, R8.2), so every kind of figure is there; reports built."""
    anna, brieuc = students[0], students[1]
    for day, seed in ((10, 3), (11, 4), (17, 5), (18, 6), (19, 7)):
        played_game(
            classroom=classroom,
            students=[anna, brieuc],
            at=paris(2026, 11, day, 9, 0),
            seed=seed,
            moves=60,
        )
    for monday in (date(2026, 11, 9), WEEK):
        services.report_build(student=anna, week_start=monday)
        services.report_build(student=brieuc, week_start=monday)
    return anna, brieuc


def test_every_figure_opens_exactly_the_moves_it_counts(client, teacher, season):
    anna, _brieuc = season
    data = anna.weekly_reports.get(week_start=WEEK).data
    figures = _report_figures(data)
    # The games gave figures of every kind: right and wrong operations, misses, challenges.
    assert figures["week:wrong"] and figures["week:right"] and figures["year:overlooked"]
    assert any(k.startswith("week:mistake_code.") for k in figures)
    start, end = week_bounds(WEEK, school_tz(anna.classroom.school))
    client.force_login(teacher)
    for text, shown in figures.items():
        figure = figure_parse(text)
        assert figure is not None, text
        rows = moves.figure_moves(
            plays=Play.objects.filter(student=anna), figure=figure, start=start, end=end
        )
        assert len(rows) == shown, text
        page = client.get(
            reverse("reports:student_moves", args=[anna.pk]), {"week": WEEK, "f": text}
        )
        assert page.status_code == 200
        assert _count(page) == shown, text
        assert _lines(page) == min(shown, 100), text


def test_the_pages_numbers_are_links_to_their_moves(client, teacher, season):
    anna, _brieuc = season
    client.force_login(teacher)
    student_page = client.get(reverse("reports:student", args=[anna.pk]), {"week": WEEK})
    links = re.findall(
        r'class="figure-link" href="([^"]+)">([^<]+)<', student_page.content.decode()
    )
    assert len(links) >= 8
    class_page = client.get(reverse("reports:class", args=[anna.classroom_id]), {"week": WEEK})
    class_links = re.findall(r'class="figure-link" href="([^"]+)">', class_page.content.decode())
    assert any("/class/" in href and "mistake_code" in href for href in class_links)
    for href, text in links:
        page = client.get(href.replace("&amp;", "&"))
        assert page.status_code == 200, href
        if text.isdigit():
            assert _count(page) == int(text), href


def test_a_class_mistake_count_opens_the_class_moves(client, teacher, season):
    anna, brieuc = season
    client.force_login(teacher)
    page = client.get(reverse("reports:class", args=[anna.classroom_id]), {"week": WEEK})
    code, n = (
        next(iter(page.context["mistakes_by_code"]))[2],
        page.context["mistakes_by_code"][0][1],
    )
    moves_page = client.get(
        reverse("reports:class_moves", args=[anna.classroom_id]), {"week": WEEK, "f": code}
    )
    assert _count(moves_page) == n
    html = moves_page.content.decode()
    assert "Anna" in html or "Brieuc" in html
    assert MISTAKE_LABELS.get(code.split(".")[1], "") and "Mistakes" in html


def test_each_move_opens_the_replay_at_that_move(client, teacher, season):
    anna, _brieuc = season
    client.force_login(teacher)
    page = client.get(
        reverse("reports:student_moves", args=[anna.pk]), {"week": WEEK, "f": "week:wrong"}
    )
    line = page.context["lines"][0]
    assert line.outcome == engine.WRONG and line.why  # the ruling's reason, in words
    replay = client.get(line.replay_url.split("#")[0])
    html = replay.content.decode()
    assert replay.status_code == 200
    number = line.move_number
    assert re.search(rf'id="move-{number}" aria-current="step"', html)
    assert line.replay_url.endswith(f"#move-{number}")


def test_a_parent_opens_only_their_own_childs_moves(client, season):
    anna, brieuc = season
    parent = factories.parent(school=anna.classroom.school)
    ParentLink.objects.create(parent=parent, student=anna)
    client.force_login(parent)
    own = client.get(
        reverse("reports:child_moves", args=[anna.pk]), {"week": WEEK, "f": "week:wrong"}
    )
    assert own.status_code == 200 and _count(own) > 0
    html = own.content.decode()
    assert "Brieuc" not in html  # the other child is "Player 2" in the replay, and unnamed here
    replay_url = own.context["lines"][0].replay_url
    assert "/family/child/" in replay_url
    replay = client.get(replay_url.split("#")[0])
    assert replay.status_code == 200 and "Brieuc" not in replay.content.decode()
    # Another family's child, the teacher's pages, the class's: refused, never a 500.
    assert (
        client.get(
            reverse("reports:child_moves", args=[brieuc.pk]), {"f": "week:wrong", "week": WEEK}
        ).status_code
        == 404
    )
    assert (
        client.get(
            reverse("reports:student_moves", args=[anna.pk]), {"f": "week:wrong", "week": WEEK}
        ).status_code
        == 403
    )
    assert (
        client.get(
            reverse("reports:class_moves", args=[anna.classroom_id]),
            {"f": "week:wrong", "week": WEEK},
        ).status_code
        == 403
    )


def test_other_classes_and_schools_are_refused(client, school, other_school, season):
    anna, _brieuc = season
    colleague = factories.teacher(school=school, username="colleague")
    factories.classroom(school=school, teachers=[colleague], name="Other class")
    stranger = factories.teacher(school=other_school, username="stranger")
    query = {"f": "week:wrong", "week": WEEK}
    for user in (colleague, stranger):
        client.force_login(user)
        for name, arg in (
            ("reports:student_moves", anna.pk),
            ("reports:child_moves", anna.pk),
            ("reports:class_moves", anna.classroom_id),
        ):
            assert client.get(reverse(name, args=[arg]), query).status_code == 404, (user, name)


@pytest.mark.parametrize(
    "figure",
    [
        "",
        "week",
        "week:nope",
        "recent:right",
        "year:skill.mult.x",
        "week:skill.zz.n",
        "week:mistake_code.<b>",
    ],
)
def test_a_figure_that_does_not_exist_is_a_404(client, teacher, season, figure):
    client.force_login(teacher)
    response = client.get(
        reverse("reports:student_moves", args=[season[0].pk]), {"week": WEEK, "f": figure}
    )
    assert response.status_code == 404


def test_a_week_that_is_not_a_monday_is_a_404(client, teacher, season):
    client.force_login(teacher)
    for week in ("2026-11-17", "not a date"):
        response = client.get(
            reverse("reports:student_moves", args=[season[0].pk]), {"week": week, "f": "week:right"}
        )
        assert response.status_code == 404


# --- the live skill grid -------------------------------------------------------------------


@pytest.fixture
def live_table(classroom, students, teacher):
    """A running class game: Anna and Brieuc at table 1, the cards 2, 3, 5 on the table."""
    draw = [card(2), card(3), card(5), card(4), card(6), card(7), card(8), card(9)]
    return factories.class_table(
        classroom=classroom, students=students[:2], teacher=teacher, draw_order=draw
    )


def test_the_live_grid_fills_in_as_moves_are_made(
    client, teacher, students, live_table, monkeypatch
):
    # The fingerprint also turns over every 20 s (the clocks shown): a slow run that crossed
    # such a turn between two polls read it as a change. One turn for the whole test here.
    from classgames import selectors as class_game_selectors

    monkeypatch.setattr(class_game_selectors, "LIVE_REFRESH_BUCKET_SECONDS", 10**9)
    anna, brieuc = students[0], students[1]
    session = live_table.class_table.session
    client.force_login(teacher)
    url = reverse("reports:live_skills", args=[session.pk])
    first = client.get(url)
    assert first.status_code == 200
    grid = first.context["grid"]
    assert [r.name for r in grid.rows] == ["Anna", "Brieuc"]
    assert all(c.n == 0 for r in grid.rows for c in r.cells)
    fingerprint = first.context["fingerprint"]
    # Unchanged: the poll gets a 204 and no grid.
    assert client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true").status_code == 204

    say(live_table, 0, "2 + 5 = 3", at=paris(2026, 11, 17, 9, 0, 5))  # wrong (R3.5)
    after = client.get(url, {"v": fingerprint}, HTTP_HX_REQUEST="true")
    assert after.status_code == 200
    html = after.content.decode()
    assert 'id="skill-grid"' in html and "<html" not in html  # the fragment only
    row = client.get(url).context["grid"].rows[0]
    cell = next(c for c in row.cells if c.skill == "addsub_10")
    assert (cell.right, cell.wrong, cell.missed, cell.last) == (0, 1, 0, engine.WRONG)
    # The mistake of the moment, in the engine's words (games.wording.verdict_message).
    assert row.mistake is not None and "7" in row.mistake.why
    assert "makes 7, not 3" in html

    cell_page = client.get(
        reverse("reports:live_cell", args=[session.pk, anna.pk, "addsub_10"]),
        HTTP_HX_REQUEST="true",
    )
    assert cell_page.status_code == 200
    assert "<html" not in cell_page.content.decode()
    assert cell_page.content.decode().count('class="move-line ') == 1
    lines = client.get(
        reverse("reports:live_cell", args=[session.pk, anna.pk, "addsub_10"])
    ).context["lines"]
    assert len(lines) == 1 and lines[0].outcome == engine.WRONG
    assert lines[0].replay_url.endswith(f"?move={lines[0].move_number}#move-{lines[0].move_number}")
    replay = client.get(lines[0].replay_url.split("#")[0])
    assert replay.status_code == 200
    assert f'id="move-{lines[0].move_number}" aria-current="step"' in replay.content.decode()
    # Brieuc's cell has no move yet; a skill that does not exist is a 404.
    assert (
        client.get(reverse("reports:live_cell", args=[session.pk, brieuc.pk, "addsub_10"])).context[
            "lines"
        ]
        == []
    )
    assert (
        client.get(reverse("reports:live_cell", args=[session.pk, anna.pk, "nope"])).status_code
        == 404
    )


def test_the_live_grid_is_the_teachers_own(client, school, other_school, students, live_table):
    session = live_table.class_table.session
    anna = students[0]
    outsider = factories.student(classroom=students[0].classroom, name="Dewi")  # not at a table
    parent = factories.parent(school=school)
    ParentLink.objects.create(parent=parent, student=anna)
    colleague = factories.teacher(school=school, username="colleague")
    stranger = factories.teacher(school=other_school, username="stranger")
    urls = [
        reverse("reports:live_skills", args=[session.pk]),
        reverse("reports:live_cell", args=[session.pk, anna.pk, "addsub_10"]),
    ]
    for user, status in ((colleague, 404), (stranger, 404), (parent, 403)):
        client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == status, (user, url)
    client.force_login(session.classroom.teachers.first())
    cell = reverse("reports:live_cell", args=[session.pk, outsider.pk, "addsub_10"])
    assert client.get(cell).status_code == 404


def test_the_reports_skills_are_the_engines():
    assert set(SKILLS) == set(engine.SKILLS) | set(engine.GAME_SKILLS)
