"""The class CSV: what people typed is never run as a formula; numbers stay numbers (issue 9, 11)."""
from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from classrooms.reports.views import csv_cell


@pytest.mark.parametrize("text", [
    "=HYPERLINK(\"http://evil.example\",\"Anna\")", "+1+1", "-1+cmd|' /C calc'!A0", "@SUM(A1:A9)",
    "\t=1+1", "\r=1+1", "=1", "-", "+", "@", "-Anna", "- 3",
])
def test_a_formula_start_is_written_as_text(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["-3", "+4", "-2.5", "-2,5", "12", "-12 %", "75 %", "0", "G 75 %",
                                   "Anna", "Cécile", "", "a=b", "x-1"])
def test_numbers_and_plain_text_are_unchanged(value):
    assert csv_cell(value) == value


def test_real_numbers_stay_numbers():
    assert csv_cell(-3) == -3 and csv_cell(2.5) == 2.5 and csv_cell(None) is None


def test_a_student_named_like_a_formula_is_harmless_in_the_class_csv(client, teacher, classroom, reported, week):
    anna = reported[0]
    anna.name = '=HYPERLINK("http://ev.il","Hi")'
    anna.save(update_fields=["name"])
    reported[1].name = "@Brieuc"
    reported[1].save(update_fields=["name"])
    client.force_login(teacher)
    download = client.get(reverse("reports:class_csv", args=[classroom.pk]), {"week": week.isoformat()})
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
