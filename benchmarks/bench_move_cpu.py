"""Server CPU of one move and of the three boards of the table's other tablets, in-process.

    .venv/bin/python benchmarks/bench_move_cpu.py --seed-file /tmp/seed.json [--rounds 150] [--cold]
    .venv/bin/python benchmarks/bench_move_cpu.py --quick   # seeds 8 tables of its own

The tables bench_push.py seeded (its database `kavet_bench_push`, Redis db 9, and its
`--seed-file`). The production ASGI application (`kavet_site.asgi`: the admission gate, the
shared threads, Django) is called in this process with hand-made HTTP requests, as uvicorn
would call it, one at a time: a table's active seat posts "nothing" (or "OK"); its push carries
the table's new board, which each of the three other seats' streams fills in for its tablet
(games/stream.py, timed here on its own); then, for comparison, the three other seats ask for
their new board with their poll request, as table.js does when an event has no board (a
computer player's move, a pause). The CPU of the whole process (every thread) is read around each request,
so it is what a web worker spends on it, without the sockets and HTTP parsing. Beside it, the
bare Django view of benchmarks/urls.py (the yardstick). A machine shared with other work
changes wall times, much less CPU time: compare the milliseconds of CPU, and the ratio to the
bare view in the same run.

--spy FILE: py-spy (not in the lock: `pip install py-spy`) samples this process meanwhile and
writes its collapsed stacks to FILE (the top functions are printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.serve import use_bench_env  # noqa: E402

CSRF = "benchcsrftokenbenchcsrftoken0123"  # bench_push.py's


async def call(app, method: str, path: str, headers: dict, body: bytes = b"") -> tuple[int, bytes]:
    """One HTTP request through the ASGI application; (status, body)."""
    raw_path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")]
        + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False
    out = {"status": 0, "body": []}

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"].append(message.get("body", b""))

    await app(scope, receive, send)
    return out["status"], b"".join(out["body"])


def cpu() -> float:
    return time.process_time()


class Split:
    """--split: the CPU of a move's answer by part, the functions wrapped where the code calls
    them (inclusive: a part called inside another counts in both), and the SQL statements."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.on = False
        self._undo: list = []

    def wrap(self, owner, name: str, label) -> None:
        """`label`: a name, or a function of the call's arguments that names it."""
        original = getattr(owner, name, None)
        if original is None:  # gone from the code (a render moved to Jinja2, ...): not a part
            return

        def wrapped(*args, **kwargs):
            if not self.on:
                return original(*args, **kwargs)
            t = cpu()
            try:
                return original(*args, **kwargs)
            finally:
                part = label if isinstance(label, str) else label(*args)
                self.cpu[part] = self.cpu.get(part, 0.0) + cpu() - t
                self.calls[part] = self.calls.get(part, 0) + 1

        setattr(owner, name, wrapped)
        self._undo.append((owner, name, original))

    def install(self) -> None:
        from django.core.cache import caches
        from django.db.backends.utils import CursorWrapper

        import games.engine
        import games.permissions
        import games.selectors
        import games.services
        from games import push, table_cache

        self.wrap(games.permissions, "table_for_seat", "permission read (table_for_seat)")
        self.wrap(games.services, "move_submit", "move_submit (lock, engine, writes)")
        self.wrap(games.engine, "apply_move", "  engine.apply_move")
        from games.models import Game, Move
        from games.services import moves

        # The move's writes: the ORM's (before issue 38's prepared writes) or the prepared ones.
        self.wrap(Move.objects, "create", "  Move INSERT")
        self.wrap(moves, "move_insert", "  Move INSERT")
        self.wrap(Game, "save", "  game UPDATE")
        self.wrap(moves, "game_update", "  game UPDATE")
        self.wrap(moves, "_record_plays", "  Play rows (_record_plays)")
        self.wrap(CursorWrapper, "_execute", "SQL statements (driver)")
        self.wrap(games.selectors, "table_context", "table context (no seat)")
        self.wrap(games.selectors, "seat_context", "seat contexts")
        self.wrap(table_cache, "_render", lambda kind, template, *_: f"render {template}")
        self.wrap(games.selectors, "render_to_string", lambda template, *_: f"render {template}")
        self.wrap(table_cache, "push_board", "push_board (other seats' parts)")
        backend = type(caches["default"])
        for name in ("get", "get_many", "set", "set_many", "add", "delete"):
            self.wrap(backend, name, "cache (Redis) calls")
        self.wrap(push.RedisBridge, "publish", "publish (Redis)")
        self.wrap(json, "dumps", "JSON (json.dumps, every caller)")
        self.wrap(json, "loads", "JSON (json.loads, every caller)")

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


