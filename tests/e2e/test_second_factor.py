"""A school admin turns on a second factor in a real browser, then signs in with it (issue 39)."""

from __future__ import annotations

import time
from base64 import b32decode

import pytest
from django_otp.oath import TOTP
from playwright.sync_api import expect

from classrooms.audit.models import Action, AuditEvent
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"


def code_from(secret_text: str, *, steps_ahead: int = 0) -> str:
    totp = TOTP(b32decode(secret_text.replace(" ", "")))
    totp.time = time.time() + 30 * steps_ahead
    return f"{totp.token():06d}"


def sign_in(page, base: str) -> None:
    page.goto(base + "/login/")
    page.fill("input[name=username]", "rozenn")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


def test_an_admin_sets_up_a_second_factor_and_signs_in_with_it(page, live_server):
    school = factories.school()
    admin = factories.school_admin(school=school, username="rozenn")
    base = live_server.url
    refused = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)

    sign_in(page, base)
    expect(page.locator("h1")).to_have_text("My classes")
    page.click("nav >> text=Second factor")
    page.click("text=Set up a second factor")
    qr = page.locator("img.totp-qr")
    expect(qr).to_be_visible()
    assert page.evaluate("img => img.naturalWidth > 0", qr.element_handle())  # drawn, CSP let it
    secret = page.locator("code").first.inner_text()
    page.fill("input[name=code]", code_from(secret))
    page.click("button:has-text('Turn it on')")
    expect(page.locator("h1")).to_have_text("Your recovery codes")
    expect(page.locator(".recovery-codes li")).to_have_count(10)

    # Signed out and in again: the code page comes before anything else.
    page.context.clear_cookies()
    sign_in(page, base)
    expect(page.locator("h1")).to_have_text("Your code")
    page.goto(base + "/teacher/")
    expect(page.locator("h1")).to_have_text("Your code")
    page.fill("input[name=code]", "123")
    page.click("button:has-text('Sign in')")
    expect(page.locator(".form-error")).to_contain_text("That code is not right")
    # Not even 6 digits: refused before any device is asked, so no wait follows it.
    page.fill("input[name=code]", code_from(secret, steps_ahead=1))
    page.click("button:has-text('Sign in')")
    expect(page.locator("h1")).to_have_text("My classes")
    assert AuditEvent.objects.filter(action=Action.CODE_FAILED, actor_id=admin.pk).exists()
    assert AuditEvent.objects.filter(action=Action.SECOND_FACTOR_ON, actor_id=admin.pk).exists()
    assert refused == []
