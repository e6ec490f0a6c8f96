"""CPU of the table's board renders: Django's templates beside Jinja2 (games.board), issue 38.

    .venv/bin/python benchmarks/bench_board_render.py                # 30 rounds of each render
    .venv/bin/python benchmarks/bench_board_render.py --quick        # 3 rounds
    .venv/bin/python benchmarks/bench_board_render.py --language fr

The fragments a move renders (games.table_cache): the table's board once per version (the
table's context with no seat, the stand-in marks), and each seat's own parts once per version
and seat ("whose turn", the held cards and the move form); and the whole board of a practice
game ("Learn to play", one tablet, never shared). Each is rendered from the same context by
Django's templates as they were before the board moved to Jinja2 (templates/games/table.html,
_ruling.html, _coach.html and tutorial_done.html read from git at --before, in an engine of
their own configured as the site's: the partials loader over the cached loader) and by
games.board, one after the other, for every state of the table catalogue (games.catalogue,
tests/games/board_cases.py), each pair checked byte for byte. CPU time of this process
(time.process_time) per render; beside it, in the same run, the bare Django view of
benchmarks/urls.py called through the test client (the yardstick: the machine is shared and
its speed varies, the ratios less).

A move's renders: 1 board + 4 × (whose turn + move form), the figure of benchmarks/README.md
(a table of four seats with a tablet each; the catalogue's tables have three and a computer).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import use_bench_env  # noqa: E402
from benchmarks.stats import pct  # noqa: E402

BEFORE = "3f20347"  # the last commit with the board in Django's templates
OLD_TEMPLATES = [
    "templates/games/table.html",
    "templates/games/_ruling.html",
    "templates/games/_coach.html",
    "templates/games/tutorial_done.html",
]
KINDS = {  # what is timed: the kind of render, and the states it is timed over
    "shared": ("board (shared, once per version)", "class"),
    "whose_turn": ("whose turn (per seat)", "class"),
    "actions": ("held cards + move form (per seat)", "class"),
    "whole": ("whole board (practice game)", "practice"),
}


def cpu() -> float:
    return time.process_time()


def django_engine(before: str, folder: Path):
    """A Django template engine as the site's, reading the board's templates as they were at
    commit `before` (before the site's own templates folder)."""
    from django.conf import settings
    from django.template import Engine
    from django.template.backends.django import get_installed_libraries

    for name in OLD_TEMPLATES:
        text = subprocess.run(
            ["git", "show", f"{before}:{name}"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        target = folder / Path(name).relative_to("templates")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
    loaders = ["django.template.loaders.filesystem.Loader"]
    loaders.append("django.template.loaders.app_directories.Loader")
    return Engine(
        dirs=[str(folder), str(ROOT / "templates")],
        loaders=[
            (
                "template_partials.loader.Loader",
                [("django.template.loaders.cached.Loader", loaders)],
            )
        ],
        context_processors=settings.TEMPLATES[0]["OPTIONS"]["context_processors"],
        libraries=get_installed_libraries(),
    )


def renderers(engine):
    from django.template.context import make_context

    from games import board

    templates = {
        kind: engine.get_template(f"games/table.html#{part}")
        for kind, part in (
            ("shared", "board"),
            ("whole", "board"),
            ("whose_turn", "whose_turn"),
            ("actions", "actions"),
        )
    }

    def with_django(case) -> str:
        return str(templates[case.kind].render(make_context(case.ctx, case.request)))

    def with_jinja(case) -> str:
        if case.kind in ("shared", "whole"):
            return board.render_board(case.ctx, case.request)
        if case.kind == "whose_turn":
            return board.render_whose_turn(case.ctx)
        return board.render_actions(case.ctx)

    return with_django, with_jinja


def measure(rounds: int, language: str, before: str) -> dict:
    from django.test import Client
    from django.utils import translation

    from games import catalogue
    from tests.games.board_cases import cases

    client = Client(HTTP_HOST="127.0.0.1")
    times = {kind: {"django": [], "jinja": []} for kind in KINDS}
    bares: list[float] = []
    mismatches: list[str] = []
    with tempfile.TemporaryDirectory() as folder, translation.override(language):
        with_django, with_jinja = renderers(django_engine(before, Path(folder)))
        for _ in range(20):
            client.get("/bench/bare")
        for name, entry in catalogue.states().items():
            with cases(name) as made:
                timed = [c for c in made if c.kind in KINDS and KINDS[c.kind][1] == entry.kind]
                for case in timed:  # warm, and the same bytes
                    if with_django(case) != with_jinja(case):
                        mismatches.append(f"{name} {case.kind} {case.seat}")
                for _ in range(rounds):
                    for case in timed:
                        t = cpu()
                        with_django(case)
                        times[case.kind]["django"].append(cpu() - t)
                        t = cpu()
                        with_jinja(case)
                        times[case.kind]["jinja"].append(cpu() - t)
                    t = cpu()
                    client.get("/bench/bare")
                    bares.append(cpu() - t)
    return {"times": times, "bares": bares, "mismatches": mismatches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="renders of each case")
    parser.add_argument("--language", default="en", choices=["en", "fr", "de"])
    parser.add_argument("--before", default=BEFORE, help="the commit of Django's templates")
    args = parse_args(parser, quick={"rounds": 3})
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/12")
    use_bench_env("postgres://postgres@127.0.0.1:5432/kavet_bench_board")
    import django

    django.setup()
    result = measure(args.rounds, args.language, args.before)
    bare = statistics.fmean(result["bares"])

    def ms(values: list[float]) -> float:
        return statistics.fmean(values) * 1000

    print(
        f"CPU per render, mean (p50) over the catalogue's states, {args.rounds} rounds, "
        f"language {args.language}; Django's templates at {args.before} vs games.board (Jinja2)"
    )
    print(
        f"  {'fragment':36} {'renders':>7}  {'Django ms':>15}  {'Jinja2 ms':>15}  "
        f"{'Django/Jinja2':>13}  {'× bare view':>13}"
    )
    means = {}
    for kind, (label, _states) in KINDS.items():
        d, j = result["times"][kind]["django"], result["times"][kind]["jinja"]
        if not d:
            continue
        means[kind] = (ms(d), ms(j))
        print(
            f"  {label:36} {len(d):7d}  {ms(d):7.3f} ({pct(d, 50) * 1000:5.3f})  "
            f"{ms(j):7.3f} ({pct(j, 50) * 1000:5.3f})  {ms(d) / ms(j):12.1f}x  "
            f"{ms(d) / 1000 / bare:5.1f} / {ms(j) / 1000 / bare:4.1f}"
        )
    print(
        f"  bare Django view (the yardstick): {bare * 1000:.3f} ms ({len(result['bares'])} calls)"
    )
    if all(k in means for k in ("shared", "whose_turn", "actions")):
        move = {
            engine: means["shared"][i] + 4 * (means["whose_turn"][i] + means["actions"][i])
            for i, engine in enumerate(("django", "jinja"))
        }
        print(
            f"  a move's renders, 1 board + 4 × (whose turn + move form): Django "
            f"{move['django']:.2f} ms ({move['django'] / 1000 / bare:.1f}x the bare view), "
            f"Jinja2 {move['jinja']:.2f} ms ({move['jinja'] / 1000 / bare:.1f}x): "
            f"{move['django'] / move['jinja']:.1f}x quicker, "
            f"{move['django'] - move['jinja']:.2f} ms less"
        )
    if result["mismatches"]:
        print(f"  NOT THE SAME BYTES: {len(result['mismatches'])}: {result['mismatches'][:5]}")
        sys.exit(1)
    print("  every render pair the same bytes")


if __name__ == "__main__":
    main()
