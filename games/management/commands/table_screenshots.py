"""Screenshots of every state of the table catalogue (games.catalogue) for every tablet.

    manage.py table_screenshots [--out docs/screenshots/states] [--size 1024x768 --size 768x1024]

Playwright on Debian's Chromium (KAVET_CHROMIUM, default /usr/bin/chromium); nothing is
written to the database (each state is rendered in a transaction rolled back). The PNGs are
reduced to 64 colours (Pillow) so they stay small enough to commit.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from games import catalogue, catalogue_pages

DEFAULT_SIZES = ["1024x768", "768x1024"]


class Command(BaseCommand):
    help = "Screenshot every state of the table catalogue for every tablet, at each size."

    def add_arguments(self, parser):
        parser.add_argument(
            "--out", default=str(Path(settings.BASE_DIR) / "docs/screenshots/states")
        )
        parser.add_argument("--size", action="append", choices=list(catalogue_pages.SIZES))
        parser.add_argument("--state", action="append", help="only these states (by name)")
        parser.add_argument("--language", default="en", choices=[c for c, _n in settings.LANGUAGES])

    def handle(self, *args, **options):
        from PIL import Image
        from playwright.sync_api import sync_playwright

        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        sizes = options["size"] or DEFAULT_SIZES
        states = catalogue.states()
        names = options["state"] or list(states)
        unknown = sorted(set(names) - set(states))
        if unknown:
            raise CommandError(f"No such state: {', '.join(unknown)}")
        chromium = os.environ.get("KAVET_CHROMIUM", "/usr/bin/chromium")
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's loop thread
        count = 0
        language = options["language"]
        suffix = "" if language == "en" else f".{language}"
        with (
            sync_playwright() as p,
            catalogue_pages.Pages() as pages,
            translation.override(language),
        ):
            browser = p.chromium.launch(
                executable_path=chromium, headless=True, args=["--no-sandbox"]
            )
            for size in sizes:
                width, height = catalogue_pages.SIZES[size]
                context = browser.new_context(
                    viewport={"width": width, "height": height}, reduced_motion="reduce"
                )
                page = context.new_page()
                for name in names:
                    for position in states[name].tablets():
                        pages.show(page, name, position)
                        # (the end's settlements fade in: the picture once they are in place)
                        page.evaluate(
                            "Promise.all(document.getAnimations().filter((a) =>"
                            " a.effect.getComputedTiming().endTime < Infinity)"
                            ".map((a) => a.finished))"
                        )
                        path = (
                            out
                            / f"{name}.{states[name].names[position].lower()}.{size}{suffix}.png"
                        )
                        page.screenshot(path=str(path))
                        image = Image.open(path).convert("RGB")
                        image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(
                            path, optimize=True
                        )
                        count += 1
                context.close()
            browser.close()
        self.stdout.write(f"{count} screenshots in {out}")
