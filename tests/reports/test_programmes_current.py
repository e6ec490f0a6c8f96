"""Programmes of today (issue 36): every skill maps to a heading (or code) of the text in force,
each entry names its source and date, a text not checked word for word says it is a paraphrase,
and a school that chose a programme sees the new wording without doing anything."""

from __future__ import annotations

import tomllib
from datetime import date

import pytest
from django.urls import reverse

from reports import programmes, services
from reports.programmes import PROGRAMME_KEYS, REPORT_SKILLS, programme_problems

CURRENT_YEARS = {"fr": {"c2": 2024, "c3": 2025}, "de": {"kmk2022": 2022}, "us": {"ccss": 2010}}


def _data(key: str) -> dict:
    return tomllib.loads((programmes.HERE / f"{key}.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", PROGRAMME_KEYS)
def test_each_skill_maps_to_a_heading_of_the_current_text(key):
    data = _data(key)
    headings = set(data["current"]["headings"])
    for skill in REPORT_SKILLS:
        entries = data["skills"][skill]
        assert entries, skill
        for entry in entries:
            assert entry["code"] in headings, (skill, entry["code"])
            assert entry["source"] in data["current"]["sources"], (skill, entry["source"])
    for source, year in CURRENT_YEARS[key].items():
        assert data["sources"][source]["year"] == year


def test_the_texts_of_today():
    fr, de, us = _data("fr"), _data("de"), _data("us")
    assert "31 octobre 2024" in fr["sources"]["c2"]["publisher"]
    assert "10 avril 2025" in fr["sources"]["c3"]["title"]
    process = [h for h in de["current"]["headings"] if h.startswith("Prozessbezogene")]
    assert len(process) == 6  # the six process competences of 2022
    assert not any(e["source"] == "kmk2004" for es in de["skills"].values() for e in es)
    us_codes = {e["code"]: skill for skill, es in us["skills"].items() for e in es}
    assert us_codes["CCSS.MATH.CONTENT.2.NBT.B.5"] == "addsub_20"
    assert us_codes["CCSS.MATH.CONTENT.1.OA.B.3"] == "multi_step"
    # Not checked word for word: said so on the page.
    assert all(e.get("wording") == "paraphrase" for es in de["skills"].values() for e in es)


def test_an_entry_outside_the_current_text_is_reported(tmp_path, monkeypatch):
    text = (programmes.HERE / "de.toml").read_text(encoding="utf-8")
    old = text.replace('source = "kmk2022"', 'source = "kmk2004"', 1).replace(
        "[sources.kmk_sek]",
        '[sources.kmk2004]\ntitle = "2004"\npublisher = "KMK"\nyear = 2005\n'
        'url = "https://www.kmk.org/"\n\n[sources.kmk_sek]',
    )
    (tmp_path / "de.toml").write_text(old, encoding="utf-8")
    monkeypatch.setattr(programmes, "HERE", tmp_path)
    assert any("is not a current text" in p for p in programme_problems("de"))


@pytest.mark.django_db
def test_a_school_sees_the_new_wording_without_doing_anything(client, teacher, classroom, students):
    from tests.reports.plays import one_move, paris

    school = classroom.school
    school.programme = "de"
    school.save(update_fields=["programme"])
    one_move(
        classroom=classroom, student=students[0], at=paris(2026, 11, 17, 9, 0), move="2 + 3 = 5"
    )
    services.report_build(student=students[0], week_start=date(2026, 11, 16))
    client.force_login(teacher)
    page = client.get(reverse("reports:student", args=[students[0].pk]), {"week": "2026-11-16"})
    body = page.content.decode()
    assert "Fassung 2022" in body and "Rechenoperationen verstehen und beherrschen" in body
    assert "paraphrase" in body
