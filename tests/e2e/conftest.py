"""A real browser: Playwright driving Debian's Chromium (/usr/bin/chromium), never a download."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import need_service

CHROMIUM = os.environ.get("KAVET_CHROMIUM", "/usr/bin/chromium")
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
        f"Chromium at {CHROMIUM} (apt-get install chromium; `make test` does it)",
    )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are
    # synchronous and safe, so Django's async guard is lifted for the browser tests only.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            yield p
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
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
