"""The solver's speed on random tables, beside a plain exhaustive search (issue 2 targets).

    python benchmarks/bench_solver.py [--tables 2000] [--quick]

Fixed seeds; the solver's memo is cleared before each section, so its figures include the
warm-up a fresh server process would pay. The baseline is the textbook search: pick two
values, combine them with every operator, recurse, for every result card and operand subset,
smallest first, with exact fractions and the tier's bounds, and X cards tried value by value.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.quick import parse_args  # noqa: E402
from benchmarks.reference import reference_step  # noqa: E402
from games.engine import DeckSpec, RuleSet, best_operation, build_deck, can_make, find_operation  # noqa: E402
from games.engine.solver import clear_caches  # noqa: E402

BASELINE_LIMIT = 2.0  # seconds per call before the baseline is counted as timed out


class _Timeout(Exception):
    pass


# --- the straightforward exhaustive search -------------------------------------------------


def _makes(
    values: list[Fraction], target: Fraction | None, rules: RuleSet, deadline: float
) -> bool:
    """Pick two, combine, recurse; target None means any whole value in the X range."""
    if time.perf_counter() > deadline:
        raise _Timeout
    if len(values) == 1:
        v = values[0]
        if target is None:
            return v.denominator == 1 and rules.x_low <= v <= rules.x_high
        return v == target
    for i, j in combinations(range(len(values)), 2):
        rest = [v for k, v in enumerate(values) if k not in (i, j)]
        for sym in rules.operators or "":
            for a, b in ((values[i], values[j]), (values[j], values[i])):
                v = reference_step(sym, a, b, rules)
                if v is not None and _makes([*rest, v], target, rules, deadline):
                    return True
    return False


def _x_choices(combo: Sequence[Any], rules: RuleSet) -> Any:
    n_x = sum(c == "X" for c in combo)
    values = range(rules.x_low, rules.x_high + 1)
    for chosen in combinations_with_replacement(values, n_x) if n_x else [()]:
        it = iter(chosen)
        yield [Fraction(next(it)) if c == "X" else Fraction(c) for c in combo]


def baseline_largest(cards: list[Any], rules: RuleSet, *, largest: bool) -> int:
    """Cards in the first (smallest) or the largest operation found; 0 for nothing."""
    deadline = time.perf_counter() + BASELINE_LIMIT
    n = len(cards)
    sizes = range(n - 1, 1, -1) if largest else range(2, n)
    for size in sizes:
        for r in range(n):
            others = [c for k, c in enumerate(cards) if k != r]
            target = None if cards[r] == "X" else Fraction(cards[r])
            for combo in combinations(others, size):
                for values in _x_choices(combo, rules):
                    if _makes(values, target, rules, deadline):
                        return size + 1
    return 0


# --- measuring -----------------------------------------------------------------------------


def _deal(rng: random.Random, deck: list[Any], size: int) -> list[Any]:
    return rng.sample(deck, size)


def _time(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _row(name: str, times: list[float], extra: str = "") -> None:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(
        f"{name:<44} {len(ms):>6} {statistics.median(ms):>9.3f} {p99:>9.3f} {ms[-1]:>9.3f}  {extra}"
    )


def _header(title: str) -> None:
    print(f"\n{title}")
    print(f"{'':<44} {'n':>6} {'median':>9} {'p99':>9} {'max':>9}  (ms)")


def bench_find(tables: int, quick: bool) -> None:
    _header(
        '"Is there anything to do?" on random tables of 3-12 cards (dealt from the 52-card deck)'
    )
    deck = [c.label for c in build_deck(DeckSpec()) if c.kind != "event"]
    deck = [c if c == "X" else int(c) for c in deck]
    no_x_deck = [c for c in deck if c != "X"]
    for tier in (1, 2, 3):
        rules = RuleSet(tier=tier)
        for label, source in (("with X", deck), ("no X", no_x_deck)):
            rng = random.Random(1000 + tier)
            clear_caches()
            times: list[float] = []
            nothing = 0
            for _ in range(tables):
                cards = _deal(rng, source, rng.randint(3, 12))
                t, op = _time(lambda cards=cards, rules=rules: find_operation(cards, rules))
                times.append(t)
                nothing += op is None
            _row(f"find_operation tier {tier} ({label})", times, f"nothing to do: {nothing}")
        # Beside the baseline, on X-free tables (the baseline tries X values one by one).
        rng = random.Random(2000 + tier)
        sample = [_deal(rng, no_x_deck, rng.randint(3, 12)) for _ in range(100 if quick else 300)]
        clear_caches()
        ours = [_time(lambda c=c, rules=rules: find_operation(c, rules))[0] for c in sample]
        base: list[float] = []
        timeouts = 0
        for cards in sample:
            try:
                t, size = _time(
                    lambda c=cards, rules=rules: baseline_largest(c, rules, largest=False)
                )
            except _Timeout:
                timeouts += 1
                continue
            base.append(t)
            op = find_operation(cards, rules)
            assert size == (op.n_cards if op else 0), (cards, size, op)  # same answer
        _row(f"  solver, tier {tier}, baseline sample", ours)
        ratio = sum(base) / max(sum(ours), 1e-9)
        _row(
            f"  exhaustive baseline, tier {tier}", base, f"x{ratio:.0f} slower; timeouts {timeouts}"
        )


def bench_best(tables: int, quick: bool) -> None:
    _header("best_operation on random 10-card tables (dealt without X)")
    deck = [c.value for c in build_deck(DeckSpec()) if c.kind == "number"]
    for tier, count in ((2, tables // 4), (3, tables // 20)):
        rules = RuleSet(tier=tier)
        rng = random.Random(3000 + tier)
        sample = [_deal(rng, deck, 10) for _ in range(count)]
        clear_caches()
        times = [_time(lambda c=c, rules=rules: best_operation(c, rules))[0] for c in sample]
        sizes = [best_operation(c, rules).n_cards for c in sample]  # type: ignore[union-attr]
        _row(f"best_operation tier {tier}", times, f"mean trick {statistics.mean(sizes):.1f} cards")
    rules = RuleSet(tier=2)
    rng = random.Random(4000)
    sample = [_deal(rng, deck, 10) for _ in range(5 if quick else 12)]
    clear_caches()
    ours = [_time(lambda c=c: best_operation(c, rules))[0] for c in sample]
    base: list[float] = []
    timeouts = 0
    for cards in sample:
        try:
            base.append(_time(lambda c=cards: baseline_largest(c, rules, largest=True))[0])
        except _Timeout:
            timeouts += 1
            base.append(BASELINE_LIMIT)
    _row("  solver, tier 2, baseline sample", ours)
    ratio = sum(base) / max(sum(ours), 1e-9)
    _row(
        "  exhaustive baseline, tier 2",
        base,
        f"x{ratio:.0f} slower (at least); timeouts {timeouts}",
    )


def bench_24() -> None:
    _header("The 24 game: all 1,820 hands of four numbers 1-13, + - * / with fractions")
    rules = RuleSet(max_number=20, tier=3, operators="+-*/")
    hands = list(combinations_with_replacement(range(1, 14), 4))
    clear_caches()
    t, solvable = _time(lambda: sum(can_make(h, 24, rules, use_all=True) for h in hands))
    print(
        f"{'can_make, all hands (total)':<44} {len(hands):>6} {t * 1000:>9.1f} ms   solvable: {solvable}"
    )
    deadline = float("inf")
    t_base, base_solvable = _time(
        lambda: sum(_makes([Fraction(v) for v in h], Fraction(24), rules, deadline) for h in hands)
    )
    print(
        f"{'exhaustive baseline (total)':<44} {len(hands):>6} {t_base * 1000:>9.1f} ms   "
        f"solvable: {base_solvable}, x{t_base / t:.1f} slower"
    )


CAN_MAKE_LIMIT = 10.0  # seconds per can_make call before it is counted as over the limit


def _capped(fn: Callable[[], Any], limit: float) -> tuple[float, Any]:
    """(seconds, answer), the answer None when the call ran past `limit` (SIGALRM, Unix)."""
    import signal

    def stop(*_: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        out = fn()
    except _Timeout:
        out = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return time.perf_counter() - start, out


def bench_can_make(quick: bool) -> None:
    """Issue 13: can_make on eight operands, random targets over the tier's whole range."""
    from games.engine.reach import _WholeReach
    from games.engine.solver import _operand_sets

    limit = 2.0 if quick else CAN_MAKE_LIMIT
    per_case = 4 if quick else 40
    _header(
        "can_make on 8 operands (cards 0-20, 0-2 of them X), random targets in the tier's range, "
        f"cold; capped at {limit:.0f} s a call"
    )
    for tier in (1, 2, 3):
        rules = RuleSet(max_number=20, tier=tier)
        for n_x in (0, 1, 2):
            for use_all in (False, True):
                rng = random.Random(13_000 + 100 * tier + 10 * n_x + use_all)
                times: list[float] = []
                yes = over = fractions_needed = 0
                worst: tuple[float, Any] = (0.0, None)
                for _ in range(per_case):
                    operands = [rng.randint(0, 20) for _ in range(8 - n_x)] + ["X"] * n_x
                    target = rng.randint(rules.x_low, rules.x_high)
                    clear_caches()
                    t, answer = _capped(
                        lambda o=operands, g=target, r=rules, u=use_all: can_make(
                            o, g, r, use_all=u
                        ),
                        limit,
                    )
                    times.append(t)
                    yes += answer is True
                    over += answer is None
                    if t > worst[0]:
                        worst = (t, (operands, target))
                    if tier == 3 and answer is not True:
                        # Answered (or still searching) past the whole-number bit sets.
                        whole = _WholeReach(rules)
                        ms = tuple(sorted(-1 if v == "X" else v for v in operands))
                        sizes = [8] if use_all else range(8, 1, -1)
                        fractions_needed += not any(
                            whole.has(sub, target) for k in sizes for sub in _operand_sets(ms, k)
                        )
                extra = f"yes {yes}, over the cap {over}"
                if tier == 3:
                    extra += f", past whole steps {fractions_needed}"
                extra += f"; worst {worst[1]}"
                _row(f"tier {tier}, {n_x} X, use_all={use_all}", times, extra)
    bench_tier3_mixed_operators(quick, limit)
    bench_tier3_slowest_class(quick, limit)
    bench_tier3_past_whole_steps(quick, limit)


