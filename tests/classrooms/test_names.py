"""Names keep every language and emoji, and never a hidden direction or control character
(issue 25, item 6): one check (classrooms.names) behind every place a name is typed."""

from __future__ import annotations

import importlib
import unicodedata

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from classrooms import invitations, services
from classrooms.models import Classroom, School, Student, TeacherInvite, User
from classrooms.names import (
    name_check,
    name_for_display,
    name_normalise,
    name_unsafe_characters,
)
from demo.data import DEMO_CLASSES
from tests import factories

REAL_NAMES = [
    "Maël",
    "Zoé",
    "Björn",
    "Łukasz",
    "Søren",
    "Nguyễn Thị Minh Khai",
    "محمد",
    "فاطمة الزهراء",
    "علی\u200cرضا",  # Persian spells with the zero-width non-joiner inside a word
    "דוד",
    "李雷",
    "さくら",
    "민준",
    "Алёна",
    "Γιώργος",
    "अनुष्का",
    "สมชาย",
    "Ọláolúwa",
    "Seán Ó Súilleabháin",
    "Anne-Marie",
    "O'Brien",
    "N’Golo",
    "Jean‐Luc",  # U+2010 hyphen
    "Zoë 2",
    "👩🏽\u200d🚀",
    "👨\u200d👩\u200d👧\u200d👦",
    "🏳\ufe0f\u200d🌈",
    "🇫🇷 Lou",
    "🏴\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",  # Wales: a tag sequence
    "1\ufe0f\u20e3",
]

ATTACKS = {
    "Anna\u202e": "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u202dAnna": "\u202d",
    "An\u202ana": "\u202a",
    "An\u202bna": "\u202b",
    "An\u202cna": "\u202c",
    "\u2066Anna\u2069": "\u2066",
    "An\u2067na": "\u2067",
    "An\u2068na": "\u2068",
    "Anna\u200e": "\u200e",
    "محمد\u200f": "\u200f",
    "محمد\u061c": "\u061c",
    "An\u200bna": "\u200b",  # zero-width space: "Anna" twice in the class
    "An\u2060na": "\u2060",
    "An\ufeffna": "\ufeff",
    "An\u00adna": "\u00ad",
    "Anna\x00": "\x00",
    "Anna\x07": "\x07",
    "Anna\x1b[31m": "\x1b",
    "Anna\x7f": "\x7f",
    "Anna\ue000": "\ue000",  # private use
    "\u200dAnna": "\u200d",  # a joiner that joins nothing
    "Anna \u200d🚀": "\u200d",
    "Anna\U000e0041": "\U000e0041",  # a tag character outside a flag
    "Z" + "\u0301" * 12 + "oé": "\u0301",  # accents stacked over the lines around
}


@pytest.mark.parametrize("name", REAL_NAMES)
def test_names_of_every_language_and_emoji_are_kept(name):
    assert name_unsafe_characters(name) == []
    assert name_check(name) == unicodedata.normalize("NFC", name)
    assert name_for_display(name) == name


@pytest.mark.parametrize("name,culprit", ATTACKS.items())
def test_hidden_and_control_characters_are_refused_with_the_culprit_named(name, culprit):
    with pytest.raises(ValidationError) as refused:
        name_check(name)
    assert refused.value.code == "name_characters"
    message = refused.value.messages[0]
    assert f"U+{ord(culprit):04X}" in message
    assert "Type the name again" in message
    # The message shows the name without them: it cannot jumble the page it is shown on.
    assert name_unsafe_characters(message) == []
    assert name_unsafe_characters(name_for_display(name)) == []


@pytest.mark.parametrize("code", range(128))
def test_each_ascii_character_is_judged_as_the_whole_check_judges_it(code):
    # The printable-ASCII shortcut of name_unsafe_characters: a control character (U+007F,
    # U+001B...) still goes through the whole check and is named; a tab or line end is a blank.
    ch = chr(code)
    refused = unicodedata.category(ch) == "Cc" and ch not in "\t\n\r"
    assert name_unsafe_characters(f"An{ch}na") == ([ch] if refused else [])
    assert name_for_display(f"An{ch}na") == ("Anna" if refused else f"An{ch}na")


def test_the_refusal_names_the_character_in_the_readers_language():
    with translation.override("fr"):
        with pytest.raises(ValidationError, match="U\\+202E RIGHT-TO-LEFT OVERRIDE") as fr:
            name_check("Anna\u202e")
        assert "caractère caché" in fr.value.messages[0]
    with translation.override("de"):
        with pytest.raises(ValidationError) as de:
            name_check("Anna\u202e\u200b")
        assert "versteckte Zeichen" in de.value.messages[0] and "U+200B" in de.value.messages[0]


def test_names_are_normalised_so_look_alikes_are_one_name():
    assert name_normalise("Zoe\u0301") == "Zoé"  # e + combining accent, as some keyboards type
    assert name_normalise("  Anna \t\u00a0 B\u2003") == "Anna B"
    assert name_normalise("Anna\nB") == "Anna B"


