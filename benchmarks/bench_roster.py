"""The roster import of a school of 300 children in 12 classes: preview and commit (issue 37).

    .venv/bin/python benchmarks/bench_roster.py                  # embedded SQLite, 5 rounds
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kavet_bench \\
        .venv/bin/python benchmarks/bench_roster.py               # PostgreSQL, that database
    .venv/bin/python benchmarks/bench_roster.py --quick          # 2 rounds, to check it runs

Each round reads a Windows-1252 CSV of 300 children (first name, class, level, parent's email)
and plans it (the preview: classrooms.roster.roster_read + roster_plan), then writes it
(the commit: roster_apply, one transaction: users, students, picture codes, level history),
then previews the same file again (every row unchanged) and erases the 300 for the next round.
Beside each figure, the yardstick measured just before it in the same run: the median of 200
primary-key lookups of one row on the same connection, so a figure reads as "so many lookups"
whatever the machine's load. The target of issue 37: preview and commit each under 2 s.

The database is its own (SQLite: a file in the temporary directory; PostgreSQL: the database of
DATABASE_URL, created if missing), migrated at the start; only its "bench-roster" school is
written.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local import answers, ensure_database  # noqa: E402
from benchmarks.quick import parse_args  # noqa: E402

YEAR = "2026-2027"
CLASSES = ["CP A", "CP B", "CE1 A", "CE1 B", "CE2 A", "CE2 B", "CM1 A", "CM1 B", "CM2 A", "CM2 B",
           "ULIS", "CE1/CE2"]  # fmt: skip
FIRST = ["Maël", "Zoé", "Noël", "Léa", "Éloïse", "Gwenaëlle", "Brieuc", "Anaïs", "Loïc", "Yann",
         "Nolwenn", "Tudual", "Soizic", "Ewen", "Maëlys", "Jérôme", "Françoise", "Aziliz", "Œnone",
         "Goulven", "Enora", "Corentin", "Klervi", "Riwal", "Solenn"]  # fmt: skip


def configure() -> str:
    database = os.environ.get("DATABASE_URL", "")
    if database.startswith("postgres"):
        if not answers(database, 5432):
            print(f"bench_roster: no PostgreSQL at {database}")
            sys.exit(1)
        ensure_database(database)
        label = "PostgreSQL"
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ["SQLITE_PATH"] = str(Path(tempfile.gettempdir()) / "kavet_bench_roster.sqlite3")
        label = "SQLite"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kavet_site.settings")
    os.environ["LOG_LEVEL"] = "ERROR"
    return label


def roster_file(children: int) -> bytes:
    lines = ["Prénom;Classe;Niveau;E-mail des parents"]
    for i in range(children):
        name = f"{FIRST[i % len(FIRST)]} {chr(65 + i // len(FIRST) % 26)}{i // 650 or ''}"
        level = f"{(10, 20)[i % 2]}/{1 + i % 3}"
        email = f"famille.{i}@example.org" if i % 3 else ""
        lines.append(f"{name};{CLASSES[i % len(CLASSES)]};{level};{email}")
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


def yardstick_ms(pk: int, n: int = 200) -> float:
    """The median of n primary-key lookups of one row on the same connection, in ms."""
    from classrooms.models import School

    times = []
    for _ in range(n):
        t = time.perf_counter()
        School.objects.filter(pk=pk).values_list("pk", flat=True).first()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--children", type=int, default=300)
    args = parse_args(parser, {"rounds": 2})
    label = configure()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from classrooms import roster
    from classrooms.models import Classroom, School, Student, User
    from classrooms.services import class_code_new

    school, _ = School.objects.get_or_create(slug="bench-roster", defaults={"name": "Bench"})
    Student.objects.filter(classroom__school=school).delete()
    User.objects.filter(school=school, role=User.Role.STUDENT).delete()
    for name in CLASSES:
        Classroom.objects.get_or_create(
            school=school, school_year=YEAR, name=name, defaults={"code": class_code_new()}
        )
    data = roster_file(args.children)
    rows: dict[str, list[float]] = {"preview": [], "commit": [], "preview again": []}
    yards: list[float] = []
    for _round in range(args.rounds):
        yards.append(yardstick_ms(school.pk))
        t = time.perf_counter()
        read = roster.roster_read(data=data)
        plan = roster.roster_plan(school=school, school_year=YEAR, rows=read)
        rows["preview"].append(time.perf_counter() - t)
        assert plan.count("new") == args.children and not plan.errors, plan.errors
        t = time.perf_counter()
        roster.roster_apply(school=school, school_year=YEAR, rows=read, digest=plan.digest())
        rows["commit"].append(time.perf_counter() - t)
        t = time.perf_counter()
        again = roster.roster_plan(
            school=school, school_year=YEAR, rows=roster.roster_read(data=data)
        )
        rows["preview again"].append(time.perf_counter() - t)
        assert again.count("unchanged") == args.children
        Student.objects.filter(classroom__school=school).delete()
        User.objects.filter(school=school, role=User.Role.STUDENT).delete()
    yard = statistics.median(yards)
    print(
        f"bench_roster ({label}): {args.children} children in {len(CLASSES)} classes, "
        f"{args.rounds} rounds; yardstick (one primary-key lookup) {yard:.3f} ms"
    )
    for what, times in rows.items():
        best, median = min(times), statistics.median(times)
        verdict = "under 2 s" if median < 2 else "OVER 2 s"
        print(
            f"  {what:14} median {median * 1000:7.0f} ms (best {best * 1000:6.0f} ms) "
            f"= {median * 1000 / yard:8.0f} yardsticks  {verdict}"
        )


if __name__ == "__main__":
    main()