def _yardstick_run_ms() -> float:
    """The same pure-Python work every time: the exhaustive baseline solving 3 3 8 8 = 24."""
    rules = RuleSet(tier=3, operators="+-*/")
    hand = [Fraction(v) for v in (3, 3, 8, 8)]
    return _time(lambda: _makes(hand, Fraction(24), rules, float("inf")))[0] * 1000


def _yardstick_ms() -> float:
    """The yardstick of a section: the median of 7 runs."""
    return statistics.median(_yardstick_run_ms() for _ in range(7))


def _ratio_row(name: str, times: list[float], yard: float, extra: str = "") -> None:
    if not times:
        print(f"{name:<44} {0:>6}  (none)")
        return
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    med = statistics.median(ms)
    print(
        f"{name:<44} {len(ms):>6} {med:>9.1f} {p95:>9.1f} {ms[-1]:>9.1f}  "
        f"x yardstick: {med / yard:.0f} / {p95 / yard:.0f} / {ms[-1] / yard:.0f}  {extra}"
    )


def _cold_report(title: str, cases: Any, limit: float, repeats: int) -> None:
    """Each (operands, target, rules, use_all) of `cases` cold and capped, its fastest of
    `repeats` runs (a shared machine only ever adds time); one line of median, p95, p99 and
    max, in ms and as ratios, and the slowest case. Each case's ratio is to the yardstick run
    just before each of its runs (the fastest of them): on a shared machine the yardstick
    was seen to move between 9.4 and 24 ms within a minute, so one yardstick for the whole
    run, or one every few cases, does not say how fast the machine was for this case."""
    times: list[float] = []
    ratios: list[float] = []
    yards: list[float] = []
    yes = over = 0
    worst: tuple[float, Any] = (0.0, None)
    for operands, target, rules, use_all in cases:
        best = yard = float("inf")
        for _ in range(repeats):
            yard = min(yard, _yardstick_run_ms())
            clear_caches()
            t, answer = _capped(
                lambda o=operands, g=target, r=rules, u=use_all: can_make(o, g, r, use_all=u),
                limit,
            )
            best = min(best, t)
            if answer is None:
                break  # over the cap: once is enough
        times.append(best)
        yards.append(yard)
        ratios.append(best * 1000 / yard)
        yes += answer is True
        over += answer is None
        if ratios[-1] > worst[0]:
            worst = (ratios[-1], (operands, target, rules.operators, use_all))
    ms, rs = sorted(t * 1000 for t in times), sorted(ratios)
    n = len(ms)

    def pick(values: list[float]) -> str:
        p95, p99 = values[min(n - 1, int(n * 0.95))], values[min(n - 1, int(n * 0.99))]
        return f"{statistics.median(values):.1f} / {p95:.1f} / {p99:.1f} / {values[-1]:.1f}"

    print(
        f"\n{title}, cold, the fastest of {repeats}; yardstick {min(yards):.2f}-"
        f"{max(yards):.2f} ms over the run"
    )
    print(
        f"  n {n}: median / p95 / p99 / max, in ms: {pick(ms)}; x the yardstick beside each: "
        f"{pick(rs)}; yes {yes}, over the cap {over}; slowest (x) {worst[1]}"
    )