@pytest.mark.django_db
def test_every_service_that_takes_a_name_refuses_a_hidden_character(
    school, teacher, classroom, students
):
    anna = students[0]
    bad = "Anna\u202e"
    checks = [
        lambda: services.student_create(classroom=classroom, name="Yann\u202e"),
        lambda: services.student_update(student=anna, name=bad),
        lambda: services.classroom_create(
            school=school, by=teacher, name="CE2\u202e", school_year="2026-2027"
        ),
        lambda: services.classroom_rename(classroom=classroom, by=teacher, name="CE2\u2066"),
        lambda: invitations.create(
            services.TEACHER_LINK,
            target=school,
            by=factories.school_admin(school=school),
            first_name=bad,
        ),
    ]
    for refused in checks:
        with pytest.raises(ValidationError) as exc:
            refused()
        assert "name_characters" in {e.code for e in exc.value.error_list}
    anna.refresh_from_db()
    assert anna.name == "Anna" and not Student.objects.filter(name__startswith="Yann").exists()
    assert not Classroom.objects.filter(name__startswith="CE2").exists()
    assert not TeacherInvite.objects.exists()


@pytest.mark.django_db
def test_the_paste_is_refused_whole_and_says_which_name(client, teacher, classroom, students):
    client.force_login(teacher)
    url = reverse("classrooms:students_add", args=[classroom.pk])
    paste = "Maël\nZoé\u202e\n👩🏽\u200d🚀\nمحمد\n\u200bLéa"
    response = client.post(url, {"names": paste, "number_range": "10", "tier": "1"})
    page = response.content.decode()
    assert response.status_code == 200 and "Nothing was added" in page
    assert "“Zoé” holds a hidden character" in page and "U+202E" in page
    assert "“Léa” holds a hidden character" in page and "U+200B ZERO WIDTH SPACE" in page
    assert "\u202e" not in page.replace(paste, "")  # only the textarea keeps what was typed
    assert not Student.objects.filter(classroom=classroom).exclude(pk__in=[s.pk for s in students])
    # Without them, every name of the paste is added as typed (a file's byte-order mark aside).
    fixed = "\ufeffMaël\nZoé\n👩🏽\u200d🚀\nمحمد\nLéa"
    response = client.post(url, {"names": fixed, "number_range": "10", "tier": "1"})
    assert response.status_code == 302
    assert {"Maël", "Zoé", "👩🏽\u200d🚀", "محمد", "Léa"} <= set(
        Student.objects.filter(classroom=classroom).values_list("name", flat=True)
    )


@pytest.mark.django_db
def test_the_teachers_forms_refuse_with_the_message_and_save_nothing(
    client, teacher, classroom, students
):
    anna = students[0]
    client.force_login(teacher)
    rename = client.post(
        reverse("classrooms:student_edit", args=[classroom.pk, anna.pk]),
        {"name": "Anna\u202eevil", "number_range": "10", "tier": "1"},
    )
    assert rename.status_code == 200 and "U+202E" in rename.content.decode()
    anna.refresh_from_db()
    assert anna.name == "Anna"
    created = client.post(
        reverse("classrooms:classroom_create"),
        {"name": "CM1\u2067", "school_year": "2026-2027", "student_idle_minutes": "10"},
    )
    assert created.status_code == 200 and "U+2067" in created.content.decode()
    assert not Classroom.objects.filter(name__startswith="CM1").exists()
    # An Arabic name, typed with its letters only, is saved as typed.
    client.post(
        reverse("classrooms:student_edit", args=[classroom.pk, anna.pk]),
        {"name": "  محمد  ", "number_range": "10", "tier": "1"},
    )
    anna.refresh_from_db()
    assert anna.name == "محمد"
    assert User.objects.get(pk=anna.user_id).first_name == "محمد"


@pytest.mark.django_db
def test_the_admin_refuses_them_too(client, school, classroom):
    # Django's admin is the site team's (superusers only): their forms check names too.
    admin_user = factories.user(
        role=User.Role.SCHOOL_ADMIN,
        school=school,
        username="head",
        is_staff=True,
        is_superuser=True,
    )
    client.force_login(admin_user)
    add = client.post(
        reverse("admin:classrooms_student_add"),
        {"classroom": classroom.pk, "name": "Mona\u202e", "number_range": 10, "tier": 1},
    )
    assert add.status_code == 200 and "U+202E" in add.content.decode()
    assert not Student.objects.filter(name__startswith="Mona").exists()
    teacher = factories.teacher(school=school, username="lou")
    change = client.post(
        reverse("admin:classrooms_user_change", args=[teacher.pk]),
        {
            "username": "lou",
            "first_name": "Lou\u2066",
            "last_name": "",
            "email": "",
            "role": User.Role.TEACHER,
            "is_active": "on",
            "language": "",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "10:00:00",
        },
    )
    assert change.status_code == 200 and "U+2066" in change.content.decode()
    teacher.refresh_from_db()
    assert teacher.first_name == ""


