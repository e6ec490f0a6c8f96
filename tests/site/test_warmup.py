"""The server's warm-up before it forks (kavet_site/warmup.py): the lazy first-request work."""

from __future__ import annotations

import pytest
from django.db import connections

from kavet_site import warmup


def test_warm_up_loads_every_project_template_without_the_database():
    names = warmup._project_templates()
    assert "games/table.html" in names and "base.html" in names
    # Only the project's own: its admin page (templates/admin/) but none of Django's admin.
    assert "admin/signin_change_list.html" in names
    assert not {"admin/base.html", "admin/index.html", "admin/change_list.html"} & set(names)
    for conn in connections.all():
        conn.close()  # the test database's set-up may have left one open
    # No django_db mark: pytest-django fails any query made here.
    warmup.warm_up()
    # Forked workers must not share a connection the master opened (nor a pool).
    assert all(conn.connection is None for conn in connections.all())


@pytest.mark.django_db
def test_the_site_answers_after_the_warm_up(client):
    warmup.warm_up()
    assert client.get("/healthz").status_code in (200, 503)
