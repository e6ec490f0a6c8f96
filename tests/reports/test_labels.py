"""The words of a report name exactly the engine's skills: the keys have one home, the engine."""

from __future__ import annotations

from django.utils import translation

from games.engine import skills as engine_skills
from reports import labels, progress


def test_every_engine_skill_has_its_words_and_no_other_key_has():
    # A skill the engine adds without words would show its raw key to a parent.
    for words in (labels.SKILL_LABELS, labels.SKILL_SHORT, labels.SKILL_AT_HOME):
        assert list(words) == list(engine_skills.ALL_SKILLS)
    assert progress.SKILLS is engine_skills.ALL_SKILLS
    with translation.override("fr"):
        assert str(labels.SKILL_LABELS["mult"]) != "Multiplication facts"
