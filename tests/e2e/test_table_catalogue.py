"""Every state of the table catalogue (games.catalogue), for every seat with a tablet, at the four
screen sizes of issue 40: every control the child may use and the whole ruling panel are inside
the window with the page at the top (nothing to scroll), every touch target is at least 44 × 44
px, and axe-core finds no serious or critical issue.

The tables are rendered in this process and served from memory to one browser page
(games.catalogue_pages): a state is one navigation with no server round trip, and the sizes are
a resize of the same document. axe-core is inlined into the page, which the site's CSP would
refuse, so this context bypasses the CSP as tests/e2e/test_accessibility.py does (the CSP is
checked by tests/e2e/test_csp.py under the real policy).
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games import catalogue, catalogue_pages, engine
from tests.e2e.test_accessibility import AXE

pytestmark = pytest.mark.django_db

# Where a control sits and how big it is, for what the child may tap (enabled, rendered), and
# the ruling panel's box; the document's scroll height. One evaluate per state and size.
MEASURE = """() => {
  const tappable = 'button:not([disabled]), a[href], select:not([disabled]), summary, label.place,'
    + ' input:not([type=hidden]):not([disabled]):not([type=radio])';
  const seen = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const name = (el) => (el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : el.tagName)
    + ' "' + (el.innerText || el.getAttribute('aria-label') || el.value || '').trim().slice(0, 24) + '"';
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, r.width, r.height]; };
  // (the skip link sits off-screen until it has the focus)
  const controls = [...document.querySelectorAll(tappable)].filter(seen)
    .filter((el) => !el.matches('.skip-link'))
    .filter((el) => !el.closest('details:not([open]) > :not(summary)'))
    .map((el) => [name(el), box(el)]);
  const panels = [...document.querySelectorAll('.ruling, .end-screen, .banner-paused')].filter(seen)
    .map((el) => [name(el), box(el), el.scrollHeight - el.clientHeight]);
  return {controls, panels, scroll: document.scrollingElement.scrollHeight,
          top: window.scrollY, width: innerWidth, height: innerHeight};
}"""


def problems_of(measured: dict, where: str) -> list[str]:
    w, h = measured["width"], measured["height"]
    found = []
    if measured["scroll"] > h or measured["top"]:
        found.append(f"{where}: the page scrolls ({measured['scroll']} > {h})")
    for label, (left, top, right, bottom, width, height) in measured["controls"]:
        if left < -0.5 or top < -0.5 or right > w + 0.5 or bottom > h + 0.5:
            found.append(f"{where}: {label} is outside the window {[left, top, right, bottom]}")
        if width < 44 - 0.5 or height < 44 - 0.5:
            found.append(f"{where}: {label} is a small target ({width:.0f} × {height:.0f})")
    for label, (left, top, right, bottom, _w, _h), hidden in measured["panels"]:
        if left < -0.5 or top < -0.5 or bottom > h + 0.5 or right > w + 0.5:
            found.append(f"{where}: {label} is cut by the window {[top, bottom]}")
        if hidden > 1:
            found.append(f"{where}: {label} hides {hidden}px of itself (it scrolls)")
    return found


def axe_serious(page, pages) -> list[str]:
    """axe-core's serious and critical violations (violations only: much quicker than a full
    run), the script served by `pages` (so the browser compiles it once)."""
    page.add_script_tag(url=pages.origin + "/axe.min.js")
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): " + ", ".join(str(n["target"]) for n in v["nodes"])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_every_state_fits_every_tablet_at_every_size_with_no_axe_issue(browser):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    context = browser.new_context(bypass_csp=True, reduced_motion="reduce")
    context.set_default_timeout(10_000)
    page = context.new_page()
    problems: list[str] = []
    checked = 0
    with catalogue_pages.Pages(files={"/axe.min.js": AXE}) as pages:
        for name, entry in catalogue.states().items():
            axed: set[tuple[str, ...]] = set()
            for position in entry.tablets():
                who = entry.names[position]
                page.set_viewport_size({"width": 1024, "height": 768})
                pages.show(page, name, position)
                assert page.locator("#board").count() == 1, f"{name} for {who}: no board"
                for size, (width, height) in catalogue_pages.SIZES.items():
                    page.set_viewport_size({"width": width, "height": height})
                    problems += problems_of(page.evaluate(MEASURE), f"{name} for {who} at {size}")
                    checked += 1
                # axe once per different set of controls of the state (the seats that may do
                # the same look the same); the sizes above once per seat.
                controls = tuple(engine.legal_moves(entry.state, position))
                if controls not in axed:
                    axed.add(controls)
                    problems += [f"{name} for {who}: axe {v}" for v in axe_serious(page, pages)]
    context.close()
    assert checked >= 4 * 3 * 15  # the whole catalogue was seen
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


@pytest.mark.parametrize("language", ["fr", "de"])
def test_every_state_fits_in_french_and_german(browser, language):
    # Longer words than English: the two tightest sizes, once per different set of controls.
    context = browser.new_context(reduced_motion="reduce", locale=language)
    page = context.new_page()
    problems: list[str] = []
    with catalogue_pages.Pages() as pages, translation.override(language):
        for name, entry in catalogue.states().items():
            shown: set[tuple[str, ...]] = set()
            for position in entry.tablets():
                controls = tuple(engine.legal_moves(entry.state, position))
                if controls in shown:
                    continue
                shown.add(controls)
                page.set_viewport_size({"width": 1024, "height": 768})
                pages.show(page, name, position)
                for size in ("1024x768", "768x1024"):
                    width, height = catalogue_pages.SIZES[size]
                    page.set_viewport_size({"width": width, "height": height})
                    where = f"{language}: {name} for {entry.names[position]} at {size}"
                    problems += problems_of(page.evaluate(MEASURE), where)
    context.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + (e.sample || ""));
});
"""