def mixed_operator_cases(n: int) -> Iterator[tuple[list[Any], int, RuleSet, bool]]:
    """Issue 13's random mix: 8 operands at tier 3 over the operator sets a teacher may choose
    (R2.5: + always kept), random targets in -10,000..10,000, half of them with use_all, 0-2 X
    cards, as (operands, target, rules, use_all); the first n of a fixed sequence."""
    rng = random.Random(7)
    opsets = ["+-*/^", "+-*/", "+-/", "+/", "+*/", "+/^", "+-/^", "+*/^", "+-*^", "+-"]
    for _ in range(n):
        rules = RuleSet(tier=3, operators=rng.choice(opsets))
        n_x = rng.choice([0, 0, 0, 1, 2])
        operands = [rng.randint(0, 20) for _ in range(8 - n_x)] + ["X"] * n_x
        target = rng.randint(-10_000, 10_000)
        yield operands, target, rules, rng.random() < 0.5


def slowest_class_cases(n: int) -> Iterator[tuple[list[Any], int, RuleSet, bool]]:
    """Issue 13's slowest inputs found, as a class of their own: 8 operands at tier 3 with
    "+-/" or "+-/^" (no *: a product only through a division by a fraction), no X, a large
    target (|t| 6,000..10,000, either sign), cards left out; the first n of a fixed sequence."""
    rng = random.Random(2_026)
    for _ in range(n):
        rules = RuleSet(tier=3, operators=rng.choice(["+-/", "+-/^"]))
        operands = [rng.randint(0, 20) for _ in range(8)]
        yield operands, rng.randint(6_000, 10_000) * rng.choice([1, -1]), rules, False


