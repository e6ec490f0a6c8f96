"""A real browser: Playwright driving Debian's Chromium, never a download: its headless shell
(/usr/lib/chromium/chromium-headless-shell, package chromium-headless-shell) where installed,
else /usr/bin/chromium."""

from __future__ import annotations

import asyncio
import os
import shutil

import pytest

from tests.conftest import need_service

# The headless shell is Debian's build of the same Chromium source and version without the
# browser's windows and their UI (what Playwright itself runs for headless); `chromium --headless`
# opens a real browser window (tab strip, toolbar, a renderer for its UI) behind every page.
# Measured here: a new context with its page and first navigation ~0.3 s of CPU in the shell
# against ~1.2 s in chromium, a navigation ~80 ms against ~120 ms; tests/e2e's CPU, all
# processes, ~490 s -> ~280 s. `make test` installs it (Makefile, browser); without it the
# tests run on chromium as before. KAVET_CHROMIUM names another browser.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = os.environ.get("KAVET_CHROMIUM") or (
    HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else "/usr/bin/chromium"
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def playwright_instance():
    need_service(
        os.path.exists(CHROMIUM) or bool(shutil.which("chromium")),
        f"Chromium at {CHROMIUM} (apt-get install chromium chromium-headless-shell; "
        "`make test` does it)",
    )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are
    # synchronous and safe, so Django's async guard is lifted for the browser tests only.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            PLAYWRIGHT_LOOP["loop"] = asyncio._get_running_loop()
            yield p
            playwright_loop_mark()  # for its own closing
    finally:
        PLAYWRIGHT_LOOP.clear()
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


# Playwright's sync API leaves its event loop marked as running in this thread after each call
# (playwright/_impl/_greenlets.py, wait_for_future). Left so after a browser test, a later test of
# the same xdist worker that runs async code of its own (asgiref's async_to_sync under Django's
# AsyncClient, asyncio.run) finds a loop running and fails. The mark is set for the browser tests
# only (and the browser's closing), from the start of a test's setup to the end of its teardown,
# and lifted after it; test_playwright_loop.py checks. (Over the whole of a test, not only while
# its fixtures live: asgiref's Local, behind Django's connections, keeps one state with a running
# loop and another without, and the test database's transaction is opened and rolled back in one.)
PLAYWRIGHT_LOOP: dict[str, asyncio.AbstractEventLoop] = {}


def playwright_loop_mark() -> None:
    if PLAYWRIGHT_LOOP.get("loop") is not None:
        asyncio._set_running_loop(PLAYWRIGHT_LOOP["loop"])


def playwright_loop_lift() -> None:
    if PLAYWRIGHT_LOOP and asyncio._get_running_loop() is PLAYWRIGHT_LOOP["loop"]:
        asyncio._set_running_loop(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    playwright_loop_mark()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    playwright_loop_mark()
    try:
        return (yield)
    finally:
        playwright_loop_lift()


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    playwright_loop_mark()
    browser.close()


@pytest.fixture
def new_context(browser):
    """Make browser contexts (one per tablet); all are closed after the test."""
    contexts = []

    def make(**kwargs):
        kwargs.setdefault("viewport", {"width": 1280, "height": 800})
        context = browser.new_context(**kwargs)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context):
    return new_context().new_page()
