"""The practice part of a child's home: what today's game helps with, and their goals.

    {% load kavet_practice %}{% practice_home student %}

Reads only the child's own plays (games.practice); the home view passes just the child.
"""

from __future__ import annotations

from django import template

from games import practice

register = template.Library()


@register.inclusion_tag("games/practice_home.html")
def practice_home(student) -> dict:
    today = practice.practice_today(student)
    return {
        "today": today,
        "today_words": practice.SKILL_WORDS.get(today.skill) if today else "",
        "today_sign": practice.SKILL_SIGN.get(today.skill) if today else "",
        "goals": practice.goals_for_student(student),
    }
