"""Fixtures of the site tests."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.admin import AdminSite


@pytest.fixture
def admin_second_wall(monkeypatch):
    """Lets a school admin through the gate of Django's admin (classrooms/admin.py: superusers
    only), to test the scoping behind it: the second wall, should anyone be let in one day."""
    monkeypatch.setattr(admin.site, "has_permission", AdminSite.has_permission.__get__(admin.site))
