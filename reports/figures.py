"""A report's figures as links: every number of a report opens the plays it counts.

A figure names a scope and a count of builder.play_figures (week:right, year:skill.mult.n,
recent:skill.div.right); figure_plays finds the plays it counts by those very names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.engine import skills as engine_skills

from .builder import play_figures, skill_outcomes, skills_of_play
from .labels import FIGURE_COUNT_LABELS, MISTAKE_LABELS, SKILL_LABELS
from .levels import RECENT

# --- a figure's moves: every number of a report opens the plays it counts ------------------

FIGURE_SCOPES = (
    "week",
    "year",
    "recent",
)  # the report's week, the weeks up to its end, a band's last tries
_FIGURE_COUNTS = (
    "announcements",
    "right",
    "wrong",
    "right_challenges",
    "false_challenges",
    "nothing_true",
    "overlooked",
)
_CODE = re.compile(r"[a-z_]{1,40}")


@dataclass(frozen=True)
class Figure:
    """One number of a report: a scope and a count of play_figures, e.g. week:right,
    year:skill.mult.n, recent:skill.div.right (the band's last RECENT tries of a skill)."""

    scope: str
    key: str

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"

    @property
    def skill(self) -> str:
        name, _dot, arg = self.key.partition(".")
        return arg.split(".")[0] if name in ("skill", "mistake_skill") else ""


def figure_parse(text: str) -> Figure | None:
    """The figure a link names, or None for anything else (the page answers 404)."""
    scope, _colon, key = (text or "").partition(":")
    name, _dot, arg = key.partition(".")
    if scope not in FIGURE_SCOPES:
        return None
    if name == "skill":
        skill, _dot, which = arg.partition(".")
        ok = skill in engine_skills.ALL_SKILLS and which in ("n", "right")
    elif scope == "recent":
        ok = False  # a band counts the last tries of one skill only
    elif name in _FIGURE_COUNTS:
        ok = not arg
    elif name == "mistake_code":
        ok = bool(_CODE.fullmatch(arg))
    elif name == "mistake_skill":
        ok = arg in engine_skills.SKILLS
    else:
        ok = False
    return Figure(scope, key) if ok else None


def figure_plays(
    plays: Iterable[Mapping[str, Any]], figure: Figure, *, start: datetime, end: datetime
) -> list[Mapping[str, Any]]:
    """The plays (oldest first) a figure of the report of the week [start, end) counts: those
    play_figures names it for, the very names Period.add and the bands count by."""
    rows = [p for p in plays if p["at"] < end and (figure.scope != "week" or p["at"] >= start)]
    if figure.scope == "recent":
        tries = f"skill.{figure.skill}.n"
        rows = [p for p in rows if tries in _figures_of(p)][-RECENT:]
    return [p for p in rows if figure.key in _figures_of(p)]


def _figures_of(play: Mapping[str, Any]) -> list[str]:
    skills = skills_of_play(play)
    return play_figures(play, skills, skill_outcomes(play, skills))


def figure_title(figure: Figure, n: int | None = None) -> str:
    """What a figure counts, in the reader's words: the heading of its list of moves. `n`, how
    many tries a skill's last tries are (fewer than RECENT for a child who has just begun)."""
    name, _dot, arg = figure.key.partition(".")
    skill = str(SKILL_LABELS.get(figure.skill, figure.skill))
    if name == "skill":
        what = (
            _("Right tries: %(skill)s") if arg.endswith(".right") else _("Tries: %(skill)s")
        ) % {"skill": skill}
    elif name == "mistake_code":
        what = _("Mistakes: %(kind)s") % {"kind": MISTAKE_LABELS.get(arg, arg)}
    elif name == "mistake_skill":
        what = _("Mistakes in: %(skill)s") % {"skill": skill}
    else:
        what = str(FIGURE_COUNT_LABELS[name])
    tries = RECENT if n is None else min(n, RECENT)
    when = {
        "week": _("this week"),
        "year": _("since the start of the school year"),
        "recent": ngettext("the last %(n)d try", "the last %(n)d tries", tries) % {"n": tries},
    }[figure.scope]
    return _("%(what)s, %(when)s") % {"what": what, "when": when}
