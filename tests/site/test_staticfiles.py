"""WhiteNoise's list of static files is made once per process and shared by every handler
(kavet_site/staticfiles.py): each test Client made a handler that listed ~500 files again."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from whitenoise import base

from kavet_site.staticfiles import StaticFilesMiddleware

TABLE_CSS = "/static/css/table.css"


@pytest.fixture
def listings(monkeypatch):
    """Every file WhiteNoise lists (its headers made, its size read: get_static_file)."""
    seen: list[str] = []
    get_static_file = base.WhiteNoise.get_static_file

    def counted(self, path, url, stat_cache=None):
        seen.append(url)
        return get_static_file(self, path, url, stat_cache=stat_cache)

    monkeypatch.setattr(base.WhiteNoise, "get_static_file", counted)
    monkeypatch.setattr(StaticFilesMiddleware, "_listed", {})
    return seen


def test_the_second_handler_lists_no_file_again_and_serves_the_same(listings):
    first = Client().get(TABLE_CSS)
    listed = len(listings)
    assert first.status_code == 200 and TABLE_CSS in listings  # (static/, every app's)
    second = Client().get(TABLE_CSS)
    assert len(listings) == listed
    assert second.status_code == 200
    assert second["Content-Type"] == first["Content-Type"]
    assert second["Content-Type"].startswith("text/css")
    assert b"".join(second.streaming_content) == b"".join(first.streaming_content)
    assert second["Cache-Control"] == first["Cache-Control"]
    assert Client().get("/static/no-such-file.css").status_code == 404


def test_other_settings_list_their_own_files(listings):
    assert Client().get(TABLE_CSS).status_code == 200
    listed = len(listings)
    with override_settings(WHITENOISE_MAX_AGE=7):
        response = Client().get(TABLE_CSS)
    assert len(listings) > listed  # a header setting of its own: listed with it, not reused
    assert "max-age=7" in response["Cache-Control"]


@override_settings(WHITENOISE_AUTOREFRESH=True)
def test_with_autorefresh_each_request_still_looks_on_disk(listings):
    # DEBUG's default: nothing is listed up front, the file is found when asked for.
    assert Client().get(TABLE_CSS).status_code == 200
    assert listings == [TABLE_CSS]  # that one file only
