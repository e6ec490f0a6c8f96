"""The class CSV: what people typed is never run as a formula; numbers stay numbers (issue 9, 11)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from reports.views import csv_cell


@pytest.mark.parametrize(
    "text",
    [
        '=HYPERLINK("http://evil.example","Anna")',
        "+1+1",
        "-1+cmd|' /C calc'!A0",
        "@SUM(A1:A9)",
        "\t=1+1",
        "\r=1+1",
        "=1",
        "-",
        "+",
        "@",
        "-Anna",
        "- 3",
    ],
)
def test_a_formula_start_is_written_as_text(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize(
    "value",
    [
        "-3",
        "+4",
        "-2.5",
        "-2,5",
        "12",
        "-12 %",
        "75 %",
        "0",
        "G 75 %",
        "Anna",
        "Cécile",
        "",
        "a=b",
        "x-1",
    ],
)
def test_numbers_and_plain_text_are_unchanged(value):
    assert csv_cell(value) == value


def test_real_numbers_stay_numbers():
    assert csv_cell(-3) == -3 and csv_cell(2.5) == 2.5 and csv_cell(None) is None


def test_a_student_named_like_a_formula_is_harmless_in_the_class_csv(
    client, teacher, classroom, reported, week
):
    anna = reported[0]
    anna.name = '=HYPERLINK("http://ev.il","Hi")'
    anna.save(update_fields=["name"])
    reported[1].name = "@Brieuc"
    reported[1].save(update_fields=["name"])
    client.force_login(teacher)
    download = client.get(
        reverse("reports:class_csv", args=[classroom.pk]), {"week": week.isoformat()}
    )
    assert download.status_code == 200
    rows = list(csv.reader(io.StringIO(download.content.decode("utf-8-sig"))))
    names = {row[0] for row in rows[1:]}
    assert "'" + anna.name in names and "'@Brieuc" in names and "Cécile" in names
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            assert not cell.startswith("-") or cell.lstrip("-").replace(" %", "").isdigit(), cell
    # The week's figures are still plain numbers.
    assert all(row[-2].isdigit() for row in rows[1:])


def test_the_class_csv_writes_numbers_a_spreadsheet_can_sum(
    client, teacher, classroom, reported, week
):
    """Issue 12: no "75 %" text; the unit is in the header, the cell holds the number."""
    client.force_login(teacher)
    download = client.get(
        reverse("reports:class_csv", args=[classroom.pk]), {"week": week.isoformat()}
    )
    text = download.content.decode("utf-8-sig")
    assert "%" not in "".join(text.splitlines()[1:])  # only the headers name the unit
    rows = list(csv.reader(io.StringIO(text)))
    header, anna = rows[0], dict(zip(rows[0], rows[1], strict=True))
    assert header[0] == "Student" and header[-2:] == [
        "Operations this week",
        "Right answers this week (%)",
    ]
    assert [r[0] for r in rows[1:]] == ["Anna", "Brieuc", "Cécile"]
    # Anna: 9 of her 12 operations right this week, all adding within 10 -> "Getting there", 75.
    assert anna["Operations this week"] == "12" and anna["Right answers this week (%)"] == "75"
    assert header[1:4] == ["Level: + − to 10", "Right answers (%): + − to 10", "Tries: + − to 10"]
    assert anna["Level: + − to 10"] == "Getting there"
    assert anna["Right answers (%): + − to 10"] == "75" and anna["Tries: + − to 10"] == "12"
    assert not any(h.startswith(("=", "+", "-", "@")) for h in header)
    for row in rows[1:]:
        for name, cell in zip(header, row, strict=True):
            if name.startswith(("Right answers", "Tries", "Operations")) and cell:
                assert cell.isdigit(), (name, cell)  # integers, no unit, no spaces


def test_class_csv_in_french_keeps_plain_integers(client, teacher, classroom, reported, week):
    client.force_login(teacher)
    download = client.get(
        reverse("reports:class_csv", args=[classroom.pk]),
        {"week": week.isoformat()},
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    rows = list(csv.reader(io.StringIO(download.content.decode("utf-8-sig"))))
    assert rows[1][-2:] == ["12", "75"]  # not "75 %" nor "75,0"


def test_a_name_kept_before_names_were_checked_cannot_reorder_the_csv(
    client, teacher, classroom, reported, week
):
    """Issue 25.6: a direction override stored in a name is dropped on the way out."""
    from classrooms.models import Student

    Student.objects.filter(pk=reported[0].pk).update(name="Anna\u202e")  # skips every check
    Student.objects.filter(pk=reported[1].pk).update(name="\u2066=1+1\u2069")
    client.force_login(teacher)
    download = client.get(
        reverse("reports:class_csv", args=[classroom.pk]), {"week": week.isoformat()}
    )
    text = download.content.decode("utf-8-sig")
    assert not any(ch in text for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    names = {row[0] for row in csv.reader(io.StringIO(text))}
    assert {"Anna", "'=1+1", "Cécile"} <= names


@pytest.mark.parametrize("name", ["محمد", "👩🏽\u200d🚀", "Nguyễn", "李雷"])
def test_names_of_every_language_are_written_as_they_are(name):
    assert csv_cell(name) == name
