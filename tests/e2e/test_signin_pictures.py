"""A child signs in on a tablet with NO emoji font: the pictures are the project's own SVG files,
so every button shows its drawing and is found by its word (issue 10)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def _loaded(page, selector):
    page.wait_for_function(
        "s => [...document.querySelectorAll(s)].every(i => i.complete)", arg=selector
    )
    return page.eval_on_selector_all(
        selector, "imgs => imgs.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])"
    )


@pytest.mark.parametrize(
    "viewport", [{"width": 1024, "height": 768}, {"width": 768, "height": 1024}]
)
def test_sign_in_with_three_pictures_found_by_their_word(
    new_context, live_server, viewport, tmp_path
):
    classroom = factories.classroom(school=factories.school())
    factories.student(
        classroom=classroom, name="Anna", picture_code="13-4-15"
    )  # turtle sun rainbow
    page = new_context(viewport=viewport).new_page()
    page.goto(live_server.url + "/tablet/")
    page.fill("#class-code", classroom.code)
    page.click("button[type=submit]")
    page.click("a.name-btn:has-text('Anna')")
    # The name is a link: wait for the pictures' page, not the names' page being left (an empty
    # list of images on the old page is "all loaded").
    expect(page.locator("button.picture-btn img")).to_have_count(16)
    images = _loaded(page, "button.picture-btn img")
    assert len(images) == 16 and all(ok for _src, ok in images), images
    page.screenshot(path=str(tmp_path / f"signin-{viewport['width']}.png"))
    for count, word in enumerate(("turtle", "sun", "rainbow"), start=1):
        page.get_by_role("button", name=word, exact=True).click()
        if word != "rainbow":
            # Each tap is a plain post: wait for the answer's page, not the page being left.
            expect(page.locator(".slot.filled img")).to_have_count(count)
            filled = _loaded(page, ".slot.filled img")
            assert filled and all(ok for _src, ok in filled), filled
    page.wait_for_url("**/me/")
    expect(page.locator("h1")).to_have_text("Hello Anna!")
    # The home's "How to play" link carries its picture too.
    assert all(ok for _src, ok in _loaded(page, "img.pic"))
