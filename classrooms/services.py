"""Writes for schools, classes and students: the only code that creates or changes these rows."""
from __future__ import annotations

import random
import secrets
from itertools import permutations

from django.db import transaction

from .models import Classroom, LevelChange, School, Student, User
from .pictures import CODE_LENGTH, PICTURE_COUNT, encode

CLASS_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud by children


def class_code_new(*, length: int = 6) -> str:
    while True:
        code = "".join(secrets.choice(CLASS_CODE_ALPHABET) for _ in range(length))
        if not Classroom.objects.filter(code=code).exists():
            return code


def picture_code_new(*, classroom: Classroom, rng: random.Random | None = None) -> str:
    """Three distinct pictures, not used by anyone else in the class (16·15·14 = 3,360 codes)."""
    rng = rng or random.SystemRandom()
    taken = set(Student.objects.filter(classroom=classroom).values_list("picture_code", flat=True))
    for _ in range(200):
        code = encode(rng.sample(range(PICTURE_COUNT), CODE_LENGTH))
        if code not in taken:
            return code
    free = [encode(p) for p in permutations(range(PICTURE_COUNT), CODE_LENGTH) if encode(p) not in taken]
    if not free:
        raise ValueError("no picture code left in this class")
    return rng.choice(free)


@transaction.atomic
def student_create(
    *, classroom: Classroom, name: str, number_range: int = 10, tier: int = 1,
    changed_by: User | None = None, picture_code: str | None = None,
) -> Student:
    """A student and their sign-in user (no password, no e-mail), with a first level entry."""
    username = f"s-{classroom.code.lower()}-{secrets.token_hex(6)}"
    user = User(username=username, role=User.Role.STUDENT, school=classroom.school, first_name=name)
    user.set_unusable_password()
    user.save()
    student = Student.objects.create(
        user=user, classroom=classroom, name=name, number_range=number_range, tier=tier,
        picture_code=picture_code or picture_code_new(classroom=classroom),
    )
    LevelChange.objects.create(student=student, number_range=number_range, tier=tier, changed_by=changed_by)
    return student


def school_get_or_create(*, slug: str, name: str, time_zone: str = "Europe/Paris") -> School:
    school, _ = School.objects.get_or_create(slug=slug, defaults={"name": name, "time_zone": time_zone})
    return school
