"""The school programme: every skill of the engine tied to the official expectations it trains,
in the programme the school chose; reports, the PDF and the CSV show them (issue 28, item 4)."""

from __future__ import annotations

import csv
import io
import tomllib

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from classrooms.models import Programme, School, programme_for
from games.engine.skills import SKILLS as ENGINE_SKILLS
from reports import programmes
from reports.programmes import PROGRAMME_KEYS, REPORT_SKILLS, programme_problems
from tests import factories

WEEK = "2026-11-16"


def test_the_programmes_are_the_schools_choices():
    assert set(PROGRAMME_KEYS) == set(Programme.values)


@pytest.mark.parametrize("key", PROGRAMME_KEYS)
def test_every_engine_skill_is_mapped_and_nothing_unknown(key):
    assert programme_problems(key) == []
    prog = programmes.programme(key)
    for skill in ENGINE_SKILLS:
        assert prog.expectations(skill), f"{key}: {skill} has no expectation"


def test_a_missing_or_unknown_skill_is_reported(tmp_path, monkeypatch):
    data = (programmes.HERE / "us.toml").read_text(encoding="utf-8")
    broken = data.replace("[[skills.joker]]", "[[skills.jokers]]")
    (tmp_path / "us.toml").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(programmes, "HERE", tmp_path)
    problems = programme_problems("us")
    assert "us.toml: no expectation for skill joker" in problems
    assert "us.toml: unknown skill jokers" in problems


def test_a_new_engine_skill_without_a_mapping_fails(monkeypatch):
    monkeypatch.setattr(programmes, "REPORT_SKILLS", (*REPORT_SKILLS, "percent"))
    for key in PROGRAMME_KEYS:
        assert f"{key}.toml: no expectation for skill percent" in programme_problems(key)


@pytest.mark.parametrize("key", PROGRAMME_KEYS)
def test_every_source_is_named_in_full(key):
    data = tomllib.loads((programmes.HERE / f"{key}.toml").read_text(encoding="utf-8"))
    used = {e["source"] for entries in data["skills"].values() for e in entries}
    assert used <= set(data["sources"])  # each expectation cites a source the file names
    for source in data["sources"].values():
        assert source["url"].startswith("https://")
        assert 2000 <= source["year"] <= 2030


def test_common_core_codes_are_real_standard_identifiers():
    import re

    shape = re.compile(
        r"CCSS\.MATH\.(CONTENT\.[K1-6]\.(OA|NBT|NF|EE)\.[A-D]\.\d+|PRACTICE\.MP[1-8])"
    )
    us = programmes.programme("us")
    codes = {e.code for skill in REPORT_SKILLS for e in us.expectations(skill)}
    assert all(shape.fullmatch(code) for code in codes), codes
    assert {"CCSS.MATH.CONTENT.1.OA.C.6", "CCSS.MATH.CONTENT.2.OA.B.2"} <= {
        e.code for e in us.expectations("addsub_20")
    }
    assert "CCSS.MATH.CONTENT.3.OA.C.7" in {e.code for e in us.expectations("mult")}


def test_a_schools_programme_follows_its_language_else_its_time_zone():
    assert programme_for(language="fr") == "fr"
    assert programme_for(language="de-at") == "de"
    assert programme_for(language="en") == "us"
    assert programme_for(time_zone="Europe/Berlin") == "de"
    assert programme_for(time_zone="Europe/Paris") == "fr"
    assert programme_for(time_zone="America/Chicago") == "us"


def test_a_new_school_starts_with_the_sites_language(db, settings):
    settings.LANGUAGE_CODE = "de"
    assert School.objects.create(name="Grundschule", slug="gs").programme == "de"


