"""The school, seeded once through the ORM (the only database use of the generator).

Schools of `classes_per_school` classes, each a class of `tables_per_class` tables of four (a
running class game, one teacher); a share of the tables seats a computer player (easy) in
place of a child. Each school is one client address (its tablets behind one NAT address, as
KAVET_STREAMS_PER_ADDRESS assumes): the generator sends it as X-Forwarded-For to a server
started with KAVET_TRUSTED_PROXIES=1.

Children's pictures are three distinct pictures, unique in the class; the tablets sign in with
them through the real pages. Teachers are given a signed-in session directly at each run
(`sessions`: the staff sign-in is not what a school day repeats).
"""

from __future__ import annotations

import random
import time

CSRF = "loadcsrftokenloadcsrftokenload01"  # a teacher session's CSRF cookie (32 characters)


def pictures_for(k: int) -> tuple[int, int, int]:
    """Three distinct pictures for the k-th child of a class (k < 16 * 15): unique in it."""
    a = k % 16
    b = (a + 1 + (k // 16) % 15) % 16
    c = next(x for x in ((a + b + 3 + i) % 16 for i in range(16)) if x not in (a, b))
    return a, b, c


def _settings() -> dict:
    # No clocks on the children's turns and windows: the generator's Poisson rate is the
    # children's pace; the computer players keep their own clock (a worker plays them).
    return {"turn_time": 0, "challenge_window": 600}


def seed(
    *,
    tablets: int,
    tables_per_class: int = 6,
    classes_per_school: int = 10,
    bot_share: float = 0.1,
    rng_seed: int = 38,
    log=print,
) -> dict:
    """Empties the benchmark database's games and people, then seeds tables until `tablets`
    children have a seat. Returns what the generator needs (JSON)."""
    import django

    django.setup()
    from django.db import transaction

    from classgames.models import ClassSession
    from classgames.services import class_table_start
    from classrooms.models import Classroom, School, Student, User
    from classrooms.pictures import encode
    from classrooms.services import class_code_new
    from games.models import Game

    rng = random.Random(rng_seed)
    t0 = time.monotonic()
    Game.objects.all().delete()
    ClassSession.objects.all().delete()
    Student.objects.all().delete()
    User.objects.filter(username__startswith="load-").delete()
    Classroom.objects.all().delete()

    out: dict = {"schools": [], "classes": [], "tables": []}
    children = 0
    k_user = 0
    n_school = 0
    while children < tablets:
        school, _ = School.objects.get_or_create(
            slug=f"load-{n_school}", defaults={"name": f"Load school {n_school}"}
        )
        address = f"10.38.{n_school // 250}.{n_school % 250 + 1}"
        out["schools"].append({"school": school.pk, "address": address})
        for n_class in range(classes_per_school):
            if children >= tablets:
                break
            with transaction.atomic():
                teacher = User.objects.create(
                    username=f"load-teacher-{n_school}-{n_class}", role="teacher", school=school
                )
                classroom = Classroom.objects.create(
                    school=school,
                    name=f"Class {n_school}.{n_class}",
                    school_year="2026-2027",
                    code=class_code_new(),
                )
                classroom.teachers.add(teacher)
                session = ClassSession.objects.create(
                    classroom=classroom, created_by=teacher, status=ClassSession.Status.RUNNING
                )
                plan = []  # per table: the children's count and the bot seats
                for _t in range(tables_per_class):
                    if children >= tablets:
                        break
                    bots = [3] if rng.random() < bot_share else []
                    kids = min(4 - len(bots), tablets - children)
                    bots = list(range(kids, 4)) if kids < 4 - len(bots) else bots
                    plan.append((kids, bots))
                    children += kids
                n_kids = sum(k for k, _b in plan)
                users = User.objects.bulk_create(
                    [
                        User(username=f"load-kid-{k_user + i}", role="student", school=school)
                        for i in range(n_kids)
                    ]
                )
                k_user += n_kids
                students = Student.objects.bulk_create(
                    [
                        Student(
                            user=u,
                            classroom=classroom,
                            name=f"Child {n_class}-{i:02d}",
                            picture_code=encode(pictures_for(i)),
                        )
                        for i, u in enumerate(users)
                    ]
                )
            class_entry = {
                "classroom": classroom.pk,
                "code": classroom.code,
                "session": session.pk,
                "school": school.pk,
                "address": address,
            }
            out["classes"].append(class_entry)
            at = 0
            for number, (kids, bots) in enumerate(plan, start=1):
                mine = students[at : at + kids]
                at += kids
                players: list[dict] = []
                seats = []
                for position in range(4):
                    if position in bots:
                        players.append({"bot": "easy"})
                    else:
                        s = mine[len(seats)]
                        seats.append(
                            {
                                "position": position,
                                "student": s.pk,
                                "name": s.name,
                                "pictures": list(pictures_for(students.index(s))),
                            }
                        )
                        players.append({"student": s})
                game = class_table_start(
                    session=session,
                    number=number,
                    settings=_settings(),
                    players=players,
                    seed=rng.randrange(1 << 30),
                )
                out["tables"].append(
                    {
                        "game": game.pk,
                        "session": session.pk,
                        "classroom": classroom.pk,
                        "code": classroom.code,
                        "address": address,
                        "rules": game.config["rules"],
                        "seats": seats,
                        "bots": bots,
                    }
                )
        n_school += 1
        log(f"  seeded school {n_school}: {children} children, {len(out['tables'])} tables")
    out["seeded_in"] = time.monotonic() - t0
    return out


def sessions(seeded: dict, tables: list[dict]) -> None:
    """The sessions of this run (they live in the run's Redis): each teacher's, and for the
    tablets of `tables`, which do not sign in through the pages in this run (--signin below
    the count of tablets), a signed-in child's session made as the sign-in makes it (the same
    keys as games.signin.student_signin), stored in the seat as its cookies."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    from classrooms.models import Classroom, Student

    store = import_string(settings.SESSION_ENGINE + ".SessionStore")
    rooms = Classroom.objects.filter(pk__in=[c["classroom"] for c in seeded["classes"]])
    teachers = {room.pk: room.teachers.first() for room in rooms.prefetch_related("teachers")}
    for entry in seeded["classes"]:
        user = teachers[entry["classroom"]]
        s = store()
        s["_auth_user_id"] = str(user.pk)
        s["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        s["_auth_user_hash"] = user.get_session_auth_hash()
        s.save()
        entry["teacher"] = {"sessionid": s.session_key, "csrftoken": CSRF}
    ids = [s["student"] for t in tables for s in t["seats"]]
    students = {
        s.pk: s for s in Student.objects.filter(pk__in=ids).select_related("user", "classroom")
    }
    for t in tables:
        for seat in t["seats"]:
            st = students[seat["student"]]
            s = store()
            s["_auth_user_id"] = str(st.user.pk)
            s["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
            s["_auth_user_hash"] = st.user.get_session_auth_hash()
            s["kv_student"] = {
                "idle": st.classroom.student_idle_minutes,
                "classroom": t["classroom"],
            }
            s["kv_seen"] = time.time()
            s.save()
            seat["cookies"] = {"sessionid": s.session_key, "csrftoken": CSRF}
