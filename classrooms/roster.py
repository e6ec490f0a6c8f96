"""The school's roster as a spreadsheet: read a CSV file or a paste, preview it, apply it; export.

The columns are the ones a school has: first name, class, level (optional), parent's email
(optional), under headings in English, French or German (the export writes the reader's). The
file may be UTF-8 (with or without a byte-order mark), Excel's "Unicode text" (UTF-16,
tab-separated) or Windows-1252 (Excel's "CSV" on a French or German Windows); the separator is
a tab, a semicolon or a comma, whichever the heading line uses.

`roster_read` turns the bytes or the paste into rows (or one error about the whole file: too
big, too many rows, not a table, no heading). `roster_plan` says what each row would do (new,
updated, unchanged) or what is wrong with it, in words; nothing is written. `roster_apply`
writes a plan in one transaction, after planning again and refusing if the result differs from
the one previewed (`plan_digest`): the admin confirms what they saw, or nothing. A student is
matched by class and first name (case aside); nobody missing from the file is removed. Rows are
read through tablib (the Dataset of django-import-export), which also writes the export.

A cell that starts like a spreadsheet formula (=, +, -, @) is refused, so a formula typed into
a file never reaches a name; the export writes every cell so that no spreadsheet runs it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
import unicodedata
from dataclasses import asdict, dataclass, field

import tablib
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from . import services
from .models import Classroom, NumberRange, School, Student, Tier, User
from .names import lines_split, name_error, name_for_display, name_normalise

MAX_BYTES = 1024 * 1024  # a roster of 2,000 children is about 100 KB
MAX_ROWS = 2000
FORMULA_STARTS = ("=", "+", "-", "@")

# The columns, and the headings each is recognised by (compared without case, accents, spaces
# or punctuation), in the languages of the site.
NAME, CLASS, LEVEL, EMAIL = "name", "class", "level", "email"
FIRST_NAME_HEADINGS = ("firstname", "prenom", "vorname", "forename", "givenname")
HEADINGS = {
    NAME: (
        "firstname",
        "name",
        "prenom",
        "vorname",
        "student",
        "eleve",
        "child",
        "schuler",
        "schulerin",
        "kind",
        "forename",
        "givenname",
    ),
    CLASS: ("class", "classe", "klasse", "classname", "group", "groupe", "gruppe", "form"),
    LEVEL: ("level", "niveau", "stufe", "niveaudejeu"),
    EMAIL: (
        "parentsemail",
        "parentemail",
        "email",
        "emailparent",
        "emaildesparents",
        "emaildesparent",
        "emailduparent",
        "courriel",
        "courrieldesparents",
        "mail",
        "elternemail",
        "emaildereltern",
        "elternmail",
        "emailaddress",
    ),
}


def export_headings() -> dict[str, str]:
    """The export's headings, in the reader's language (the import reads every language's)."""
    return {
        NAME: pgettext("roster column", "First name"),
        CLASS: pgettext("roster column", "Class"),
        LEVEL: pgettext("roster column", "Level"),
        EMAIL: pgettext("roster column", "Parent's email"),
    }


class RosterRefused(ValidationError):
    """The whole file is refused (too big, not a table...): one message, no rows."""


@dataclass
class Row:
    """One line of the file as read (cells trimmed), with its line number in the file."""

    line: int
    name: str
    classroom: str
    level: str = ""
    email: str = ""


@dataclass
class Planned:
    """What one row will do: "new", "updated" or "unchanged", or its errors in words."""

    line: int
    name: str
    classroom: str
    level: str
    email: str
    action: str = ""
    changes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth a look, not an error
    classroom_id: int | None = None
    student_id: int | None = None
    number_range: int | None = None
    tier: int | None = None


@dataclass
class Plan:
    school_year: str
    rows: list[Planned]

    @property
    def errors(self) -> int:
        return sum(1 for r in self.rows if r.errors)

    def count(self, action: str) -> int:
        return sum(1 for r in self.rows if r.action == action and not r.errors)

    def digest(self) -> str:
        """What the admin saw, as one value: a confirm is refused if planning again differs."""
        data = [asdict(r) for r in self.rows]
        blob = json.dumps([self.school_year, data], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()


# --- reading ----------------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    """The file's text: by its byte-order mark, else UTF-8, else Windows-1252."""
    if data.startswith(b"PK\x03\x04"):
        raise RosterRefused(
            _(
                "This is a workbook (.xlsx or .ods), not a table of text. In the spreadsheet, "
                "choose “Save as” and the CSV format, then send that file."
            ),
            code="roster_workbook",
        )
    sample = data[:4000]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encodings = ["utf-16"]
    elif data.startswith(b"\xef\xbb\xbf"):
        encodings = ["utf-8-sig"]
    elif len(sample) >= 4 and sample[1::2].count(0) > len(sample) // 4:
        encodings = ["utf-16-le"]  # UTF-16 written without a mark: a zero every other byte
    elif b"\x00" in data:
        encodings = []
    else:
        encodings = ["utf-8", "cp1252"]
    for encoding in encodings:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise RosterRefused(
        _("This file is not a table of text. Save the spreadsheet as CSV and send that file."),
        code="roster_not_text",
    )


def _heading_key(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in text if ch.isalnum() and not unicodedata.combining(ch))


def _columns(heading: list[str]) -> dict[str, int]:
    """Which cell of the heading line holds each column. A first-name heading ("Prénom",
    "Vorname") wins over a bare "Name", which in French and German is the family name."""
    keys = [_heading_key(cell) for cell in heading]
    found: dict[str, int] = {}
    for index, key in enumerate(keys):
        if key in FIRST_NAME_HEADINGS:
            found[NAME] = index
            break
    for index, key in enumerate(keys):
        for column, names in HEADINGS.items():
            if column in found or index in found.values():
                continue
            if key in names or (column == EMAIL and "mail" in key):
                found[column] = index
                break
    return found


def _delimiter(first_line: str) -> str:
    counts = {sep: first_line.count(sep) for sep in ("\t", ";", ",")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def roster_read(*, data: bytes | None = None, text: str | None = None) -> list[Row]:
    """The rows of a file (bytes) or a paste (text); RosterRefused about the whole of it."""
    if data is not None:
        text = _file_text(data)
    return _rows(_lines(text))


def _file_text(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise RosterRefused(
            _(
                "This file is %(size)s MB; a roster file can be at most 1 MB (about 20,000 "
                "children). Send the classes in several files."
            )
            % {"size": f"{len(data) / 1024 / 1024:.1f}"},
            code="roster_too_big",
        )
    return _decode(data)


def _lines(text: str | None) -> list[str]:
    """The text's lines, once it is known to be a text of a sensible size."""
    text = (text or "").removeprefix("\ufeff")
    if len(text.encode()) > MAX_BYTES:
        raise RosterRefused(
            _("This list is too long: at most 1 MB at once. Import the classes in several parts."),
            code="roster_too_big",
        )
    if "\x00" in text:
        raise RosterRefused(
            _("This file is not a table of text. Save the spreadsheet as CSV and send that file."),
            code="roster_not_text",
        )
    # The lines: CR, LF and CRLF only (a U+2028 inside a cell stays there and is refused by
    # the name check, not taken for a new line: classrooms.names.lines_split).
    lines = lines_split(text)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _rows(lines: list[str]) -> list[Row]:
    """The rows of a table's lines: the first names the columns."""
    if not lines or not lines[0].strip():
        raise RosterRefused(
            _(
                "The list is empty. The first line names the columns: first name, class, and "
                "optionally level and parent's email."
            ),
            code="roster_empty",
        )
    delimiter = _delimiter(lines[0])
    try:
        cells = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter, strict=True))
    except csv.Error:
        raise RosterRefused(
            _(
                "This file is not a table: a quotation mark is left open. Save the spreadsheet as "
                "CSV again and send that file."
            ),
            code="roster_not_table",
        ) from None
    heading, body = cells[0], cells[1:]
    columns = _columns(heading)
    if NAME not in columns or CLASS not in columns:
        raise RosterRefused(
            _(
                "The first line must name the columns: “First name” and “Class” (and, if you "
                "have them, “Level” and “Parent's email”). It reads: %(heading)s"
            )
            % {"heading": " | ".join(name_for_display(c)[:40] for c in heading[:8])},
            code="roster_no_heading",
        )
    rows_count = sum(1 for r in body if any(c.strip() for c in r))
    if rows_count > MAX_ROWS:
        raise RosterRefused(
            _(
                "This list has %(count)s rows; at most %(max)s can be imported at once. Import the "
                "classes in several parts."
            )
            % {"count": f"{rows_count:,}", "max": f"{MAX_ROWS:,}"},
            code="roster_too_many",
        )
    width = len(heading)
    # tablib's Dataset holds the table: short rows (a spreadsheet drops empty cells at a line's
    # end) are filled, so every row has the heading's columns.
    dataset = tablib.Dataset(headers=[str(i) for i in range(width)])
    line_numbers = []
    for number, row in enumerate(body, start=2):
        if not any(c.strip() for c in row):
            continue
        dataset.append((row + [""] * width)[:width])
        line_numbers.append(number)

    def cell(values, column: str) -> str:
        return values[columns[column]].strip(" ") if column in columns else ""

    return [
        Row(
            line=number,
            name=cell(values, NAME),
            classroom=cell(values, CLASS),
            level=cell(values, LEVEL),
            email=cell(values, EMAIL),
        )
        for number, values in zip(line_numbers, dataset, strict=True)
    ]


# --- planning ---------------------------------------------------------------------------------

LEVEL_RE = re.compile(r"^(10|20)\s*[/\-–·. ]\s*([123])$")


def level_text(number_range: int, tier: int) -> str:
    """A level as the roster writes it: "20/2" is numbers up to 20, operations tier 2."""
    return f"{number_range}/{tier}"


def _formula(*cells: str) -> bool:
    return any(c.lstrip(" \t\r")[:1] in FORMULA_STARTS for c in cells if c)


@dataclass
class _School:
    """What the planning of every row reads once: the year's classes and their students."""

    year: str
    by_name: dict[str, Classroom]
    by_code: dict[str, Classroom]
    foreign_codes: set[str]
    students: dict[tuple[int, str], Student]
    classes_of_name: dict[str, list[str]]  # a first name → the classes it is in this year


def _school_read(school: School, school_year: str, rows: list[Row]) -> _School:
    classes = list(
        Classroom.objects.filter(school=school, school_year=school_year, archived_at__isnull=True)
    )
    students = list(
        Student.objects.filter(classroom__in=classes).only(
            "pk", "classroom_id", "name", "number_range", "tier", "parent_email"
        )
    )
    names = {c.pk: c.name for c in classes}
    classes_of_name: dict[str, list[str]] = {}
    for s in students:
        classes_of_name.setdefault(s.name.casefold(), []).append(names[s.classroom_id])
    codes = {r.classroom.strip().upper() for r in rows if len(r.classroom.strip()) <= 8}
    return _School(
        year=school_year,
        by_name={name_normalise(c.name).casefold(): c for c in classes},
        by_code={c.code: c for c in classes},
        foreign_codes=set(
            Classroom.objects.filter(code__in=codes)
            .exclude(school=school)
            .values_list("code", flat=True)
        ),
        students={(s.classroom_id, s.name.casefold()): s for s in students},
        classes_of_name=classes_of_name,
    )


def _check_name(p: Planned, text: str) -> None:
    name = name_normalise(text)
    p.name = name
    refused = name_error(name)
    if not name:
        p.errors.append(_("The first name is missing."))
    elif refused is not None:
        p.errors.extend(refused.messages)
        p.name = name_for_display(name)
    elif len(name) > services.MAX_NAME_LENGTH:
        p.errors.append(
            _("A name has at most %(max)s characters.") % {"max": services.MAX_NAME_LENGTH}
        )


def _check_class(p: Planned, text: str, known: _School) -> Classroom | None:
    class_text = name_normalise(text)
    p.classroom = class_text
    classroom = known.by_name.get(class_text.casefold()) or known.by_code.get(class_text.upper())
    refused = name_error(class_text)
    if refused is not None:
        p.errors.extend(refused.messages)
        p.classroom = name_for_display(class_text)
        return None
    if not class_text:
        p.errors.append(_("The class is missing."))
    elif classroom is None and class_text.upper() in known.foreign_codes:
        p.errors.append(
            _(
                "“%(class)s” is the code of another school's class: only this school's classes "
                "can be filled here."
            )
            % {"class": class_text}
        )
    elif classroom is None:
        p.errors.append(
            _("There is no class “%(class)s” in %(year)s. Create it first, or correct its name.")
            % {"class": class_text, "year": known.year}
        )
    return classroom


def _check_level(p: Planned, text: str) -> None:
    if not text:
        return
    match = LEVEL_RE.match(text.strip())
    if match is None:
        p.errors.append(
            _(
                "“%(level)s” is not a level. A level is written like 10/1 or 20/3: numbers up to "
                "10 or 20, then operations 1, 2 or 3."
            )
            % {"level": name_for_display(text)[:20]}
        )
        return
    p.number_range, p.tier = int(match[1]), int(match[2])
    p.level = level_text(p.number_range, p.tier)


def _check_email(p: Planned, text: str) -> None:
    email = text.strip()
    p.email = email
    if not email:
        return
    try:
        validate_email(email)
    except ValidationError:
        p.email = name_for_display(email)[:80]
        p.errors.append(_("“%(email)s” is not an email address.") % {"email": p.email})


def _what_changes(p: Planned, student: Student) -> None:
    p.student_id = student.pk
    if p.number_range is not None and (p.number_range, p.tier) != student.level:
        p.changes.append(
            _("level %(old)s → %(new)s") % {"old": level_text(*student.level), "new": p.level}
        )
    if p.email and p.email.casefold() != student.parent_email.casefold():
        p.changes.append(_("parent's email → %(email)s") % {"email": p.email})
    p.action = "updated" if p.changes else "unchanged"


def _plan_row(row: Row, known: _School, seen: dict[tuple[int, str], int]) -> Planned:
    p = Planned(
        line=row.line, name=row.name, classroom=row.classroom, level=row.level, email=row.email
    )
    cells = (row.name, row.classroom, row.level, row.email)
    if _formula(*cells):
        p.errors.append(
            _(
                "A cell starts with “=”, “+”, “-” or “@”: a spreadsheet formula, which is never "
                "imported. Type the value itself."
            )
        )
        p.name, p.classroom, p.level, p.email = (name_for_display(v)[:60] for v in cells)
        return p
    _check_name(p, row.name)
    classroom = _check_class(p, row.classroom, known)
    _check_level(p, row.level)
    _check_email(p, row.email)
    if classroom is None or not p.name:
        return p
    p.classroom, p.classroom_id = classroom.name, classroom.pk
    key = (classroom.pk, p.name.casefold())
    if key in seen:
        p.errors.append(
            _("%(name)s is already on line %(line)s for this class.")
            % {"name": p.name, "line": seen[key]}
        )
        return p
    seen[key] = row.line
    if p.errors:
        return p
    student = known.students.get(key)
    if student is None:
        p.action = "new"
        elsewhere = known.classes_of_name.get(key[1])
        if elsewhere:
            p.notes.append(
                _(
                    "There is already a %(name)s in %(classes)s this year. If it is the same "
                    "child, move them on their class page instead: importing adds a second one."
                )
                % {"name": p.name, "classes": ", ".join(sorted(elsewhere))}
            )
    else:
        _what_changes(p, student)
    return p


def roster_plan(*, school: School, school_year: str, rows: list[Row]) -> Plan:
    """What each row would do, or why it cannot; reads the school's classes and students."""
    school_year = services.school_year_check(school_year)
    known = _school_read(school, school_year, rows)
    seen: dict[tuple[int, str], int] = {}
    return Plan(school_year=school_year, rows=[_plan_row(row, known, seen) for row in rows])


# --- writing ----------------------------------------------------------------------------------


class RosterStale(ValidationError):
    """The school's lists changed between the preview and the confirm."""


@transaction.atomic
def roster_apply(
    *,
    school: School,
    school_year: str,
    rows: list[Row],
    digest: str,
    by: User | None = None,
    rng: random.Random | None = None,
) -> Plan:
    """Write what the preview showed, in one transaction; RosterStale if it would differ now."""
    # The classes first, in id order (the lock order of every write to a class's students).
    list(
        Classroom.objects.select_for_update(no_key=True)
        .filter(school=school, school_year=school_year, archived_at__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    plan = roster_plan(school=school, school_year=school_year, rows=rows)
    if plan.digest() != digest:
        raise RosterStale(
            _(
                "The school's lists changed since this preview (someone else added or changed a "
                "child). Nothing was written: look at the new preview and confirm again."
            ),
            code="roster_stale",
        )
    if plan.errors:
        raise ValidationError(
            _("Correct the rows marked in red first: nothing was written."), code="roster_errors"
        )
    rng = rng or random.SystemRandom()
    new: dict[int, list[Planned]] = {}
    for p in plan.rows:
        if p.action == "new":
            new.setdefault(p.classroom_id, []).append(p)
    classes = Classroom.objects.in_bulk(list(new))
    for classroom_id, planned in new.items():
        services.students_create_many(
            classroom=classes[classroom_id],
            rows=[
                (
                    p.name,
                    p.number_range or NumberRange.UP_TO_10,
                    p.tier or Tier.ADD_SUBTRACT,
                    p.email,
                )
                for p in planned
            ],
            by=by,
            rng=rng,
        )
    updated = [p for p in plan.rows if p.action == "updated"]
    if updated:
        students = Student.objects.in_bulk([p.student_id for p in updated])
        emails = []
        for p in updated:
            student = students[p.student_id]
            if p.number_range is not None and (p.number_range, p.tier) != student.level:
                services.levels_set(
                    students=[student], number_range=p.number_range, tier=p.tier, by=by
                )
            if p.email and p.email.casefold() != student.parent_email.casefold():
                student.parent_email = p.email
                emails.append(student)
        Student.objects.bulk_update(emails, ["parent_email"])
    return plan


# --- the export -------------------------------------------------------------------------------


def _safe_cell(value: str) -> str:
    """A cell no spreadsheet runs as a formula: a leading =, +, - or @ is quoted away."""
    value = name_for_display(value) if value else ""
    return "'" + value if value[:1] in FORMULA_STARTS else value


def roster_export(*, school: School, school_year: str) -> tablib.Dataset:
    """The roster of a school year's classes, in the import's columns (importing it back changes
    nothing)."""
    headings = export_headings()
    dataset = tablib.Dataset(headers=[headings[c] for c in (NAME, CLASS, LEVEL, EMAIL)])
    students = (
        Student.objects.filter(
            classroom__school=school,
            classroom__school_year=school_year,
            classroom__archived_at__isnull=True,
        )
        .select_related("classroom")
        .order_by("classroom__name", "name")
    )
    for s in students:
        dataset.append(
            (
                _safe_cell(s.name),
                _safe_cell(s.classroom.name),
                level_text(s.number_range, s.tier),
                _safe_cell(s.parent_email),
            )
        )
    return dataset


def roster_export_csv(*, school: School, school_year: str) -> bytes:
    """The export as a UTF-8 CSV file with a byte-order mark, which Excel opens as UTF-8."""
    return ("\ufeff" + roster_export(school=school, school_year=school_year).export("csv")).encode()