def test_no_state_of_the_table_breaks_the_content_security_policy(browser, client):
    # The site's own policy (django-csp), as a tablet receives it with the table.
    policy = client.get("/tablet/").headers["Content-Security-Policy"]
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(WATCH)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.on("pageerror", lambda exc: console.append(f"page error: {exc}"))
    found = []
    with catalogue_pages.Pages(policy=policy) as pages:
        for name, entry in catalogue.states().items():
            shown: set[tuple[str, ...]] = set()
            for position in entry.tablets():
                controls = tuple(engine.legal_moves(entry.state, position))
                if controls in shown:  # the same controls: the same markup, other names
                    continue
                shown.add(controls)
                console.clear()
                # A violation is told when the page is parsed and its scripts start (what they
                # animate then starts too); the animations are not waited for here: the end's,
                # the longest, is played to its end and again under this policy below
                # (test_the_ends_penalties_fly_...), the ruling's flash is CSS.
                pages.show(page, name, position, settled=False)
                said = [m for m in console if "Content Security Policy" in m or "page error" in m]
                found += [f"{name}/{position}: {v}" for v in page.evaluate("window.__csp") + said]
    context.close()
    assert found == []


VOICE = """
window.__said = [];
window.SpeechSynthesisUtterance = function (text) { this.text = text; };
Object.defineProperty(window, "speechSynthesis", { value: {
  cancel: function () {},
  speak: function (u) { window.__said.push(u.text); setTimeout(function () { if (u.onend) u.onend(); }, 10); }
} });
"""
# Each card of the end's lanes: where it is, where its lane's giver and receiver are, and the
# transform its running animation starts from (none when it is not moving).
LANES = """() => [...document.querySelectorAll('.settle-step')].map((step) => ({
  waiting: step.classList.contains('is-waiting'),
  from: step.querySelector('.settle-from').getBoundingClientRect().toJSON(),
  to: step.querySelector('.settle-to').getBoundingClientRect().toJSON(),
  cards: [...step.querySelectorAll('.settle-card')].map((card) => ({
    box: card.getBoundingClientRect().toJSON(),
    visible: getComputedStyle(card).visibility === 'visible',
    moves: card.getAnimations().map((a) => a.effect.getKeyframes()[0].transform || 'none'),
  })),
}))"""


def test_the_ends_penalties_fly_from_giver_to_receiver_and_are_said_step_by_step(browser, client):
    # R6.2: the settlements one after the other, each step's cards flying from the giver to the
    # receiver; "See again" plays it again with each step said (games/speech.py's words, the
    # voice waiting for each) and then the ranking. No time is asserted: the test waits for the
    # end of the play, whatever it takes. Under the site's own policy: nothing the play does
    # (the cards' moves, the voice, "See again") breaks it.
    entry = catalogue.states()["over-penalties"]
    policy = client.get("/tablet/").headers["Content-Security-Policy"]
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(VOICE)
    context.add_init_script(WATCH)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    with catalogue_pages.Pages(policy=policy) as pages:
        pages.show(page, "over-penalties", 0, settled=False)
        lanes = page.evaluate(LANES)
        assert len(lanes) == 5
        first, *later = lanes
        assert not first["waiting"] and all(lane["waiting"] for lane in later)
        assert all(card["moves"] and card["moves"][0] != "none" for card in first["cards"])
        assert not any(card["visible"] for lane in later for card in lane["cards"])
        page.wait_for_selector(".settle.is-played", timeout=60_000)
        assert page.evaluate("window.__said") == []  # opened on the end: played, not said
        for lane in page.evaluate(LANES):  # the end state: every card beside its receiver
            assert not lane["waiting"]
            for card in lane["cards"]:
                assert card["visible"] and card["moves"] == []
                assert lane["from"]["right"] < card["box"]["left"]
                assert card["box"]["right"] <= lane["to"]["left"]
        replay = page.locator("[data-settle-replay]")
        box = replay.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44
        replay.click()
        page.wait_for_selector(".settle.is-playing")
        page.wait_for_selector(".settle.is-played", timeout=60_000)
        page.wait_for_function("window.__said.length >= 7")
        said = page.evaluate("window.__said")
        steps = page.locator(".settle-step").evaluate_all("(s) => s.map((e) => e.dataset.speech)")
        ranking = page.locator(".ranking").get_attribute("data-speech")
        assert said == ["The game is over!", *steps, ranking]
        assert len(steps) == len([i for i in entry.state.result["settlements"] if i["count"]])
        assert page.evaluate("window.__csp") + errors == []
    context.close()


def test_with_reduced_motion_the_end_state_fades_in(browser):
    context = browser.new_context(viewport={"width": 768, "height": 1024}, reduced_motion="reduce")
    page = context.new_page()
    with catalogue_pages.Pages() as pages:
        pages.show(page, "over", 0, settled=False)
        lanes = page.evaluate(LANES)
        assert page.locator(".settle.is-fading").count() == 1
        assert all(not lane["waiting"] for lane in lanes)
        assert all(
            card["visible"] and not card["moves"] for lane in lanes for card in lane["cards"]
        )
    context.close()
