"""Teachers: the class grid and its CSV, drill-down, build now with progress, level proposals."""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from classrooms.models import LevelChange, ParentLink
from reports import services
from reports.models import LevelRecommendation, ReportJob, WeeklyReport
from tests import factories
from tests.reports.plays import one_move, paris


class _GridRows(HTMLParser):
    """The text of each row of the page's class grid, cell by cell."""

    def __init__(self):
        super().__init__()
        self.rows, self.in_grid, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and "class-grid" in (dict(attrs).get("class") or ""):
            self.in_grid = True
        elif self.in_grid and tag == "tr":
            self.rows.append([])
        elif self.in_grid and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_grid = False
        elif self.in_grid and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_class_report_grid_and_csv_hold_the_same_figures(
    client, teacher, classroom, reported, week
):
    client.force_login(teacher)
    page = client.get(reverse("reports:class", args=[classroom.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    parser = _GridRows()
    parser.feed(html)
    download = client.get(
        reverse("reports:class_csv", args=[classroom.pk]), {"week": week.isoformat()}
    )
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(download.content.decode("utf-8-sig"))))
    # The same students in the same order as the page's grid; the CSV spells each skill's figures
    # as numbers a spreadsheet can sum (level in words, right answers in %, tries).
    assert [r[0] for r in rows] == [r[0] for r in parser.rows]
    assert rows[0][0] == "Student" and [r[0] for r in rows[1:]] == ["Anna", "Brieuc", "Cécile"]
    # Anna: 9 of 12 right (75 %) -> "Getting there", on the page and in the CSV
    assert parser.rows[1][1] == "G 75 %"
    assert rows[1][1:3] == ["Getting there", "75"] and rows[1][-2:] == ["12", "75"]
    assert "Who needs help" in html and "Most often missed" in html
    assert "Adding and taking away within 10" in html  # the most missed kind of operation


def test_teacher_of_another_class_sees_nothing(client, school, classroom, reported, other_school):
    colleague = factories.teacher(school=school)
    factories.classroom(school=school, teachers=[colleague])
    foreign = factories.teacher(school=other_school)
    for user in (colleague, foreign):
        client.force_login(user)
        for name, arg in [
            ("reports:class", classroom.pk),
            ("reports:class_csv", classroom.pk),
            ("reports:student", reported[0].pk),
            ("reports:child", reported[0].pk),
        ]:
            assert client.get(reverse(name, args=[arg])).status_code == 404, (user, name)
        response = client.post(reverse("reports:build"), {"classroom": classroom.pk})
        assert response.status_code == 404
    assert not ReportJob.objects.exists()


def test_school_admin_sees_every_class_of_the_school(client, school, classroom, reported):
    admin = factories.school_admin(school=school)
    client.force_login(admin)
    assert client.get(reverse("reports:class", args=[classroom.pk])).status_code == 200
    assert client.get(reverse("reports:student", args=[reported[0].pk])).status_code == 200


def test_build_now_for_a_class_shows_a_progress_bar_until_done(
    client, teacher, classroom, reported, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            reverse("reports:build"), {"classroom": classroom.pk}, HTTP_HX_REQUEST="true"
        )
    html = response.content.decode()
    job = ReportJob.objects.get()
    assert "<progress" in html and 'hx-trigger="every 1s"' in html and "0 of 3" in html
    assert "<html" not in html  # a fragment, not the page
    for callback in callbacks:
        callback()
    poll = client.get(
        reverse("reports:job", args=[job.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "hx-trigger" not in poll  # polling stops
    assert "all 3 reports built" in poll
    # The fixture's three reports of last week, and this week's three just built.
    assert WeeklyReport.objects.filter(student__classroom=classroom).count() == 6


def test_build_now_without_htmx_goes_to_the_job_page(
    client, teacher, reported, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("reports:build"), {"student": reported[0].pk})
    job = ReportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "reports:job", args=[job.pk]
    )
    page = client.get(response["Location"]).content.decode()
    assert "1 report built" in page


@pytest.fixture
def ready_for_more(classroom, teacher):
    """Sixty quick operations, 57 right, at Dewi's level: a proposal to go up."""
    dewi = factories.student(classroom=classroom, name="Dewi", number_range=10, tier=1)
    for k in range(60):  # a real game for each operation, one in 20 wrong
        one_move(
            classroom=classroom,
            student=dewi,
            at=paris(2026, 11, 17, 9, k // 2, 30 * (k % 2)),
            move="2 + 5 = 3" if k % 20 == 0 else "2 + 3 = 5",
        )
    services.report_build(student=dewi, week_start=paris(2026, 11, 16).date())
    return dewi


def test_a_proposal_is_made_and_accepted_with_one_tap(client, teacher, ready_for_more):
    rec = LevelRecommendation.objects.get(student=ready_for_more)
    assert (rec.number_range, rec.tier, rec.status) == (20, 1, "open")
    assert rec.evidence["right"] == 57 and rec.evidence["n"] == 60
    client.force_login(teacher)
    page = client.get(reverse("reports:class", args=[ready_for_more.classroom_id])).content.decode()
    assert "95 % of the last 60 operations right, quickly" in page
    response = client.post(
        reverse("reports:recommendation_decide", args=[rec.pk, "accept"]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and "now plays at" in response.content.decode()
    ready_for_more.refresh_from_db()
    assert ready_for_more.level == (20, 1)
    assert (
        LevelChange.objects.filter(student=ready_for_more).latest("changed_at").number_range == 20
    )
    # A second tap changes nothing more.
    client.post(reverse("reports:recommendation_decide", args=[rec.pk, "accept"]))
    assert LevelChange.objects.filter(student=ready_for_more).count() == 2


def test_a_dismissed_proposal_keeps_the_level_and_is_not_made_again_at_once(
    client, teacher, ready_for_more
):
    rec = LevelRecommendation.objects.get(student=ready_for_more)
    client.force_login(teacher)
    client.post(reverse("reports:recommendation_decide", args=[rec.pk, "dismiss"]))
    ready_for_more.refresh_from_db()
    assert ready_for_more.level == (10, 1)
    services.report_build(student=ready_for_more, week_start=paris(2026, 11, 16).date())
    assert list(LevelRecommendation.objects.values_list("status", flat=True)) == ["dismissed"]


def test_a_proposal_from_another_class_is_404(client, school, ready_for_more):
    stranger = factories.teacher(school=school)
    client.force_login(stranger)
    rec = LevelRecommendation.objects.get()
    assert (
        client.post(reverse("reports:recommendation_decide", args=[rec.pk, "accept"])).status_code
        == 404
    )
    ready_for_more.refresh_from_db()
    assert ready_for_more.level == (10, 1)


def test_operations_in_reports_are_printed_with_the_keys_signs(client, teacher, classroom, week):
    # R3.5, R4.3: a wrong "8 - 5 = 9" (stored as the engine writes it) reads "8 − 5 = 9" on the
    # teacher's drill-down, with the minus of the tablet's key; the parent's page and PDF print
    # the operation the child overlooked the same way.
    from games.wording import as_printed

    anna = factories.student(classroom=classroom, name="Anna", number_range=10, tier=1)
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 17, 9, 0),
        move="8 - 5 = 9",
        table_values=(8, 5, 9),
    )
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 17, 9, 5),
        move={"type": "nothing"},
        table_values=(8, 5, 3),
    )
    report = services.report_build(student=anna, week_start=week)
    stored = report.data["week"]
    assert stored["wrong_examples"] == ["8 - 5 = 9"]
    overlooked = stored["overlooked_examples"]
    assert len(overlooked) == 1

    client.force_login(teacher)
    html = client.get(reverse("reports:student", args=[anna.pk])).content.decode()
    assert "<code>8 − 5 = 9</code>" in html and "8 - 5 = 9" not in html
    assert f"<code>{as_printed(overlooked[0])}</code>" in html
    parent = factories.parent()
    ParentLink.objects.create(parent=parent, student=anna)
    client.force_login(parent)
    html = client.get(reverse("reports:child", args=[anna.pk])).content.decode()
    assert f"<li><code>{as_printed(overlooked[0])}</code></li>" in html
    assert as_printed("8 - 5 = 3") == "8 − 5 = 3" and as_printed("-3 * 2 = -6") == "-3 × 2 = -6"
