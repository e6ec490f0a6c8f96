"""The mark Playwright's sync API leaves on its event loop is the browser tests' own
(tests/e2e/conftest.py): lifted, async code of the test's thread runs (the tests after a browser
test on the same worker: AsyncClient, async_to_sync); set again, the browser still answers."""

from __future__ import annotations

import asyncio

from asgiref.sync import async_to_sync

from tests.e2e.conftest import PLAYWRIGHT_LOOP, playwright_loop_lift, playwright_loop_mark


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_the_loop_mark_is_lifted_after_a_browser_test_and_set_for_the_next(page):
    page.set_content("<p>one</p>")
    # Playwright left its loop marked as running here: async_to_sync refuses to run.
    assert asyncio._get_running_loop() is PLAYWRIGHT_LOOP["loop"]
    try:
        async_to_sync(_answer)()
    except RuntimeError as refused:
        assert "event loop" in str(refused)
    else:
        raise AssertionError("async_to_sync ran under Playwright's running loop")

    playwright_loop_lift()  # what the conftest does after each browser test
    assert asyncio._get_running_loop() is None
    assert async_to_sync(_answer)() == 42
    assert asyncio.run(_answer()) == 42

    playwright_loop_mark()  # what it does before the next one
    page.set_content("<p>two</p>")
    assert page.inner_text("p") == "two"
