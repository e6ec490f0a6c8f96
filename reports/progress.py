"""Progress reports, as one import: the four modules that each do one job.

- labels: the words of a report (skills, mistakes, counts) in the reader's language;
- levels: the level ladder (mastery bands, level advice) and its thresholds;
- builder: from recorded plays to a weekly report's figures (the one report builder);
- figures: every number of a report as a link to the plays it counts.

The skill keys are the engine's (games.engine.skills); SKILLS is re-exported for the pages.
"""

from __future__ import annotations

from games.engine.skills import ALL_SKILLS as SKILLS

from .builder import (
    EXAMPLES,
    MAX_GAME_MINUTES,
    SETTLED,
    TALLY_VERSION,
    Period,
    Summary,
    Tally,
    play_attempts,
    play_figures,
    plays_by_week,
    report_from_summary,
    skill_outcomes,
    skills_of_play,
    summary_open_games,
    week_bounds,
    week_start_of,
    week_tally,
)
from .figures import (
    FIGURE_SCOPES,
    Figure,
    figure_parse,
    figure_plays,
    figure_title,
)
from .labels import (
    FIGURE_COUNT_LABELS,
    MISTAKE_LABELS,
    SKILL_AT_HOME,
    SKILL_LABELS,
    SKILL_SHORT,
)
from .levels import (
    BAND_BY_KEY,
    BANDS,
    FAST_MS,
    LEVEL_DOWN_ACCURACY,
    LEVEL_DOWN_WINDOW,
    LEVEL_UP_ACCURACY,
    LEVEL_UP_WINDOW,
    MASTERED_MIN,
    MIN_ATTEMPTS,
    RECENT,
    Band,
    band_for,
    next_level,
    previous_level,
    recommend,
)

__all__ = [
    "SKILLS",
    "EXAMPLES",
    "MAX_GAME_MINUTES",
    "SETTLED",
    "TALLY_VERSION",
    "Period",
    "Summary",
    "Tally",
    "play_attempts",
    "play_figures",
    "plays_by_week",
    "report_from_summary",
    "skill_outcomes",
    "skills_of_play",
    "summary_open_games",
    "week_bounds",
    "week_start_of",
    "week_tally",
    "FIGURE_SCOPES",
    "Figure",
    "figure_parse",
    "figure_plays",
    "figure_title",
    "FIGURE_COUNT_LABELS",
    "MISTAKE_LABELS",
    "SKILL_AT_HOME",
    "SKILL_LABELS",
    "SKILL_SHORT",
    "BAND_BY_KEY",
    "BANDS",
    "FAST_MS",
    "LEVEL_DOWN_ACCURACY",
    "LEVEL_DOWN_WINDOW",
    "LEVEL_UP_ACCURACY",
    "LEVEL_UP_WINDOW",
    "MASTERED_MIN",
    "MIN_ATTEMPTS",
    "RECENT",
    "Band",
    "band_for",
    "next_level",
    "previous_level",
    "recommend",
]
