"""A teacher taps "Sign in with ENT", signs in at the school's provider and lands on their page.

The same provider as tests/site/test_oidc_signin.py (a second Django process), in Chromium: the
redirects, cookies of two sites on one host and the sign-in page's CSP all as a browser meets them.
"""

from __future__ import annotations

import re

import pytest

from tests import factories
from tests.oidc_provider import fixtures, serve
from tests.oidc_provider.fixtures import STRANGER, TEACHER

pytestmark = pytest.mark.django_db(transaction=True)

# The provider (a second Django process) and the site's settings pointing at it.
provider = fixtures.provider
oidc = fixtures.oidc


def test_teacher_signs_in_with_the_school_account(live_server, oidc, page):
    school = factories.school()
    factories.teacher(school=school, email=TEACHER[1], first_name="Anna")
    errors: list[str] = []
    # The site's own console errors (the provider's page has no favicon: not ours to judge).
    page.on(
        "console",
        lambda m: (
            m.type == "error"
            and m.location.get("url", "").startswith(live_server.url)
            and errors.append(m.text)
        ),
    )

    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Sign in with ENT").click()
    page.get_by_label("Name").fill(TEACHER[0])
    page.get_by_label("Password").fill(serve.PASSWORD)
    page.get_by_role("button", name="Sign in to the school").click()

    page.wait_for_url(re.compile(rf"^{re.escape(live_server.url)}/teacher/"))
    assert not errors, errors


def test_a_stranger_reads_why_on_the_sign_in_page(live_server, oidc, page):
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Sign in with ENT").click()
    page.get_by_label("Name").fill(STRANGER[0])
    page.get_by_label("Password").fill(serve.PASSWORD)
    page.get_by_role("button", name="Sign in to the school").click()

    page.wait_for_url(f"{live_server.url}/login/")
    assert "No member of staff has the address" in page.locator("#messages").inner_text()
    # The password form is still there, for a teacher who has one.
    assert page.get_by_label("User name").is_visible()
