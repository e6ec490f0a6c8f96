"""Create the demo school: a school admin, a teacher, two classes, students, a parent. Idempotent."""
from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from classrooms.models import Classroom, ParentLink, School, Student, User
from classrooms.services import student_create

DEMO_PASSWORD = "kavet-demo"
# (class name, class code, [(student, number range, tier, picture code)])
DEMO_CLASSES = [
    ("CP-CE1", "DEMO1", [
        ("Anna", 10, 1, "0-4-8"), ("Bleuenn", 10, 1, "1-5-9"), ("Corentin", 20, 1, "2-6-10"),
        ("Dewi", 10, 1, "3-7-11"), ("Elouan", 20, 2, "12-13-14"), ("Fanny", 20, 1, "15-0-5"),
    ]),
    ("CM1", "DEMO2", [
        ("Gwen", 20, 2, "0-4-8"), ("Hugo", 20, 2, "1-5-9"), ("Iwan", 20, 3, "2-6-10"),
        ("Jade", 20, 2, "3-7-11"), ("Katell", 20, 3, "12-13-14"), ("Loïc", 10, 2, "15-0-5"),
    ]),
]
SCHOOL_YEAR = "2026-2027"


class Command(BaseCommand):
    help = "Create (or complete) the demo school. Running it again changes nothing."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        school, _ = School.objects.get_or_create(
            slug="demo", defaults={"name": "Skol Demo – École de démonstration", "time_zone": "Europe/Paris"}
        )
        admin = self._user("admin", User.Role.SCHOOL_ADMIN, school, "Morgane", "Le Gall", staff=True)
        teacher = self._user("teacher", User.Role.TEACHER, school, "Yann", "Kerjean")
        parent = self._user("parent", User.Role.PARENT, school, "Soazig", "Le Bihan")
        first_student = None
        for class_name, code, students in DEMO_CLASSES:
            classroom, _ = Classroom.objects.get_or_create(
                code=code, defaults={"school": school, "name": class_name, "school_year": SCHOOL_YEAR}
            )
            classroom.teachers.add(teacher)
            for name, number_range, tier, pictures in students:
                student = Student.objects.filter(classroom=classroom, name=name).first()
                if student is None:
                    student = student_create(
                        classroom=classroom, name=name, number_range=number_range, tier=tier,
                        changed_by=teacher, picture_code=pictures,
                    )
                first_student = first_student or student
        ParentLink.objects.get_or_create(parent=parent, student=first_student)
        self.stdout.write(self.style.SUCCESS("Demo school ready."))
        self.stdout.write(
            f"  teacher: teacher / {DEMO_PASSWORD}    school admin: admin / {DEMO_PASSWORD}\n"
            f"  parent:  parent / {DEMO_PASSWORD} (child: {first_student.name})\n"
            f"  tablets: class code DEMO1 or DEMO2; Anna's pictures are cat, sun, apple"
        )
        del admin

    def _user(self, username, role, school, first, last, staff=False) -> User:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User(username=username, role=role, school=school, first_name=first,
                        last_name=last, is_staff=staff, email=f"{username}@demo.invalid")
            user.set_password(DEMO_PASSWORD)
            user.save()
        return user
