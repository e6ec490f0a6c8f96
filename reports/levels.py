"""The level ladder: a skill's mastery band from its recent tries, and level advice (R2).

The thresholds live here: how many tries a band reads, what "quickly" means, and when a
child's own level is proposed up or down.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


@dataclass(frozen=True)
class Band:
    key: str
    label: Any
    explanation: Any
    colour: str  # readable on white and distinct for colour-blind readers with the letter
    letter: Any  # the band's initial in the reader's language


BANDS = (
    Band(
        "practising",
        _("Practising"),
        _("Still learning this. Mistakes are part of learning; regular play helps most."),
        "#f4c7c3",
        pgettext_lazy("band letter: Practising", "P"),
    ),
    Band(
        "getting_there",
        _("Getting there"),
        _("Right more often than not. A little more practice will make it sure."),
        "#fde7a9",
        pgettext_lazy("band letter: Getting there", "G"),
    ),
    Band(
        "confident",
        _("Confident"),
        _("Right most of the time."),
        "#c9e7c3",
        pgettext_lazy("band letter: Confident", "C"),
    ),
    Band(
        "mastered",
        _("Mastered"),
        _("Right almost every time, and quickly."),
        "#7fc48a",
        pgettext_lazy("band letter: Mastered", "M"),
    ),
)
BAND_BY_KEY = {b.key: b for b in BANDS}

RECENT = 40  # bands look at a skill's last 40 attempts: the child now, not in September
MIN_ATTEMPTS = 5  # fewer than this: "not enough play yet", no band
MASTERED_MIN = 20
FAST_MS = 20_000  # a median answer within 20 s counts as "quickly"
LEVEL_UP_WINDOW = 60  # "92 % of the last 60 operations right, quickly"
LEVEL_UP_ACCURACY = 0.9
LEVEL_DOWN_WINDOW = 40
LEVEL_DOWN_ACCURACY = 0.5


def band_for(
    n: int, accuracy: float | None, median_ms: int | None, *, timed: bool = True
) -> str | None:
    """The band of a skill from its recent attempts; None while there is too little play."""
    if n < MIN_ATTEMPTS or accuracy is None:
        return None
    if accuracy < 0.6:
        return "practising"
    if accuracy < 0.8:
        return "getting_there"
    quick = (not timed) or (median_ms is not None and median_ms <= FAST_MS)
    if accuracy >= 0.9 and n >= MASTERED_MIN and quick:
        return "mastered"
    return "confident"


# --- level advice ---------------------------------------------------------------------------


def next_level(number_range: int, tier: int) -> tuple[int, int] | None:
    """One step up: first the numbers to 20, then the next tier of operations (R2)."""
    if number_range < 20:
        return (20, tier)
    if tier < 3:
        return (20, tier + 1)
    return None


def previous_level(number_range: int, tier: int) -> tuple[int, int] | None:
    if tier > 1:
        return (number_range, tier - 1)
    if number_range > 10:
        return (10, tier)
    return None


def recommend(level: tuple[int, int], at_level: Iterable[tuple[bool, int | None]]) -> dict | None:
    """A level proposal from the operations announced at the student's own level, oldest first.

    Up when the last 60 are at least 90 % right with a median answer within 20 s; down when
    the last 40 are less than half right. Nothing otherwise, or with too little evidence.
    """
    recent = list(at_level)
    window = recent[-LEVEL_UP_WINDOW:]
    up = next_level(*level)
    if up and len(window) >= LEVEL_UP_WINDOW:
        right = sum(1 for ok, _ms in window if ok)
        times = [ms for ok, ms in window if ok and ms is not None]
        median_ms = int(statistics.median(times)) if times else None
        if (
            right / len(window) >= LEVEL_UP_ACCURACY
            and median_ms is not None
            and median_ms <= FAST_MS
        ):
            return {
                "direction": "up",
                "number_range": up[0],
                "tier": up[1],
                "n": len(window),
                "right": right,
                "accuracy": round(right / len(window), 4),
                "median_ms": median_ms,
            }
    window = recent[-LEVEL_DOWN_WINDOW:]
    down = previous_level(*level)
    if down and len(window) >= LEVEL_DOWN_WINDOW:
        right = sum(1 for ok, _ms in window if ok)
        if right / len(window) < LEVEL_DOWN_ACCURACY:
            times = [ms for ok, ms in window if ok and ms is not None]
            return {
                "direction": "down",
                "number_range": down[0],
                "tier": down[1],
                "n": len(window),
                "right": right,
                "accuracy": round(right / len(window), 4),
                "median_ms": int(statistics.median(times)) if times else None,
            }
    return None
