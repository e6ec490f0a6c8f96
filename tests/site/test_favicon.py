"""Every page names the site's icon (QA report: each page asked for /favicon.ico and got a 404,
an error in every tablet's console); the icon is the project's own SVG, served as a static file."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

pytestmark = pytest.mark.django_db

ICON = '<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">'


def test_the_icon_is_an_svg_among_the_static_files():
    path = finders.find("img/favicon.svg")
    assert path, "static/img/favicon.svg"
    assert ElementTree.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("url", [reverse("home"), reverse("games:tablet_signin"), "/no-such-page/"])
def test_pages_and_error_pages_name_the_icon(client, url):
    response = client.get(url)
    assert response.status_code in (200, 404)
    assert ICON in response.content.decode()
