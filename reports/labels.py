"""The words of a report, in the reader's language: skills, mistakes and the report's counts.

The skill keys are the engine's (games.engine.skills.ALL_SKILLS); these are only their names.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine import skills as engine_skills

SKILL_LABELS = {
    "addsub_10": _("Adding and taking away within 10"),
    "addsub_20": _("Adding and taking away within 20"),
    "mult": _("Multiplication facts"),
    "div": _("Division facts"),
    "multi_step": _("Operations in several steps (three or more numbers)"),
    "frac_pow": _("Fractions and powers"),
    "joker": _("Using the X card"),
    engine_skills.SPOTTING: _("Spotting others' mistakes"),
    engine_skills.NOTICING: _("Seeing every possible operation"),
}
SKILL_SHORT = {
    "addsub_10": pgettext_lazy("skill, short", "+ − to 10"),
    "addsub_20": pgettext_lazy("skill, short", "+ − to 20"),
    "mult": pgettext_lazy("skill, short", "×"),
    "div": pgettext_lazy("skill, short", "÷"),
    "multi_step": pgettext_lazy("skill, short", "steps"),
    "frac_pow": pgettext_lazy("skill, short", "fractions, powers"),
    "joker": pgettext_lazy("skill, short", "X card"),
    engine_skills.SPOTTING: pgettext_lazy("skill, short", "challenges"),
    engine_skills.NOTICING: pgettext_lazy("skill, short", "finding operations"),
}
# What a parent can do at home for a skill that is still being learnt.
SKILL_AT_HOME = {
    "addsub_10": _(
        "Make 10 together: with fingers, coins or cards, ask “how many more to make 10?” (3 and 7, 6 and 4…)."
    ),
    "addsub_20": _(
        "Add and take away across 10: 8 + 5 is 8 + 2 + 3. Count on from the bigger number, then back."
    ),
    "mult": _(
        "Say the times tables out loud in the car or while cooking, a few facts at a time; start with 2, 5 and 10."
    ),
    "div": _(
        "Share things out fairly: 12 sweets between 3 plates. Each division is a multiplication backwards."
    ),
    "multi_step": _(
        "Pick three cards or dice and look for a way to join them: (8 − 5) × 2 = 6. Say each step aloud."
    ),
    "frac_pow": _(
        "Talk about halves and quarters of a pizza, and squares: 3 × 3 = 3², 4 × 4 = 4²."
    ),
    "joker": _("The X card can be any number: ask “which number would make 7 + ? = 10 true?”"),
    engine_skills.SPOTTING: _(
        "Make small mistakes on purpose (“5 + 4 = 8?”) and let your child catch you."
    ),
    engine_skills.NOTICING: _(
        "Lay out four cards and look together for every operation you can make before saying “nothing”."
    ),
}
# Kinds of mistakes for the teachers' summary: the engine's "wrong" codes (R3.5) and misses.
MISTAKE_LABELS = {
    "wrong_result": _("the result was false"),
    "division_by_zero": _("a division by zero"),
    "not_whole": _("a division that is not exact"),
    "negative": _("a negative intermediate result"),
    "out_of_bounds": _("an intermediate result out of bounds"),
    "zero_power_zero": _("0 to the power 0"),
    "exponent_not_allowed": _("an exponent out of range"),
    "overlooked": _("an operation overlooked (“nothing to do” was false)"),
}
FIGURE_COUNT_LABELS = {
    "announcements": _("Operations"),
    "right": _("Right operations"),
    "wrong": _("Wrong operations"),
    "right_challenges": _("Mistakes spotted with “Kavet 'm eus!”"),
    "false_challenges": _("“Kavet 'm eus!” when there was no mistake"),
    "nothing_true": _("“Nothing to do” when there was nothing"),
    "overlooked": _("Operations overlooked (“nothing to do” was false)"),
}
