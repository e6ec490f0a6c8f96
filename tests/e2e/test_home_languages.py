"""A browser opens the home page in English, French and German and switches language."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)

LEADS = {
    "en": "An arithmetic card game from Brittany",
    "fr": "Un jeu de cartes de calcul venu de Bretagne",
    "de": "Ein Rechenkartenspiel aus der Bretagne",
}


@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_home_page_speaks_each_language(new_context, live_server, language):
    page = new_context(locale=language).new_page()
    page.goto(live_server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator(".lead")).to_contain_text(LEADS[language])
    # The Breton name of the game is never translated.
    expect(page.locator("h1")).to_have_text("Kavet 'm eus!")


def test_language_switcher_changes_the_page_and_remembers_it(page, live_server):
    page.goto(live_server.url + "/")
    expect(page.locator(".lead")).to_contain_text(LEADS["en"])
    page.select_option("#language-select", "fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator(".lead")).to_contain_text(LEADS["fr"])
    page.goto(live_server.url + "/")  # remembered by the language cookie
    expect(page.locator(".lead")).to_contain_text(LEADS["fr"])
    page.select_option("#language-select", "de")
    expect(page.locator(".lead")).to_contain_text(LEADS["de"])
    expect(page).to_have_url(re.compile(r"/$"))
