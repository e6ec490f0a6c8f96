"""The live class view once a game is over, operators as the tablets print them, the setup's
signed-in students, and the class report's build that ends on the report itself."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from classgames import selectors
from classgames import services as class_game_services
from classgames.models import ClassSession, ClassTable
from classrooms.grouping import PlannedTable
from games import services
from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_live_view_prints_division_as_the_tablets_do(make_game, classroom):
    kids = [factories.student(classroom=classroom, tier=2) for _i in range(2)]  # + − × ÷ (R2.2)
    game = make_game([{"student": k} for k in kids], draw=(4, 6, 12))  # 2 3 6
    services.move_submit(
        game_id=game.pk, seat=0, seen_version=0, move={"type": "announce", "text": "6 / 3 = 2"}
    )
    game = Game.objects.prefetch_related("seats").get(pk=game.pk)
    table = selectors.live_table(game, timezone.now())
    assert table["pending"] == "6 ÷ 3 = 2"


def test_after_the_end_no_controls_no_skip_and_the_flash_is_cleared_on_swap(
    client, teacher, classroom, anna, bo, make_game
):  # R4.7
    session = ClassSession.objects.create(
        classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING, settings={}
    )
    game = make_game([{"student": anna}, {"student": bo}])  # the table opens with 2 3 5
    ClassTable.objects.create(game=game, session=session)
    services.move_submit(
        game_id=game.pk, seat=0, seen_version=0, move={"type": "announce", "text": "2 + 3 = 5"}
    )
    services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "challenge"})
    client.force_login(teacher)
    url = reverse("classrooms:session_live", args=[session.pk])
    live = client.get(url).content.decode()
    assert "skips a turn" in live and "Pause all tables" in live
    assert "data-clear-messages" in live  # kavet.js empties the flash once the view refreshes
    class_game_services.class_session_end(session=session, by=teacher)
    over = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "skips a turn" not in over  # a skip owed at the end is never served
    assert "Pause all tables" not in over and "End all tables" not in over
    assert "hx-get" not in over  # the view stops asking


def test_setup_shows_who_is_signed_in(client, teacher, classroom, anna, bo):
    anna.user.last_login = timezone.now()
    anna.user.save(update_fields=["last_login"])
    client.force_login(teacher)
    page = client.get(reverse("classrooms:class_game_setup", args=[classroom.pk]))
    assert page.context["signed_in"] == {anna.pk}
    assert page.content.decode().count('class="signed-in"') == 1


def test_a_class_build_from_the_class_report_reloads_it(client, teacher, classroom, anna):
    client.force_login(teacher)
    report_url = reverse("reports:class", args=[classroom.pk])
    page = client.get(report_url).content.decode()
    assert 'aria-current="page"' in page and "Sign-in cards" in page  # the class tabs stay
    response = client.post(
        reverse("reports:build"),
        {"classroom": classroom.pk},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver" + report_url},
    )
    if response.status_code == 204:  # built in-process: the page reloads with the reports
        assert response["HX-Refresh"] == "true"
        page = client.get(report_url).content.decode()
        assert "Done: all" in page or "Done: 1 report built." in page
        assert "No reports for this class yet" not in page
    else:  # queued: the bar polls the job until it is done
        assert "build-progress" in response.content.decode()


def test_other_teachers_get_404_on_the_live_view(client, school, classroom, teacher, anna, bo):
    session = class_game_services.class_session_start(
        classroom=classroom,
        tables=[PlannedTable(number=1, students=[anna, bo])],
        by=teacher,
        settings={"challenge_window": 5, "challenge_time": 30, "turn_time": 60},
    )
    client.force_login(factories.teacher(school=school))
    assert client.get(reverse("classrooms:session_live", args=[session.pk])).status_code == 404


def test_a_moved_table_is_asked_for_alone_and_shown_as_in_the_whole_view(
    client, teacher, school, classroom, anna, bo, make_game, django_assert_max_num_queries
):  # R4.3
    # Issue 38: on a push naming a table, the live view asks for that table's section alone
    # (static/js/kavet.js), not every table of the class game.
    session = ClassSession.objects.create(
        classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING, settings={}
    )
    games = [make_game([{"student": anna}, {"student": bo}]) for _i in range(3)]
    for game in games:
        ClassTable.objects.create(game=game, session=session)
    services.move_submit(game_id=games[1].pk, seat=0, seen_version=0, move={"type": "nothing"})
    client.force_login(teacher)
    whole = client.get(
        reverse("classrooms:session_live", args=[session.pk]), headers={"HX-Request": "true"}
    ).content.decode()
    url = reverse("classrooms:session_live_table", args=[session.pk, games[1].pk])
    assert f'data-table-url="{url[: -len(f"{games[1].pk}/")]}0/"' in whole
    with django_assert_max_num_queries(8):
        one = client.get(url, headers={"HX-Request": "true"})
    html = one.content.decode()
    assert one.status_code == 200 and html.strip().startswith("<section")
    assert html.count("<section") == 1 and f'data-table="{games[1].pk}"' in html
    start = whole.index(f'<section class="live-table" aria-labelledby="live-{games[1].pk}"')
    assert whole[start : whole.index("</section>", start) + len("</section>")] in html.replace(
        _csrf(html), _csrf(whole)
    )
    # Not a table of this class game, or another teacher's class game: 404, as the view.
    other = make_game([{"student": anna}, {"student": bo}])
    assert (
        client.get(
            reverse("classrooms:session_live_table", args=[session.pk, other.pk])
        ).status_code
        == 404
    )
    stranger = factories.teacher(school=school)
    client.force_login(stranger)
    assert client.get(url).status_code == 404


def _csrf(html: str) -> str:
    marker = 'name="csrfmiddlewaretoken" value="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]
