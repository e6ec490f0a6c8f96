"""Percentiles for the benchmarks' latency tables (nearest rank over the sorted values)."""

from __future__ import annotations


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