def bench_tier3_mixed_operators(quick: bool, limit: float) -> None:
    """Issue 13: can_make on the random mix (mixed_operator_cases), cold. Without * but with
    / ("+-/", "+/^"...), a product is only made through a division by a fraction, so these
    are the inputs past the whole-number bit sets."""
    title = "tier 3, 8 operands, every operator set, random targets"
    cases = mixed_operator_cases(30 if quick else 300)
    _cold_report(title, cases, limit, repeats=1 if quick else 3)


def bench_tier3_slowest_class(quick: bool, limit: float) -> None:
    """Issue 13: can_make on the slowest class (slowest_class_cases), cold. Its worst is the
    figure for "bounded"; benchmarks/bench_can_make_instructions.py counts its slowest
    cases' instructions, which the machine's noise does not move."""
    title = (
        "tier 3, the slowest class (8 operands, +-/ or +-/^, |target| 6,000-10,000, cards left out)"
    )
    _cold_report(title, slowest_class_cases(20 if quick else 200), limit, 1 if quick else 3)


def bench_tier3_past_whole_steps(quick: bool, limit: float) -> None:
    """Issue 13: the tier-3 answers the whole-number bit sets cannot give (a "no", or a "yes"
    that needs a fraction), on 6-8 operands, each rule set with / (without it they are
    exact), separately for use_all; each figure also as a ratio of a yardstick measured in
    the same run (the machine is shared)."""
    from games.engine.reach import _WholeReach
    from games.engine.solver import _operand_sets

    yard = _yardstick_ms()
    print(
        f"\ntier 3 past the whole-number bit sets, 6-8 operands (0-2 X), cold, capped at "
        f"{limit:.0f} s; yardstick {yard:.2f} ms (exhaustive baseline, 3 3 8 8 = 24)"
    )
    print(f"{'':<44} {'n':>6} {'median':>9} {'p95':>9} {'max':>9}  (ms; x yardstick)")
    rng = random.Random(13_913)
    opsets = ["+-*/^", "+-*/", "+-/", "+/", "+*/", "+/^", "+-/^", "+*/^"]
    wanted = 8 if quick else 60
    cases: list[tuple[list[Any], int, RuleSet, bool]] = []
    while len(cases) < wanted:
        rules = RuleSet(tier=3, operators=rng.choice(opsets))
        n_x = rng.choice([0, 0, 0, 1, 2])
        operands = [rng.randint(0, 20) for _ in range(rng.choice([6, 7, 8, 8]) - n_x)]
        operands += ["X"] * n_x
        use_all = rng.random() < 0.5
        target = rng.choice(
            [rng.randint(-10_000, 10_000), rng.randint(-300, 300), rng.randint(8_000, 10_000)]
        ) * rng.choice([1, -1])
        ms = tuple(sorted(-1 if v == "X" else v for v in operands))
        whole = _WholeReach(rules)
        sizes = [len(ms)] if use_all else range(len(ms), 1, -1)
        if not any(whole.has(sub, target) for k in sizes for sub in _operand_sets(ms, k)):
            cases.append((operands, target, rules, use_all))
    rows: dict[str, list[float]] = {}
    worst: dict[str, tuple[float, Any]] = {}
    over = 0
    for operands, target, rules, use_all in cases:
        clear_caches()
        t, answer = _capped(
            lambda o=operands, g=target, r=rules, u=use_all: can_make(o, g, r, use_all=u), limit
        )
        over += answer is None
        kind = "yes (a fraction needed)" if answer else "no" if answer is False else "over"
        name = f"{kind}, use_all={use_all}"
        rows.setdefault(name, []).append(t)
        if t > worst.get(name, (0.0, None))[0]:
            worst[name] = (t, (operands, target, rules.operators))
    for name in sorted(rows):
        _ratio_row(f"  {name}", rows[name], yard, f"worst {worst[name][1]}")
    print(f"  over the cap: {over}")
    # Fixed hard cases (issue 13): the first two were minutes before the fraction search.
    hard = [
        ([8, 7, 18, 3, 10, 0, 0], 7741, False),
        ([8, 7, 18, 3, 10, 0, 0, 0], 7741, False),
        ([0, 0, 1, 3, 6, 9, 10, 10], 7477, True),
        ([1, 1, 1, 1, 1, 1, 1, 1], 9973, True),
        ([12, 6, 9, 3, 0, 3, 18, 0], 9024, False),
        ([12, 6, 9, 3, 0, 3, 18, 0], 9024, False, "+-*/"),
        ([19, 6, 15, 2, 20, 19, 17, 16], 9529, False, "+-/^"),  # was > 10 s
    ]
    for operands, target, use_all, *ops in hard[:2] if quick else hard:
        rules = RuleSet(tier=3, operators=ops[0] if ops else None)
        clear_caches()
        t, answer = _capped(
            lambda o=operands, g=target, u=use_all, r=rules: can_make(o, g, r, use_all=u), limit
        )
        shown = "over the cap" if answer is None else f"answer {answer}"
        print(
            f"  tier 3 {rules.operators}: {operands} -> {target}, use_all={use_all}: {t * 1000:.0f} ms "
            f"(x{t * 1000 / yard:.0f} yardstick), {shown}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000, help="random tables per tier")
    args = parse_args(parser, quick={"tables": 200})  # --quick: also smaller baseline samples
    bench_find(args.tables, args.quick)
    bench_best(args.tables, args.quick)
    bench_24()
    bench_can_make(args.quick)


if __name__ == "__main__":
    main()
