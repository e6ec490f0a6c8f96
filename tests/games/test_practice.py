"""Practice from a child's own mistakes (games.practice) and the teacher's practice goals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import engine, practice, services
from games.models import Game, Play, PracticeGoal
from tests import factories
from tests.games.conftest import card, tokens

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def attempt(at, skill="addsub_10", ok=False, practice_game=True):
    return practice.Attempt(at, (skill,), ok, practice_game)


def test_the_spaced_schedule_1_3_7_days():
    steps = [attempt(T0)]  # a mistake: back a day later
    assert practice.schedule(steps)["addsub_10"].due_at == T0 + DAY
    steps.append(attempt(T0 + DAY / 2, ok=True))  # right too early: the spacing is kept
    assert practice.schedule(steps)["addsub_10"].step == 0
    steps.append(attempt(T0 + 2 * DAY, ok=True, practice_game=False))  # a class game: not practice
    assert practice.schedule(steps)["addsub_10"].step == 0
    steps.append(attempt(T0 + 2 * DAY, ok=True))  # right in practice once due: 3 days
    due = practice.schedule(steps)["addsub_10"]
    assert (due.step, due.due_at) == (1, T0 + 5 * DAY)
    assert not due.is_due(T0 + 4 * DAY) and due.is_due(T0 + 5 * DAY)
    steps.append(attempt(T0 + 5 * DAY, ok=True))  # then 7 days
    assert practice.schedule(steps)["addsub_10"].due_at == T0 + 12 * DAY
    steps.append(attempt(T0 + 12 * DAY, ok=True))  # after the 7 days' success: done
    assert practice.schedule(steps)["addsub_10"].done
    steps.append(attempt(T0 + 13 * DAY))  # a new mistake starts it again
    again = practice.schedule(steps)["addsub_10"]
    assert (again.step, again.done, again.due_at) == (0, False, T0 + 14 * DAY)


def test_a_skill_above_the_childs_level_now_is_not_dealt():
    # R2.2: x is not a tier-1 operator; after the teacher lowers the level it waits.
    steps = [attempt(T0, skill="mult"), attempt(T0, skill="addsub_10")]
    tier1 = engine.ruleset_for_players([(10, 1)])
    assert [d.skill for d in practice.due_skills(steps, now=T0 + DAY, rules=tier1)] == ["addsub_10"]
    tier2 = engine.ruleset_for_players([(20, 2)])
    assert {d.skill for d in practice.due_skills(steps, now=T0 + DAY, rules=tier2)} == {
        "addsub_10",
        "mult",
    }


@pytest.fixture
def class_game(make_game, anna, bo):
    """Anna announces "7 + 1 = 9" in a class game: wrong (R3.3, R3.5); Bo says OK."""
    game = make_game([{"student": anna}, {"student": bo}], draw=(card(7), card(1), card(9)))
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(7), "+", card(1), "=", card(9))},
    )
    assert out.applied
    wrong = Play.objects.get(student=anna)
    assert wrong.ok is False and wrong.verdict_kind == "wrong" and "addsub_10" in wrong.skills
    return game


def _age_plays(student, by: timedelta) -> None:
    """The plays happened `by` ago (the schedule counts days)."""
    for play in Play.objects.filter(student=student):
        Play.objects.filter(pk=play.pk).update(at=play.at - by)


def _table_values(game: Game) -> list:
    state = engine.GameState.from_dict(game.state)
    return [state.value_of(c) for c in state.table]


def test_a_practice_deal_contains_the_childs_past_mistake_put_right(class_game, anna, settings):
    settings.KAVET_FIRST_TURN_GRACE = 0
    _age_plays(anna, DAY + timedelta(minutes=5))
    game, deal = services.practice_create(student=anna, bots=1, strength="easy")
    # The child's own numbers, with the true result: 7 + 1 = 8 (R3.3), from their mistake.
    assert deal.task.from_mistake and deal.task.text == "7 + 1 = 8"
    assert game.draw_order == deal.draw_order and game.seed == deal.seed
    game = services.game_start(game=game)
    table = _table_values(game)  # R4.1: the first three cards turned up
    assert sorted(table) == [1, 7, 8]
    # Valid at the child's level: the engine accepts it on that table (R2.2, R3.3).
    rules = engine.RuleSet.from_dict(game.config["rules"])
    assert rules.max_number == anna.number_range and rules.tier == anna.tier
    assert engine.check_operation("7 + 1 = 8", table, rules).ok
    # R1.4, R9.2: the same seed and the same mistakes give the same deal.
    config = services.game_config_build(names=["a", "b"], levels=[anna.level], settings={})
    again = practice.practice_deal_for(anna, config=config, seed=deal.seed)
    assert again.draw_order == deal.draw_order
    # Not due yet the same day as the mistake: an ordinary shuffle.
    Play.objects.filter(student=anna).update(at=timezone.now())
    assert practice.practice_deal_for(anna, config=config, seed=deal.seed) is None


def test_a_false_nothing_to_do_comes_back_as_the_operation_that_was_there(make_game, anna, bo):
    # R5.4, R5.6: anna said "nothing to do" with 2 3 5 on the table.
    game = make_game([{"student": anna}, {"student": bo}])
    services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    services.move_submit(game_id=game.pk, seat=1, seen_version=1, move={"type": "ok"})
    missed = Play.objects.get(student=anna)
    assert missed.missed
    _age_plays(anna, DAY)
    config = services.game_config_build(names=["a", "b"], levels=[anna.level], settings={})
    deal = practice.practice_deal_for(anna, config=config, seed=7)
    assert deal.task.from_mistake and sorted(deal.task.values) == [2, 3, 5]
    deck = engine.build_deck(config.deck)
    assert sorted(deck[c].value for c in deal.draw_order[:3]) == [2, 3, 5]


def test_only_the_childs_own_mistakes_shape_their_deal(class_game, anna, bo, classroom):
    _age_plays(anna, 2 * DAY)
    config = services.game_config_build(names=["a", "b"], levels=[bo.level], settings={})
    # Bo sat at the same table but made no mistake: his deal is an ordinary shuffle.
    assert practice.practice_deal_for(bo, config=config, seed=3) is None
    assert practice.practice_today(bo) is None
    # Another child's mistake (up to 10, "4 + 5") never changes Anna's deal.
    cleo = factories.student(classroom=classroom, name="Cleo")
    other = services.game_create(
        school=classroom.school,
        classroom=classroom,
        players=[{"student": cleo}, {"bot": "easy"}],
        settings={"turn_time": 120},
        draw_order=[card(4), card(5), card(10)],
    )
    other = services.game_start(game=other)
    services.move_submit(
        game_id=other.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(4), "+", card(5), "=", card(10))},
    )
    _age_plays(cleo, 3 * DAY)  # older, so it would come first if it were Anna's
    deal = practice.practice_deal_for(anna, config=config, seed=3)
    assert deal.task.text == "7 + 1 = 8"
    assert practice.practice_deal_for(cleo, config=config, seed=3).task.text == "4 + 5 = 9"


def test_right_in_the_practice_game_moves_the_skill_to_3_days(class_game, anna, settings):
    settings.KAVET_FIRST_TURN_GRACE = 0
    _age_plays(anna, DAY + timedelta(minutes=5))
    game, deal = services.practice_create(student=anna, bots=1, strength="easy")
    game = services.game_start(game=game)
    state = engine.GameState.from_dict(game.state)
    ids = {state.value_of(c): c for c in state.table}
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=game.version,
        move={"type": "announce", "tokens": tokens(ids[7], "+", ids[1], "=", ids[8])},
    )
    assert out.applied
    due = practice.schedule(practice.attempts_of(anna, now=timezone.now()))["addsub_10"]
    assert due.step == 1 and due.due_at > timezone.now() + 2 * DAY
    assert practice.practice_today(anna) is None


# --- goals ---------------------------------------------------------------------------------------


def _teacher_client(client, user):
    client.force_login(user)
    return client


def test_a_teacher_sets_a_goal_and_sees_who_did_it(client, teacher, classroom, anna, bo, settings):
    settings.KAVET_FIRST_TURN_GRACE = 0
    url = reverse("games:practice_goals", args=[classroom.pk])
    c = _teacher_client(client, teacher)
    due = (timezone.localdate() + timedelta(days=7)).isoformat()
    response = c.post(url, {"kind": "operations", "operator": "+", "target": 1, "due_on": due})
    assert response.status_code == 302
    goal = PracticeGoal.objects.get()
    assert goal.student is None and goal.classroom == classroom and goal.created_by == teacher
    # Anna plays a practice game through games.services and makes "2 + 3 = 5" (R3.3).
    game = services.game_create(
        school=classroom.school,
        classroom=classroom,
        players=[{"student": anna}, {"bot": "easy"}],
        settings={"turn_time": 120},
        kind=Game.Kind.PRACTICE,
        draw_order=[card(2), card(3), card(5)],
    )
    game = services.game_start(game=game)
    services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(5))},
    )
    [row] = practice.goals_of_classroom(classroom)
    assert {p.student.name: p.done for p in row["progress"]} == {"Anna": True, "Bo": False}
    page = c.get(url).content.decode()
    assert "Bo (0/1)" in page
    # The child sees the goal on their tablet, done.
    [mine] = practice.goals_for_student(anna)
    assert mine.count == 1 and mine.done
    c.post(reverse("games:practice_goal_delete", args=[classroom.pk, goal.pk]))
    assert not PracticeGoal.objects.exists()


def test_a_games_goal_counts_finished_practice_games_only(classroom, anna, settings):
    settings.KAVET_FIRST_TURN_GRACE = 0
    goal = practice.practice_goal_create(
        classroom=classroom,
        student=anna,
        kind="games",
        operator="",
        target=1,
        due_on=timezone.localdate() + timedelta(days=7),
        created_by=None,
    )
    stopped, _deal = services.practice_create(student=anna, bots=1, strength="easy")
    services.game_end(game=services.game_start(game=stopped))  # ended early: not counted
    assert practice.goal_count(goal, anna) == 0
    game, _deal = services.practice_create(student=anna, bots=1, strength="hard")
    game = services.game_start(game=game)
    later = timezone.now()
    for _i in range(600):  # time limits and the computer play the game out (R4.9, R8)
        later += timedelta(minutes=5)
        services.game_tick(game_id=game.pk, now=later)
        if not Game.objects.filter(pk=game.pk, status=Game.Status.RUNNING).exists():
            break
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert practice.goal_count(goal, anna) == 1


@pytest.mark.parametrize(
    "post, field",
    [
        ({"kind": "games", "target": 0}, "target"),
        ({"kind": "games", "target": 500}, "target"),
        ({"kind": "games", "target": 3, "due_on": "2020-01-01"}, "due_on"),
        ({"kind": "games", "operator": "*", "target": 3}, "operator"),
        ({"kind": "lots", "target": 3}, "kind"),
    ],
)
def test_forged_goals_are_refused_and_nothing_is_saved(client, teacher, classroom, post, field):
    data = {"due_on": (timezone.localdate() + timedelta(days=1)).isoformat(), **post}
    response = _teacher_client(client, teacher).post(
        reverse("games:practice_goals", args=[classroom.pk]), data
    )
    assert response.status_code == 400 and field in response.context["form"].errors
    assert not PracticeGoal.objects.exists()


def test_another_class_child_or_another_teacher_gets_nothing(client, school, classroom, teacher):
    other_class = factories.classroom(school=school, name="Other")
    stranger = factories.student(classroom=other_class, name="Stranger")
    due = (timezone.localdate() + timedelta(days=1)).isoformat()
    url = reverse("games:practice_goals", args=[classroom.pk])
    c = _teacher_client(client, teacher)
    response = c.post(url, {"student": stranger.pk, "kind": "games", "target": 2, "due_on": due})
    assert response.status_code == 400 and "student" in response.context["form"].errors
    with pytest.raises(practice.GoalError):
        practice.practice_goal_create(
            classroom=classroom,
            student=stranger,
            kind="games",
            operator="",
            target=2,
            due_on=timezone.localdate(),
            created_by=teacher,
        )
    goal = practice.practice_goal_create(
        classroom=classroom,
        student=None,
        kind="games",
        operator="",
        target=2,
        due_on=timezone.localdate(),
        created_by=teacher,
    )
    colleague = factories.teacher(school=school, username="colleague")
    c.force_login(colleague)
    assert c.get(url).status_code == 404
    assert (
        c.post(reverse("games:practice_goal_delete", args=[classroom.pk, goal.pk])).status_code
        == 404
    )
    assert PracticeGoal.objects.count() == 1


def test_the_tablet_home_says_what_today_helps_with(client, class_game, anna):
    from tests.games.test_views import tablet

    _age_plays(anna, DAY + timedelta(minutes=1))
    home = tablet(client, anna).get(reverse("games:student_home")).content.decode()
    assert "Today:" in home and "adding up to 10" in home
