"""The main pages in Chromium under their Content-Security-Policy: no violation reported, and the
behaviours moved out of inline handlers into static/js/kavet.js still work."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import sign_in_context
from tests.site.test_csp import build_site

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + (e.sample || ""));
});
"""


def _open(new_context, live_server, page_spec):
    context = new_context()
    if page_spec.user is not None:
        sign_in_context(context, live_server, page_spec.user)
    context.add_init_script(WATCH)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.on("pageerror", lambda exc: console.append(f"page error: {exc}"))
    response = page.goto(live_server.url + page_spec.url)
    assert response is not None and response.status == 200, page_spec.name
    return page, console


def _violations(page, console) -> list[str]:
    reported = page.evaluate("() => window.__csp || []")
    said = [
        m
        for m in console
        if "Content Security Policy" in m or "Refused to" in m or "page error" in m
    ]
    return list(reported) + said


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_main_pages_report_no_csp_violation(live_server, new_context, school, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    site = build_site(school)
    for spec in site:
        page, console = _open(new_context, live_server, spec)
        page.wait_for_load_state("load")
        assert page.evaluate("() => typeof window.htmx") == "object", spec.name
        if spec.name == "table page":
            # A push "the table changed" makes the board fetch itself and swap in at once (the
            # timed poll runs every 10 s while the stream is up): htmx at work under the policy.
            with page.expect_response(lambda r: "/play/" in r.url and r.request.method == "GET"):
                page.evaluate(
                    "() => document.dispatchEvent(new CustomEvent('kavet:changed', "
                    "{detail: {version: 1000000}}))"
                )
            page.wait_for_timeout(300)
        if spec.name == "levels":
            boxes = page.locator('input[name="students"]')
            page.check("[data-check-all]")
            assert all(boxes.nth(i).is_checked() for i in range(boxes.count())), spec.name
        if spec.name == "sign-in cards":
            page.evaluate(
                "() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }"
            )
            page.click("[data-print]")
            assert page.evaluate("() => window.__printed") == 1
        if spec.name == "live session":
            page.once("dialog", lambda dialog: dialog.dismiss())
            page.click("[data-confirm]")
            page.wait_for_timeout(300)
            assert "/class-games/" in page.url and page.locator("[data-confirm]").count() == 1
        assert _violations(page, console) == [], spec.name
        page.context.close()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_hostile_move_shows_its_message_on_the_table(live_server, new_context, school, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    table = next(p for p in build_site(school) if p.name == "table page")
    page, console = _open(new_context, live_server, table)
    page.wait_for_selector("#move-form")
    page.evaluate("""() => {
      const f = document.getElementById("move-form");
      const set = (n, v) => { let i = f.querySelector(`input[name=${n}]`);
        if (!i) { i = document.createElement("input"); i.type = "hidden"; i.name = n; f.appendChild(i); }
        i.value = v; };
      set("type", "announce"); set("text", ""); set("tokens", "[".repeat(3990));
      htmx.trigger(f, "submit");
    }""")
    page.wait_for_selector(".news-refused")
    assert "could not be read" in page.inner_text(".news-refused")
    assert _violations(page, console) == []
