"""Students: bulk add by pasting names, edit, move, erase, pictures, levels and their history."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from classrooms import services
from classrooms.models import LevelChange, Student, User
from classrooms.pictures import CODE_LENGTH, decode
from games.models import Game, Seat
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_paste_is_trimmed_and_empty_lines_are_skipped(classroom, teacher):
    added = services.students_bulk_add(
        classroom=classroom, text="  Anna \n\n\t\nBrieuc\r\n   Cécile   Le\tGall  \n\n", by=teacher
    )
    assert [s.name for s in added] == ["Anna", "Brieuc", "Cécile Le Gall"]
    rows = Student.objects.filter(classroom=classroom)
    assert rows.count() == 3
    codes = [s.picture_code for s in rows]
    assert len(set(codes)) == 3 and all(len(set(decode(c))) == CODE_LENGTH for c in codes)
    # each student has a sign-in user with no usable password, and a first level entry
    for s in rows:
        assert s.user.role == User.Role.STUDENT and not s.user.has_usable_password()
        assert LevelChange.objects.filter(student=s, changed_by=teacher).count() == 1


def test_duplicates_in_the_paste_refuse_the_whole_paste_and_name_them(classroom):
    with pytest.raises(ValidationError) as err:
        services.students_bulk_add(classroom=classroom, text="Anna\nBrieuc\nanna\nBrieuc\nDewi")
    message = " ".join(err.value.messages)
    assert "more than once" in message and "Anna" in message and "Brieuc" in message
    assert not Student.objects.filter(classroom=classroom).exists()  # nothing half-created


def test_names_already_in_the_class_refuse_the_paste(classroom, students):
    with pytest.raises(ValidationError) as err:
        services.students_bulk_add(classroom=classroom, text="Dewi\nANNA\nElouan")
    message = " ".join(err.value.messages)
    assert "already in the class" in message and "ANNA" in message
    assert Student.objects.filter(classroom=classroom).count() == 3


def test_an_empty_paste_and_a_too_long_name_are_refused(classroom):
    with pytest.raises(ValidationError, match="at least one name"):
        services.students_bulk_add(classroom=classroom, text="\n  \n\t\n")
    with pytest.raises(ValidationError, match="longer than 40"):
        services.students_bulk_add(classroom=classroom, text="Anna\n" + "x" * 41)
    assert not Student.objects.filter(classroom=classroom).exists()


def test_more_than_500_names_are_refused(classroom):
    text = "\n".join(f"Kid {i}" for i in range(501))
    with pytest.raises(ValidationError, match="501 names; at most 500"):
        services.students_bulk_add(classroom=classroom, text=text)
    assert not Student.objects.filter(classroom=classroom).exists()


def test_500_names_at_once_are_added_in_a_few_queries(classroom):
    text = "\n".join(f"Kid {i}" for i in range(500))
    with CaptureQueriesContext(connection) as queries:
        added = services.students_bulk_add(classroom=classroom, text=text)
    assert len(added) == 500
    assert Student.objects.filter(classroom=classroom).count() == 500
    assert LevelChange.objects.filter(student__classroom=classroom).count() == 500
    assert (
        len(set(Student.objects.filter(classroom=classroom).values_list("picture_code", flat=True)))
        == 500
    )
    # Bulk inserts, not one round trip per child (SQLite: at most 999 parameters a statement,
    # so 500 students of 8 columns take 5 inserts).
    assert len(queries) < 24


def test_a_bad_level_in_the_paste_form_is_refused(classroom):
    with pytest.raises(ValidationError):
        services.students_bulk_add(classroom=classroom, text="Anna", number_range=15)
    assert not Student.objects.filter(classroom=classroom).exists()


def test_the_paste_page_shows_the_duplicates_and_keeps_the_paste(
    client, teacher, classroom, students
):
    client.force_login(teacher)
    url = reverse("classrooms:students_add", args=[classroom.pk])
    response = client.post(url, {"names": "Zoé\nZoé\nAnna", "number_range": "10", "tier": "1"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Nothing was added" in page and "Zoé" in page and "already in the class" in page
    assert "Zoé\nZoé\nAnna" in page  # the textarea keeps what the teacher typed
    response = client.post(url, {"names": "Zoé\n\nYann", "number_range": "20", "tier": "3"})
    assert response.status_code == 302
    assert set(
        Student.objects.filter(classroom=classroom, number_range=20, tier=3).values_list(
            "name", flat=True
        )
    ) == {"Zoé", "Yann", "Cécile"}


def test_levels_one_by_one_and_in_bulk_keep_a_dated_history(client, teacher, classroom, students):
    anna, brieuc, cecile = students
    client.force_login(teacher)
    url = reverse("classrooms:levels", args=[classroom.pk])
    data = {"action": "each"}
    for s in students:
        data[f"range_{s.pk}"], data[f"tier_{s.pk}"] = s.number_range, s.tier
    data[f"tier_{anna.pk}"] = 2
    assert client.post(url, data).status_code == 302
    anna.refresh_from_db()
    assert anna.level == (10, 2)
    assert list(LevelChange.objects.filter(student=anna).values_list("number_range", "tier")) == [
        (10, 1),
        (10, 2),
    ]
    assert LevelChange.objects.filter(student=brieuc).count() == 1  # unchanged: no new entry
    response = client.post(
        url,
        {"action": "bulk", "students": [anna.pk, brieuc.pk], "bulk_range": "20", "bulk_tier": ""},
    )
    assert response.status_code == 302
    anna.refresh_from_db()
    brieuc.refresh_from_db()
    assert anna.level == (20, 2) and brieuc.level == (20, 2)
    assert LevelChange.objects.filter(student=anna).count() == 3
    assert LevelChange.objects.filter(student=brieuc).count() == 1  # already up to 20


def test_a_level_out_of_range_changes_nothing(client, teacher, classroom, students):
    anna = students[0]
    client.force_login(teacher)
    url = reverse("classrooms:levels", args=[classroom.pk])
    data = {"action": "each"}
    for s in students:
        data[f"range_{s.pk}"], data[f"tier_{s.pk}"] = 20, 3
    data[f"tier_{anna.pk}"] = 4
    response = client.post(url, data)
    assert response.status_code == 200 and "out of range" in response.content.decode()
    assert [s.level for s in Student.objects.filter(classroom=classroom).order_by("name")] == [
        s.level for s in students
    ]
    with pytest.raises(ValidationError):
        services.levels_set(students=[anna], tier=0)
    response = client.post(url, {"action": "bulk", "students": [anna.pk], "bulk_range": "30"})
    assert response.status_code == 200
    anna.refresh_from_db()
    assert anna.level == (10, 1)


def test_edit_rename_refuses_a_name_taken_in_the_class(client, teacher, classroom, students):
    anna, brieuc, _ = students
    client.force_login(teacher)
    url = reverse("classrooms:student_edit", args=[classroom.pk, anna.pk])
    response = client.post(url, {"name": " brieuc ", "number_range": "10", "tier": "1"})
    assert response.status_code == 200 and "already a" in response.content.decode()
    response = client.post(url, {"name": "Annaig", "number_range": "10", "tier": "1"})
    assert response.status_code == 302
    anna.refresh_from_db()
    assert anna.name == "Annaig" and anna.user.first_name == "Annaig"


def test_move_keeps_history_and_replaces_a_clashing_picture_code(teacher, classroom, school):
    other = factories.classroom(school=school, teachers=[teacher], name="Other")
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    factories.student(classroom=other, name="Bob", picture_code="0-1-2")
    moved = services.student_move(student=anna, to_classroom=other, by=teacher)
    assert moved.classroom == other and moved.picture_code != "0-1-2"
    assert LevelChange.objects.filter(student=anna).count() == 1
    factories.student(classroom=classroom, name="Anna")
    with pytest.raises(ValidationError, match="already"):
        services.student_move(
            student=Student.objects.get(classroom=classroom, name="Anna"), to_classroom=other
        )


def test_move_to_another_school_is_refused(classroom, students, other_school):
    far = factories.classroom(school=other_school, name="Far")
    with pytest.raises(ValidationError):
        services.student_move(student=students[0], to_classroom=far)


def test_the_move_page_offers_only_the_teachers_own_classes(
    client, teacher, classroom, students, school
):
    mine = factories.classroom(school=school, teachers=[teacher], name="Mine too")
    theirs = factories.classroom(school=school, name="Not mine")
    client.force_login(teacher)
    url = reverse("classrooms:student_move", args=[classroom.pk, students[0].pk])
    page = client.get(url).content.decode()
    assert "Mine too" in page and "Not mine" not in page
    assert client.post(url, {"to_classroom": theirs.pk}).status_code == 200  # invalid choice
    assert Student.objects.get(pk=students[0].pk).classroom == classroom
    assert client.post(url, {"to_classroom": mine.pk}).status_code == 302
    assert Student.objects.get(pk=students[0].pk).classroom == mine


def test_remove_asks_for_confirmation_then_erases_the_student_and_their_name(
    client, teacher, classroom, students
):
    anna, brieuc, _ = students
    game = Game.objects.create(
        school=classroom.school,
        classroom=classroom,
        seed=1,
        status=Game.Status.FINISHED,
        config={"players": ["Anna", "Brieuc"], "rules": {}},
        state={"config": {"players": ["Anna", "Brieuc"]}, "phase": "over"},
    )
    Seat.objects.create(game=game, position=0, student=anna, name="Anna", score=7)
    Seat.objects.create(game=game, position=1, student=brieuc, name="Brieuc", score=3)
    client.force_login(teacher)
    url = reverse("classrooms:student_remove", args=[classroom.pk, anna.pk])
    assert "Anna" in client.get(url).content.decode()
    response = client.post(url, {})
    assert response.status_code == 200 and Student.objects.filter(pk=anna.pk).exists()
    assert client.post(url, {"confirm": "yes"}).status_code == 302
    assert not Student.objects.filter(pk=anna.pk).exists()
    assert not User.objects.filter(pk=anna.user_id).exists()
    assert not LevelChange.objects.filter(student_id=anna.pk).exists()
    game.refresh_from_db()
    assert game.config["players"] == ["—", "Brieuc"]
    assert game.state["config"]["players"] == ["—", "Brieuc"]
    assert list(game.seats.values_list("name", "student", "score")) == [
        ("—", None, 7),
        ("Brieuc", brieuc.pk, 3),
    ]


def test_picture_code_reset_gives_a_new_code_unique_in_the_class(
    client, teacher, classroom, students
):
    anna = students[0]
    old = anna.picture_code
    client.force_login(teacher)
    response = client.post(reverse("classrooms:student_code_reset", args=[classroom.pk, anna.pk]))
    assert response.status_code == 302
    anna.refresh_from_db()
    assert anna.picture_code != old
    assert Student.objects.filter(classroom=classroom, picture_code=anna.picture_code).count() == 1
    assert (
        client.get(
            reverse("classrooms:student_code_reset", args=[classroom.pk, anna.pk])
        ).status_code
        == 405
    )


def test_code_lookup_finds_who_has_three_pictures(client, teacher, classroom):
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-4-8")
    client.force_login(teacher)
    url = reverse("classrooms:code_lookup", args=[classroom.pk])
    page = client.get(url, {"first": 0, "second": 4, "third": 8}).content.decode()
    assert "<strong>Anna</strong>" in page
    assert reverse("classrooms:student_edit", args=[classroom.pk, anna.pk]) in page
    page = client.get(url, {"first": 8, "second": 4, "third": 0}).content.decode()
    assert "No student of this class has these three pictures" in page


def test_the_sign_in_sheet_has_a_card_per_student_with_name_and_pictures(
    client, teacher, classroom, students
):
    client.force_login(teacher)
    page = client.get(reverse("classrooms:signin_cards", args=[classroom.pk])).content.decode()
    assert page.count('class="signin-card"') == 3
    for s in students:
        assert s.name in page
    assert "data-print" in page and classroom.code in page