async def measure(app, seeded: dict, rounds: int, cold: bool, split: Split | None = None) -> dict:
    from urllib.parse import quote

    from asgiref.sync import sync_to_async

    from games.engine.game import GameState, legal_moves
    from games.models import Game

    @sync_to_async(thread_sensitive=False)
    def next_move(game_id: int):
        game = Game.objects.get(pk=game_id)
        state = GameState.from_dict(game.state)
        for seat in range(4):
            for kind in ("nothing", "ok"):
                if kind in legal_moves(state, seat):
                    return game.version, seat, kind
        return None

    @sync_to_async(thread_sensitive=False)
    def forget_shared(game_id: int) -> None:
        # As when the three fetches and the move's own answer all ask at once (the push goes
        # out at the move's commit): none of them finds this version's shared part stored.
        from django.core.cache import cache
        from django.utils import translation

        from games import table_cache
        from games.selectors import HISTORY_MOVES

        game = Game.objects.get(pk=game_id)
        keys = [table_cache._moves_key(game, HISTORY_MOVES)]
        for language in ("en", "fr", "de", "br"):
            keys += [
                table_cache._shared_key(game, f"{name}.{language}") for name in ("told", "history")
            ]
            if hasattr(table_cache, "told_name"):
                keys.append(table_cache._shared_key(game, table_cache.told_name(language)))
            if hasattr(table_cache, "shared_board_key"):  # the table's rendered board
                with translation.override(language):
                    keys.append(table_cache.shared_board_key(game))
        cache.delete_many(keys)

    from games import push, stream

    # The pushes the moves send (still published): their boards, which each other seat's
    # stream fills in for its tablet (games/stream.py) instead of that tablet's fetch.
    sent: list = []
    send = push._send

    def keep(change) -> None:
        sent.append(change)
        send(change)

    push._send = keep
    moves, fetches, filled, bares, failures, sizes, decodes = [], [], [], [], [], [], []
    polls: list[float] = []
    tables = seeded["tables"]
    # Warm: each worker thread's first database connection, the templates, the caches.
    for table in tables[:20]:
        await call(app, "GET", f"/play/{table['game']}/", {"Cookie": table["seats"][0]["cookie"]})
    for _ in range(20):
        await call(app, "GET", "/bench/bare", {})
    i = 0
    while len(moves) < rounds and i < rounds * 3:
        table = tables[i % len(tables)]
        i += 1
        found = await next_move(table["game"])
        if found is None:
            continue
        version, seat, kind = found
        if split is not None:
            split.on = True
        t = cpu()
        status, html = await call(
            app,
            "POST",
            f"/play/{table['game']}/move/",
            {
                "Cookie": table["seats"][seat]["cookie"],
                "X-CSRFToken": CSRF,
                "HX-Request": "true",
                "Content-Type": "application/x-www-form-urlencoded",
            },
            f"seen_version={version}&type={kind}".encode(),
        )
        moves.append(cpu() - t)
        if split is not None:
            split.on = False
        if status != 200 or b'data-applied="1"' not in html:
            failures.append(f"move {status}")
            continue
        change = next(
            (c for c in sent if c.game_id == table["game"] and c.version == version + 1), None
        )
        sent.clear()
        if change is not None and change.board is not None:
            message = push._encode(change)
            sizes.append(len(message))
            t = cpu()  # what every web process does with it (its subscriber: one decode)
            push._decode(message.encode())
            decodes.append(cpu() - t)
        for other in table["seats"]:
            if other["position"] == seat:
                continue
            if change is None or change.board is None:
                failures.append("a push without its board")
            else:
                # What the other seat's stream does with the move's push: its board filled in.
                viewer = stream.Viewer(
                    position=other["position"],
                    language=change.board["language"],
                    token=other["token"],
                    csrf=CSRF,
                )
                t = cpu()
                out = stream._Table(version, viewer).apply([change])
                filled.append(cpu() - t)
                if b'"board": ' not in out:
                    failures.append("an event without the board")
            if cold:
                await forget_shared(table["game"])
            t = cpu()
            status, body = await call(
                app,
                "GET",
                f"/play/{table['game']}/?v={version}&s=running&t={quote(other['token'])}",
                {"Cookie": other["cookie"], "HX-Request": "true", "X-Kavet-Poll": "1"},
            )
            fetches.append(cpu() - t)
            if status != 200 or f'data-version="{version + 1}"'.encode() not in body:
                failures.append(f"fetch {status}")
            # The same tablet's safety poll once its board is current: "nothing new" (204), what
            # a streaming tablet asks about once a minute (static/js/table.js, POLL_SLOW).
            t = cpu()
            status, body = await call(
                app,
                "GET",
                f"/play/{table['game']}/?v={version + 1}&s=running&t={quote(other['token'])}",
                {"Cookie": other["cookie"], "HX-Request": "true", "X-Kavet-Poll": "1"},
            )
            polls.append(cpu() - t)
            if status != 204:
                failures.append(f"poll {status}")
        t = cpu()
        await call(app, "GET", "/bench/bare", {})
        bares.append(cpu() - t)
    push._send = send
    return {
        "moves": moves,
        "fetches": fetches,
        "polls": polls,
        "filled": filled,
        "sizes": sizes,
        "decodes": decodes,
        "bares": bares,
        "failures": failures,
    }


