"""The engine's refusals of a game's settings reach the teacher as specific sentences in their
language, never as the engine's English reason (games.wording.settings_error_message)."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import engine, services
from games.wording import settings_error_message


def refusal(build) -> engine.EngineError:
    with pytest.raises(engine.EngineError) as caught:
        build()
    return caught.value


# Real refusals raised by the engine itself: if its codes or reasons change, these fail.
CASES = [
    (lambda: engine.GameConfig(players=["a"] * 7), "Une partie se joue de 2 à 6 joueurs, pas 7."),
    (
        lambda: engine.GameConfig(players=["a", "b"], challenge_window=4000),
        "Le temps pour crier «\u00a0Kavet 'm eus!\u00a0» doit être compris entre 0 seconde et une heure.",
    ),
    (
        lambda: engine.GameConfig(players=["a", "b"], turn_time=-1),
        "Le temps maximum pour un tour doit être compris entre 0 seconde (sans limite) et une heure.",
    ),
    (
        lambda: engine.GameConfig(players=["a", "b"], starter=5),
        "Le joueur qui commence doit être l'un des joueurs de la table.",
    ),
    (
        lambda: engine.GameConfig(players=["a", "b"], nothing_true_penalty=5),
        "Un «\u00a0Kavet 'm eus!\u00a0» à tort contre un «\u00a0rien à faire\u00a0» vrai coûte 3 ou 4 cartes.",
    ),
    (
        lambda: engine.GameConfig(
            players=["a", "b"],
            rules=engine.RuleSet(max_number=10),
            deck=engine.DeckSpec(max_number=20),
        ),
        "Le paquet doit avoir le même champ numérique que la partie (jusqu'à 10).",
    ),
    (
        lambda: engine.DeckSpec(copies=9).validate(),
        "Exemplaires de chaque carte nombre\u00a0: de 1 à 4.",
    ),
    (lambda: engine.DeckSpec(x_cards=9).validate(), "Cartes X (jokers)\u00a0: de 0 à 8."),
    (
        lambda: engine.RuleSet(max_number=15),
        "Le champ numérique doit être «\u00a0jusqu'à 10\u00a0» ou «\u00a0jusqu'à 20\u00a0».",
    ),
    (lambda: engine.RuleSet(tier=4), "Le palier d'opérations doit être 1, 2 ou 3."),
    (lambda: engine.RuleSet(tier=1, operators="*"), "Le palier d'opérations 1 n'a pas le signe ×."),
    (
        lambda: engine.RuleSet(tier=3, operators="^"),
        "Choisissez au moins un des signes +, −, × et ÷\u00a0: avec les seules puissances, il n'y a "
        "presque rien à jouer.",
    ),
    (
        lambda: engine.RuleSet(tier=1, bound=500),
        "Le plus grand résultat permis doit être un nombre entier de 20 à 100.",
    ),
    (
        lambda: engine.RuleSet(tier=3, bound=50),
        "Au palier d'opérations 3, le plus grand résultat ne peut pas être modifié.",
    ),
]


@pytest.mark.parametrize(("build", "french"), CASES)
def test_each_engine_refusal_of_the_settings_has_its_own_translated_sentence(build, french):
    exc = refusal(build)
    with translation.override("fr"):
        assert settings_error_message(exc.code, exc.params) == french
    with translation.override("en"):
        english = settings_error_message(exc.code, exc.params)
    assert english != "These game settings are not possible."  # specific, not the fallback
    assert str(exc.params.get("reason", "\0")) not in english  # never the engine's own English


def test_an_unknown_refusal_still_gets_a_translated_sentence():
    with translation.override("de"):
        assert settings_error_message("rules_invalid", {"reason": "something new"}) == (
            "Diese Spieleinstellungen sind nicht möglich."
        )


@pytest.mark.django_db
def test_a_teacher_setting_an_impossible_deck_reads_why_in_german(school, classroom):
    from tests import factories

    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    with translation.override("de"), pytest.raises(services.GameError) as caught:
        services.game_create(
            school=school,
            classroom=classroom,
            settings={"x_cards": 12},
            players=[{"student": anna}, {"bot": "easy"}],
        )
    assert caught.value.message == "X-Karten (Joker): 0 bis 8."


@pytest.mark.django_db
def test_seven_players_are_refused_with_the_engines_real_limit(school, classroom):
    from tests import factories

    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    with translation.override("fr"), pytest.raises(services.GameError) as caught:
        services.game_create(
            school=school,
            classroom=classroom,
            settings={},
            players=[{"student": anna}] + [{"bot": "easy"}] * 6,
        )
    assert caught.value.message == "Une partie se joue de 2 à 6 joueurs, pas 7."


def test_a_game_without_plus_is_refused_with_its_own_sentence():
    # R2.5: the engine keeps + in every game; the teacher reads why, not the engine's English.
    exc = refusal(lambda: engine.RuleSet(tier=2, operators="-*"))
    assert exc.params["problem"] == "plus_required"
    with translation.override("en"):
        assert settings_error_message(exc.code, exc.params) == (
            "The sign + is always played: you may leave out −, ×, ÷ or powers, never +."
        )


def test_the_sentence_follows_the_problem_key_not_the_reason_text():
    params = {"reason": "the engine may reword this", "problem": "tier"}
    with translation.override("fr"):
        assert settings_error_message("rules_invalid", params) == (
            "Le palier d'opérations doit être 1, 2 ou 3."
        )


@pytest.mark.parametrize("problem", sorted(engine.RULES_PROBLEMS - {"no_level", "unknown_level"}))
def test_every_problem_a_teacher_can_cause_has_a_sentence(problem):
    reason = "tier 2 has no operator ^" if problem == "operator_not_in_tier" else "from 10 to 20"
    with translation.override("en"):
        text = settings_error_message("rules_invalid", {"reason": reason, "problem": problem})
    assert text != "These game settings are not possible."
