"""Two schools, A and B, with a row of every kind each, for the URL × role walk
(tests/site/test_url_roles.py).

Every name that a page could show is distinctive ("Zéphyrine-B", "Classe-Avel-A1"...), so a
page that answers another party's id with that party's data is caught by a plain substring
search. Games, plays and reports are made through the services as tablets and jobs make them
(tests/reports/plays.py), never written by hand; only the level proposals, report jobs and
practice goals, which the services make from longer histories, are written as rows.

The parties (each a dict kind → object, plus "strings", the words only that party's pages show):

- "A1": class A1 of teacher A1 — the objects of every role of school A (student 1, parent 1);
- "A1-other": in class A1, another child (student 2), their games, their family (parent 2);
- "A2": class A2 of another teacher of school A;
- "B": school B;
- "A1-seen-from-outside": A1's rows with the links' secrets forged, for anonymous.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.utils import timezone

from classgames import services as class_game_services
from classrooms import invitations
from classrooms.grouping import PlannedTable
from classrooms.models import ParentLink
from classrooms.services import TEACHER_LINK
from games import services as game_services
from games.models import Game, Play, PracticeGoal
from reports import services as report_services
from reports.mail import services as mail_services
from reports.models import LevelRecommendation, ReportJob
from tests import factories
from tests.reports.plays import one_move, paris

WEEK = date(2026, 11, 16)
TABLE_SETTINGS = {"turn_time": 120, "challenge_window": 10}


def _finished_game(classroom, student, minute: int) -> Game:
    """A game of one student against an easy computer player: one wrong operation (a mistake
    for the board), ended by the teacher."""
    return one_move(
        classroom=classroom, student=student, move="2 + 5 = 3", at=paris(2026, 11, 17, 9, minute)
    )


def _mistake(game: Game) -> Play:
    return (
        Play.objects.filter(game=game, ok=False).first() or Play.objects.filter(game=game).first()
    )


def _class_session(classroom, admin, students):
    """A running class game: one table per student, each with an easy computer player."""
    tables = [PlannedTable(number=i, students=[s], bots=1) for i, s in enumerate(students, 1)]
    return class_game_services.class_session_start(
        classroom=classroom, tables=tables, settings=dict(TABLE_SETTINGS), by=admin
    )


def _recommendation(student) -> LevelRecommendation:
    return LevelRecommendation.objects.create(
        student=student,
        from_number_range=student.number_range,
        from_tier=student.tier,
        number_range=20,
        tier=student.tier,
        evidence={"direction": "up", "n": 60, "right": 55, "accuracy": 0.92, "median_ms": 8100},
    )


def _job(school, classroom, student, by) -> ReportJob:
    return ReportJob.objects.create(
        school=school,
        classroom=classroom,
        student=student,
        requested_by=by,
        week_start=WEEK,
        total=1,
        status=ReportJob.Status.DONE,
        finished_at=timezone.now(),
    )


def _goal(classroom, student, by) -> PracticeGoal:
    return PracticeGoal.objects.create(
        classroom=classroom,
        student=student,
        kind=PracticeGoal.Kind.GAMES,
        target=3,
        due_on=timezone.localdate() + timedelta(days=7),
        created_by=by,
    )


def _forged(token: str) -> str:
    """The token with its signature altered: what a parent of another family could guess."""
    return token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")


def _school(
    letter: str,
    *,
    school_name: str,
    admin_name: str,
    teacher_name: str,
    class_name: str,
    kids: list[str],
    parent_name: str,
):
    """One school: an admin, a teacher, a class with students, a finished game with plays, a
    running class game, weekly reports, a report job, a parent linked to the first child, a
    parent invitation, a teacher invitation, a level proposal and a practice goal."""
    school = factories.school(slug=f"school-{letter.lower()}", name=school_name)
    admin = factories.school_admin(school=school, username=f"admin-{letter}")
    admin.first_name = admin_name
    admin.save()
    teacher = factories.teacher(
        school=school, username=f"teacher-{letter}1", first_name=teacher_name
    )
    room = factories.classroom(school=school, teachers=[teacher], name=class_name)
    students = [factories.student(classroom=room, name=n) for n in kids]
    parent = factories.parent(
        school=school,
        username=f"parent-{letter}1",
        first_name=parent_name,
        email=f"parent-{letter.lower()}1@example.org",
    )
    ParentLink.objects.create(parent=parent, student=students[0])
    invite, token = invitations.create(
        TEACHER_LINK,
        target=school,
        by=admin,
        email=f"new-{letter}@example.org",
        first_name=f"Invitee-{letter}",
        last_name="Nevez",
    )
    return school, admin, teacher, room, students, parent, invite, token


def _class_objects(room, student, admin, teacher, *, minute: int) -> dict:
    """What hangs from one class, around one of its students."""
    finished = _finished_game(room, student, minute)
    report_services.report_build(student=student, week_start=WEEK)
    parent_invite, _code = invitations.create(
        report_services.PARENT_CODE, target=student, by=teacher
    )
    return {
        "classroom": room,
        "student": student,
        "child": student,
        "finished_game": finished,
        "play": _mistake(finished),
        "job": _job(room.school, room, student, teacher),
        "recommendation": _recommendation(student),
        "parent_invite": parent_invite,
        "goal": _goal(room, student, teacher),
    }


def build() -> dict[str, dict]:
    """The rows of both schools; the parties and the users, by name."""
    # --- school A ------------------------------------------------------------------------------
    school_a, admin_a, teacher_a1, room_a1, (s1, s2, s3), parent_a1, tinv_a, ttok_a = _school(
        "A",
        school_name="Ecole-Avel-A",
        admin_name="Rozenn-Admin-A",
        teacher_name="Aubepine-Prof-A1",
        class_name="Classe-Avel-A1",
        kids=["Anaelle-A", "Brivael-A", "Corentin-A"],
        parent_name="Parent-Avel-A",
    )
    parent_a2 = factories.parent(
        school=school_a,
        username="parent-A2",
        first_name="Famille-Deux-A",
        email="parent-a2@example.org",
    )
    ParentLink.objects.create(parent=parent_a2, student=s2)
    teacher_a2 = factories.teacher(
        school=school_a, username="teacher-A2", first_name="Maelys-Prof-A2"
    )
    room_a2 = factories.classroom(school=school_a, teachers=[teacher_a2], name="Classe-Kerlann-A2")
    t1 = factories.student(classroom=room_a2, name="Gwenola-A2")
    t2 = factories.student(classroom=room_a2, name="Herve-A2")
    parent_a3 = factories.parent(
        school=school_a,
        username="parent-A3",
        first_name="Famille-Kerlann-A2",
        email="parent-a3@example.org",
    )
    ParentLink.objects.create(parent=parent_a3, student=t1)

    # --- school B ------------------------------------------------------------------------------
    school_b, admin_b, teacher_b, room_b, (z1, z2), parent_b, tinv_b, ttok_b = _school(
        "B",
        school_name="Ecole-Bourgbriac-B",
        admin_name="Soazig-Admin-B",
        teacher_name="Tifenn-Prof-B",
        class_name="Classe-Bleuet-B",
        kids=["Zéphyrine-B", "Yannig-B"],
        parent_name="Parent-Bleiz-B",
    )

    a1 = _class_objects(room_a1, s1, admin_a, teacher_a1, minute=1)
    a1_other = _class_objects(room_a1, s2, admin_a, teacher_a1, minute=2)
    a2 = _class_objects(room_a2, t1, admin_a, teacher_a2, minute=3)
    b = _class_objects(room_b, z1, admin_b, teacher_b, minute=4)
    # A practice game each: student 1's ended, student 3's still running (another child's).
    practice_s1, _deal = game_services.practice_create(student=s1, bots=1, strength="easy")
    game_services.game_start(game=practice_s1)
    game_services.game_end(game=practice_s1)
    for party, kid in ((a1_other, s3), (a2, t2), (b, z2)):
        game, _deal = game_services.practice_create(student=kid, bots=1, strength="easy")
        party["practice_game"] = game_services.game_start(game=game)
    a1["practice_game"] = practice_s1
    # Running class games: in A1 a table for student 1 and one for student 2.
    session_a1 = _class_session(room_a1, teacher_a1, [s1, s2])
    session_a2 = _class_session(room_a2, teacher_a2, [t1])
    session_b = _class_session(room_b, teacher_b, [z1])
    for party, session, kid in (
        (a1, session_a1, s1),
        (a1_other, session_a1, s2),
        (a2, session_a2, t1),
        (b, session_b, z1),
    ):
        party["session"] = session
        party["running_game"] = Game.objects.get(class_table__session=session, seats__student=kid)
    a1_other["job"] = _job(school_a, None, s2, teacher_a1)
    for party, parent, kid in (
        (a1, parent_a1, s1),
        (a1_other, parent_a2, s2),
        (a2, parent_a3, t1),
        (b, parent_b, z1),
    ):
        party["parent_link"] = ParentLink.objects.get(parent=parent, student=kid)
        party["unsubscribe_token"] = mail_services.unsubscribe_token(parent)
    # The staff accounts a school admin acts on (classrooms/schooladmin: deactivate, reset...).
    for party, account in (
        (a1, teacher_a1),
        (a1_other, teacher_a1),
        (a2, teacher_a2),
        (b, teacher_b),
    ):
        party["staff_account"] = account
    # A member of staff whose second factor an admin may reset (classrooms.twofactor).
    a1["staff"], a1_other["staff"], a2["staff"], b["staff"] = (
        teacher_a1,
        teacher_a1,
        teacher_a2,
        teacher_b,
    )
    a1["teacher_invite"], a1["teacher_invite_token"] = tinv_a, ttok_a
    b["teacher_invite"], b["teacher_invite_token"] = tinv_b, ttok_b

    a1["strings"] = [
        "Anaelle-A",
        "Classe-Avel-A1",
        room_a1.code,
        "Aubepine-Prof-A1",
        "Parent-Avel-A",
        "Ecole-Avel-A",
        "Invitee-A",
        "Rozenn-Admin-A",
    ]
    a1_other["strings"] = ["Brivael-A", "Corentin-A", "Famille-Deux-A"]
    a2["strings"] = [
        "Classe-Kerlann-A2",
        room_a2.code,
        "Gwenola-A2",
        "Herve-A2",
        "Maelys-Prof-A2",
        "Famille-Kerlann-A2",
    ]
    b["strings"] = [
        "Zéphyrine-B",
        "Yannig-B",
        "Classe-Bleuet-B",
        room_b.code,
        "Tifenn-Prof-B",
        "Parent-Bleiz-B",
        "Ecole-Bourgbriac-B",
        "Invitee-B",
        "Soazig-Admin-B",
    ]
    parties = {"A1": a1, "A1-other": a1_other, "A2": a2, "B": b}
    for name, party in parties.items():
        party["name"] = name
        if "unsubscribe_token" in party and name != "A1":
            # Another family's link: the parent of A holds only their own; a guess is forged.
            party["unsubscribe_token"] = _forged(party["unsubscribe_token"])
        if "teacher_invite" in party and name != "A1":
            # Another school's link: what a reader of the database has is the hash, not the secret.
            party["teacher_invite_token"] = party["teacher_invite"].secret_hash
    # Class A1 seen by someone outside school A (anonymous): the same rows, but the links'
    # secrets are not theirs either.
    outside = dict(
        a1,
        name="A1-seen-from-outside",
        unsubscribe_token=_forged(a1["unsubscribe_token"]),
        teacher_invite_token=a1["teacher_invite"].secret_hash,
    )
    parties[outside["name"]] = outside
    users = {
        "student": s1,
        "parent": parent_a1,
        "teacher": teacher_a1,
        "school_admin": admin_a,
        "classroom_a1": room_a1,
    }
    return {"parties": parties, "users": users}
