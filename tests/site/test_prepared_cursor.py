"""kavet_site.prepared.cursor: the hot hand-written statements are prepared by PostgreSQL once
per connection, and are otherwise what any Django cursor's statements are (their errors, the
query log the tests count with), on the same connection and in the same transaction."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from classrooms.models import User
from kavet_site import prepared

pytestmark = pytest.mark.django_db

SQL = 'SELECT "username" FROM "classrooms_user" WHERE "id" = %s'


def _prepared_statements() -> list[str]:
    with connection.cursor() as c:
        c.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in c.fetchall()]


@pytest.fixture
def postgres():
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (elsewhere: the plain cursor)")


def test_a_statement_is_prepared_once_and_logged_as_any_other(postgres, django_assert_num_queries):
    user = User.objects.create(username="prepared-one")
    with django_assert_num_queries(3) as captured:
        for _ in range(3):
            with prepared.cursor("default") as c:
                c.execute(SQL, [user.pk])
                assert c.fetchone() == ("prepared-one",)
    # The query log (what the tests' query budgets read) has each run's SQL.
    assert all('FROM "classrooms_user"' in q["sql"] for q in captured.captured_queries)
    # Prepared once on this connection (then only bound and run).
    assert sum('FROM "classrooms_user" WHERE "id" = $1' in s for s in _prepared_statements()) == 1
    # Django's own cursors prepare nothing, however often a statement runs (client binding).
    before = _prepared_statements()
    for _ in range(10):
        assert User.objects.filter(pk=user.pk).values_list("username", flat=True).get()
    assert _prepared_statements() == before


def test_its_errors_are_djangos_and_its_writes_are_in_the_transaction(postgres):
    user = User.objects.create(username="prepared-two")
    other = User.objects.create(username="prepared-two-b")
    with pytest.raises(IntegrityError):  # django.db's, as from any cursor (a unique username)
        with transaction.atomic(), prepared.cursor("default") as c:
            c.execute(
                'UPDATE "classrooms_user" SET "username" = %s WHERE "id" = %s',
                ["prepared-two", other.pk],
            )
    other.refresh_from_db()
    assert other.username == "prepared-two-b"
    # After the rollback (psycopg forgets its prepared statements then) it prepares again.
    with transaction.atomic():
        with prepared.cursor("default") as c:
            c.execute(SQL, [user.pk])
            assert c.fetchone() == ("prepared-two",)
        with connection.cursor() as c:  # the same connection, the same transaction
            c.execute('UPDATE "classrooms_user" SET "email" = %s WHERE "id" = %s', ["x@y", user.pk])
        with prepared.cursor("default") as c:
            c.execute('SELECT "email" FROM "classrooms_user" WHERE "id" = %s', [user.pk])
            assert c.fetchone() == ("x@y",)


def test_without_prepare_threshold_it_is_the_plain_cursor(postgres, monkeypatch):
    # DB_PREPARE=0 (settings): psycopg's prepare_threshold None, nothing prepared.
    connection.ensure_connection()
    monkeypatch.setattr(connection.connection, "prepare_threshold", None)
    user = User.objects.create(username="prepared-three")
    before = _prepared_statements()
    with prepared.cursor("default") as c:
        c.execute('SELECT "username" FROM "classrooms_user" WHERE "id" = %s AND 1 = 1', [user.pk])
        assert c.fetchone() == ("prepared-three",)
    assert _prepared_statements() == before


def test_elsewhere_it_is_the_connections_own_cursor():
    if connection.vendor == "postgresql":
        return  # the three above
    user = User.objects.create(username="prepared-four")
    with prepared.cursor("default") as c:
        c.execute(SQL, [user.pk])
        assert c.fetchone() == ("prepared-four",)
