"""The school's programme on a report, in a real browser (issue 28, item 4): a French school's
report read in French shows the French programme's expectations, a German one in German the
KMK Bildungsstandards, a US one in English the Common Core; with screenshots of each."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from classrooms.models import ParentLink
from reports import services as report_services
from tests import factories
from tests.e2e.helpers import sign_in_context
from tests.reports.plays import one_move, paris

SHOTS = Path(django_settings.BASE_DIR) / "docs" / "screenshots"
WEEK = date(2026, 11, 16)
# Moves that train several skills: within 10, across 10, × and ÷.
MOVES = [
    ("2 + 3 = 5", (2, 3, 5)),
    ("8 + 5 = 13", (8, 5, 13)),
    ("3 * 4 = 12", (3, 4, 12)),
    ("12 / 4 = 3", (12, 4, 3)),
]


def _school_with_a_report(slug: str, programme: str):
    school = factories.school(slug=slug, name=f"School {slug}")
    school.programme = programme
    school.save(update_fields=["programme"])
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    child = factories.student(classroom=classroom, name="Anna", number_range=20, tier=2)
    for i, (move, values) in enumerate(MOVES):
        one_move(
            classroom=classroom,
            student=child,
            move=move,
            table_values=values,
            at=paris(2026, 11, 17, 9, 5 * i),
        )
    report_services.report_build(student=child, week_start=WEEK)
    return school, teacher, child


CASES = [
    # (school's programme, reader's language, who reads, what must be there, what must not)
    (
        "fr",
        "fr-FR",
        "parent",
        "À l'école : ce qu'attend le programme",
        [
            "Connaître par cœur les résultats des additions",
            "Bulletin officiel (publié le 31 octobre 2024)",
        ],
        ["CCSS.", "Bildungsstandards", "In English"],
    ),
    (
        "de",
        "de-DE",
        "teacher",
        "In der Schule: was der Lehrplan erwartet",
        ["Einspluseins im Zahlenraum bis 10", "Leitidee Zahlen und Operationen"],
        ["CCSS.", "Bulletin officiel", "Auf Englisch"],
    ),
    (
        "us",
        "en-US",
        "parent",
        "At school: what the programme expects",
        ["CCSS.MATH.CONTENT.1.OA.C.6", "CCSS.MATH.CONTENT.3.OA.C.7", "Common Core State Standards"],
        ["Bulletin officiel", "Bildungsstandards", "In English"],
    ),
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("programme, locale, reader, heading, present, absent", CASES)
def test_the_report_shows_the_schools_programme(
    live_server, new_context, settings, programme, locale, reader, heading, present, absent
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school, teacher, child = _school_with_a_report(f"school-{programme}", programme)
    language = locale.split("-")[0]
    if reader == "parent":
        user = factories.parent(username=f"parent-{programme}", language=language)
        ParentLink.objects.create(parent=user, student=child)
        path = f"/reports/child/{child.pk}/?week={WEEK.isoformat()}"
    else:
        user = teacher
        user.language = language
        user.save(update_fields=["language"])
        path = f"/reports/student/{child.pk}/?week={WEEK.isoformat()}"

    for name, viewport in (("desktop", (1280, 800)), ("phone", (390, 844))):
        context = new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale=locale)
        sign_in_context(context, live_server, user)
        page = context.new_page()
        page.goto(live_server.url + path)
        section = page.locator("section.programme")
        expect(section.locator("h2")).to_have_text(heading)
        expect(page.locator("html")).to_have_attribute("lang", language)
        # Folded at first (several phone screens of the programme's words): one tap opens it.
        expect(section.locator("dl.programme-skills")).to_be_hidden()
        section.locator("details.programme-list summary").click()
        text = section.inner_text()
        for words in present:
            if words.startswith("Bulletin") or words.startswith("Common Core"):
                section.locator("details.programme-sources summary").click()
                text = section.inner_text()
            assert words in text, (programme, words)
        for words in absent:
            assert words not in text, (programme, words)
        # The expectations keep their programme's language, for screen readers too.
        own = "en" if programme == "us" else programme
        assert section.locator(f'.programme-text[lang="{own}"]').count() >= 4
        # One list per skill tried: within 10, within 20, × and ÷.
        assert section.locator("dt").count() == 4
        # The section fits the screen: long codes and addresses wrap, nothing runs off the side.
        widest = section.evaluate(
            "s => Math.max(...[s, ...s.querySelectorAll('*')].map(e => e.getBoundingClientRect().right))"
        )
        assert widest <= viewport[0], (name, widest)
        section.evaluate("s => s.scrollIntoView({block: 'start'})")
        if os.environ.get("KAVET_SCREENSHOTS"):  # the committed ones are redrawn on purpose
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"programme-{programme}-{reader}-{name}.png"))