@pytest.mark.django_db
def test_a_parent_and_an_invited_teacher_cannot_sign_up_with_one(client, school):
    admin_user = factories.school_admin(school=school)
    invite, token = invitations.create(services.TEACHER_LINK, target=school, by=admin_user)
    response = client.post(
        reverse("classrooms:invite_accept", args=[token]),
        {
            "username": "newteacher",
            "first_name": "Mme\u202e",
            "last_name": "Le Goff",
            "password1": "a long and Unusual passphrase 42",
            "password2": "a long and Unusual passphrase 42",
        },
    )
    assert response.status_code == 200 and "U+202E" in response.content.decode()
    assert not User.objects.filter(username="newteacher").exists()
    # A parent joining with their child's code, from the join page.
    from reports import services as report_services

    room = factories.classroom(school=school, teachers=[factories.teacher(school=school)])
    child = factories.student(classroom=room, name="Mona")
    _invite, code = invitations.create(report_services.PARENT_CODE, target=child, by=admin_user)
    joined = client.post(
        reverse("reports:join"),
        {
            "code": code,
            "username": "dad",
            "first_name": "Papa\u2067",
            "password": "a long and Unusual passphrase 42",
            "password2": "a long and Unusual passphrase 42",
        },
    )
    assert joined.status_code == 400 and "U+2067" in joined.content.decode()
    assert not User.objects.filter(username="dad").exists()


def test_the_demo_names_pass_the_check():
    for demo_class in DEMO_CLASSES:
        assert name_check(demo_class.name) == demo_class.name
        for child in demo_class.students:
            assert name_check(child.name) == child.name


@pytest.mark.django_db
def test_the_migration_cleans_names_kept_before_the_check(school, teacher):
    migration = importlib.import_module("classrooms.migrations.0005_names_checked")
    room = factories.classroom(school=school, teachers=[teacher], name="CE1")
    anna = factories.student(classroom=room, name="Anna")
    twin = factories.student(classroom=room, name="Léa")
    # Rows written before the check existed (update() skips every validator).
    Student.objects.filter(pk=twin.pk).update(name="Anna\u202e")
    User.objects.filter(pk=twin.user_id).update(first_name="Anna\u202e")
    Student.objects.filter(pk=anna.pk).update(name="Zoe\u0301")  # not NFC, but harmless: kept
    Classroom.objects.filter(pk=room.pk).update(name="\u2066CE1\u2069")
    School.objects.filter(pk=school.pk).update(name="\u200b")
    User.objects.filter(pk=teacher.pk).update(last_name="Le\u00a0Goff\u200e")
    migration.names_clean(apps, None)
    twin.refresh_from_db()
    room.refresh_from_db()
    school.refresh_from_db()
    teacher.refresh_from_db()
    assert twin.name == "Anna"  # no other Anna in the class
    assert User.objects.get(pk=twin.user_id).first_name == "Anna"
    assert Student.objects.get(pk=anna.pk).name == "Zoe\u0301"
    assert room.name == "CE1" and school.name == f"#{school.pk}"
    assert teacher.last_name == "Le Goff"
    # A cleaned name that a classmate already has gets a number, not a clash.
    Student.objects.filter(pk=anna.pk).update(name="Anna\u200b")
    migration.names_clean(apps, None)
    assert sorted(Student.objects.filter(classroom=room).values_list("name", flat=True)) == [
        "Anna",
        "Anna 2",
    ]


def test_a_seat_copied_from_an_old_name_shows_it_without_the_override():
    from games.models import Seat

    assert Seat(name="Anna\u202e", position=0).display_name == "Anna"
    assert Seat(name="محمد", position=1).display_name == "محمد"


# Issue 39, gap 1: str.splitlines() also breaks on these, so "Ne" + U+0085 + "l" became two
# students "Ne" and "l". A pasted list is split on CR, LF and CRLF only; the rest reach the
# name check, which refuses the name and names the character.
LINE_BREAKERS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.django_db
@pytest.mark.parametrize("separator", LINE_BREAKERS)
def test_a_paste_splits_on_line_ends_only_and_refuses_other_separators(classroom, separator):
    with pytest.raises(ValidationError) as exc:
        services.students_bulk_add(classroom=classroom, text=f"Anna\r\nNe{separator}l\rDewi\n")
    message = " ".join(exc.value.messages)
    assert f"U+{ord(separator):04X}" in message and "“Nel”" in message
    assert not Student.objects.filter(classroom=classroom).exists()
    parsed = services.names_parse(f"Anna\r\nNe{separator}l\rDewi\n", classroom=classroom)
    assert parsed.names == ["Anna", f"Ne{separator}l", "Dewi"]


@pytest.mark.parametrize("separator", LINE_BREAKERS)
def test_the_name_check_refuses_a_line_breaker_instead_of_folding_it(separator):
    with pytest.raises(ValidationError, match=f"U\\+{ord(separator):04X}"):
        name_check(f"Ne{separator}l")
    # Spaces of every script, tabs and the line ends of a text field are still one space.
    assert name_check(" Anne\u00a0\tMarie\r\n\u3000Le\u2009Goff ") == "Anne Marie Le Goff"