def test_the_school_admin_sets_the_programme(db, school):
    """On the school admin's own settings page (Django's admin is for the site's superusers)."""
    admin = factories.school_admin(school=school)
    browser = Client()
    browser.force_login(admin)
    url = reverse("schooladmin:settings")
    page = browser.get(url)
    assert page.status_code == 200 and 'name="programme"' in page.content.decode()
    form = {"time_zone": school.time_zone, "retention_years": "1"}
    answer = browser.post(url, {**form, "programme": "de"})
    assert answer.status_code == 302
    school.refresh_from_db()
    assert school.programme == "de"
    refused = browser.post(url, {**form, "programme": "xx"})
    assert refused.status_code == 200  # the form again, with its error
    school.refresh_from_db()
    assert school.programme == "de"


def _set(school, programme):
    school.programme = programme
    school.save(update_fields=["programme"])


def test_the_parents_page_shows_the_french_programme_in_french(reported, school, client):
    _set(school, "fr")
    anna = reported[0]
    parent = factories.parent(username="amelie", language="fr")
    from classrooms.models import ParentLink

    ParentLink.objects.create(parent=parent, student=anna)
    client.force_login(parent)
    with translation.override("fr"):
        page = client.get(
            reverse("reports:child", args=[anna.pk]) + f"?week={WEEK}", HTTP_ACCEPT_LANGUAGE="fr"
        )
    html = page.content.decode()
    assert page.status_code == 200
    assert "À l’école : ce qu’attend le programme" in html or "ce qu'attend le programme" in html
    assert "Connaître par cœur les résultats des additions" in html
    assert "In English:" not in html  # the reader reads the programme's language
    assert "publié le 31 octobre 2024" in html
    assert "CCSS" not in html  # not another programme's


def test_the_teachers_page_in_english_glosses_a_german_programme(reported, school, teacher):
    _set(school, "de")
    browser = Client()
    browser.force_login(teacher)
    page = browser.get(reverse("reports:student", args=[reported[0].pk]) + f"?week={WEEK}")
    html = page.content.decode()
    assert "At school: what the programme expects" in html
    assert "Einspluseins im Zahlenraum bis 10" in html
    assert 'lang="de"' in html
    assert "In English:" in html and "Know the addition facts within 10" in html


def test_only_the_skills_the_child_tried_are_listed(reported, school, teacher):
    _set(school, "us")
    browser = Client()
    browser.force_login(teacher)
    html = browser.get(reverse("reports:student", args=[reported[0].pk])).content.decode()
    assert "CCSS.MATH.CONTENT.1.OA.C.6" in html  # 2 + 3 = 5: within 10
    assert "CCSS.MATH.CONTENT.3.OA.C.7" not in html  # no multiplication played


def test_the_class_csv_has_the_programmes_codes(reported, school, teacher, classroom):
    _set(school, "us")
    browser = Client()
    browser.force_login(teacher)
    response = browser.get(reverse("reports:class_csv", args=[classroom.pk]) + f"?week={WEEK}")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = rows[0]
    column = header.index("Programme: + − to 10")
    assert all("CCSS.MATH.CONTENT.K.OA.A.5" in row[column] for row in rows[1:])
    assert len(rows) == 1 + len(reported)


def test_the_pdf_names_the_programme(reported, school, client):
    from classrooms.models import ParentLink
    from reports.pdf import report_pdf
    from reports.selectors import report_of_week
    from reports.views import _child_context

    _set(school, "us")
    anna = reported[0]
    anna.refresh_from_db()
    context = _child_context(anna, report_of_week(anna))
    assert context["programme"]["skills"]
    pdf = report_pdf(context)
    assert pdf.startswith(b"%PDF")
    parent = factories.parent(username="pdfparent")
    ParentLink.objects.create(parent=parent, student=anna)
    client.force_login(parent)
    answer = client.get(reverse("reports:child_pdf", args=[anna.pk]))
    assert answer.status_code == 200


def test_the_demo_school_follows_the_french_programme(db):
    from demo.school import demo_school_build

    summary = demo_school_build(history=False)
    assert summary.school.programme == "fr"