def top_of(stacks: Path, n: int = 25) -> list[tuple[str, float]]:
    own, total = {}, 0
    for line in stacks.read_text().splitlines():
        frames, _, count = line.rpartition(" ")
        if not frames:
            continue
        c = int(count)
        total += c
        for name in set(f.split(" (")[0] for f in frames.split(";")):
            own[name] = own.get(name, 0) + c
    return [(k, v * 100 / total) for k, v in sorted(own.items(), key=lambda kv: -kv[1])[:n]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed-file",
        default="",
        help="bench_push.py's --seed-file; without one (or when it is gone), --tables are seeded",
    )
    parser.add_argument("--tables", type=int, default=200, help="tables to seed, if seeding")
    parser.add_argument("--rounds", type=int, default=150, help="moves (each with 3 fetches)")
    parser.add_argument("--spy", default="", help="py-spy's collapsed stacks here")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="each fetch finds the version's shared part (moves, sentences, history, the table's "
        "rendered board) not stored yet: the fetches and the move's answer at once, each "
        "rendering its own (the upper bound: table_cache makes them wait for one)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="the move's answer's CPU by part (functions wrapped, inclusive) and its statements",
    )
    parser.add_argument("--app", default="kavet_site.asgi:application")
    args = parse_args(parser, quick={"rounds": 10, "tables": 8})
    database = os.environ.setdefault(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kavet_bench_push"
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ.setdefault("KAVET_PUSH_CHANNEL", "kavet:push:bench-" + database.rsplit("/", 1)[-1])
    use_bench_env(database)
    # What gunicorn.conf.py sets for its ASGI workers.
    os.environ["CONN_MAX_AGE"] = "0"
    os.environ.setdefault("DB_POOL", "1")
    seeded = None
    if args.seed_file and Path(args.seed_file).exists():
        seeded = json.loads(Path(args.seed_file).read_text())
    if seeded is None:
        import django

        django.setup()
        from benchmarks.bench_push import seed

        seeded = seed(args.tables, 10)
        if args.seed_file:
            Path(args.seed_file).write_text(json.dumps(seeded))
    module, _, attr = args.app.partition(":")
    app = getattr(__import__(module, fromlist=[attr]), attr)
    spy = None
    if args.spy:
        spy = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(os.getpid())]
            + ["--rate", "500", "--format", "raw", "--output", args.spy, "--nonblocking", "--gil"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)
    split = None
    if args.split:
        split = Split()
        split.install()
    result = asyncio.run(measure(app, seeded, args.rounds, args.cold, split))
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        spy.wait(timeout=30)

    def ms(values: list[float]) -> str:
        if not values:
            return "-"
        return (
            f"mean {statistics.fmean(values) * 1000:.2f} / "
            f"p50 {statistics.median(values) * 1000:.2f} ms"
        )

    bare = statistics.fmean(result["bares"]) if result["bares"] else float("nan")
    move = statistics.fmean(result["moves"])
    fetch = statistics.fmean(result["fetches"]) if result["fetches"] else 0.0
    print(f"{len(result['moves'])} moves, {len(result['fetches'])} fetches, {args.app}")
    print(f"  move answer   CPU {ms(result['moves'])}  ({move / bare:.0f}x the bare view)")
    print(f"  board fetch   CPU {ms(result['fetches'])}  ({fetch / bare:.0f}x the bare view)")
    poll = statistics.fmean(result["polls"]) if result["polls"] else 0.0
    print(
        f"  poll, nothing new (204) CPU {ms(result['polls'])}  ({poll / bare:.1f}x the bare view)"
    )
    print(f"  bare view     CPU {ms(result['bares'])}")
    pushed = statistics.fmean(result["filled"]) if result["filled"] else 0.0
    print(f"  pushed board  CPU {ms(result['filled'])}  (a stream fills the move's board in)")
    if result["sizes"]:
        print(
            f"  the push's message (to every web process through Redis): mean "
            f"{statistics.fmean(result['sizes']) / 1024:.1f} KiB, max "
            f"{max(result['sizes']) / 1024:.1f} KiB; decoded by each process in "
            f"{ms(result['decodes'])}"
        )
    print(
        f"  move + 3 boards filled in from its push (now): {(move + 3 * pushed) * 1000:.1f} ms;"
        f" move + 3 fetches (an event without a board): {(move + 3 * fetch) * 1000:.1f} ms"
    )
    if split is not None:
        n = len(result["moves"])
        print("  the move's answer by part (ms of CPU per move, inclusive; calls per move):")
        for label, spent in sorted(split.cpu.items(), key=lambda kv: -kv[1]):
            print(f"    {spent / n * 1000:6.2f} ms  {split.calls[label] / n:5.1f}  {label}")
    if result["failures"]:
        print(f"  failures: {len(result['failures'])}: {result['failures'][:5]}")
    if spy is not None and Path(args.spy).exists():
        print("py-spy, share of samples with the function on the stack:")
        for name, share in top_of(Path(args.spy)):
            print(f"  {share:5.1f}%  {name}")


if __name__ == "__main__":
    main()
