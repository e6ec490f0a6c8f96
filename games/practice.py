"""Practice from a child's own mistakes, and the practice goals a teacher sets (issue 12).

Three parts, each reading only the one child's own rows:

- The spaced schedule (pure): from the child's plays, the skills they got wrong (a wrong
  operation, R3.5, or a false "nothing to do", R5.4) come back 1, 3 and 7 days after the
  mistake. A correct operation of that skill in a practice game, once the skill is due, moves
  it to the next interval; after the 7-day step it is done. A new mistake starts it again.
- The deal (pure): a practice game's draw order, shuffled from its seed (R1.4) with the cards
  of one operation of the due skill put first, so they are among the first cards turned up
  (R4.1). Ideally the child's own mistake, put right ("8 + 4 = 10" comes back as 8, 4, 12);
  otherwise an operation of that skill made for the level. Every operation dealt is checked
  by the engine at the child's current level (R2, R3.3) before it is used.
- Goals: a teacher's "10 operations with ×" or "5 games" by a date, for a child or the class,
  counted from the child's practice games since the goal was set.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from games import engine

from .models import Game, Play, PracticeGoal, Seat

# Days after the mistake (then after each success) before the skill comes back.
INTERVALS: tuple[int, ...] = (1, 3, 7)
# How far back a mistake is still looked at: a skill untouched for months is for the teacher.
LOOKBACK = timedelta(days=60)

# What a child reads under "Today:" (short words; the operator is shown big beside them).
SKILL_WORDS = {
    "addsub_10": pgettext_lazy("practice, child", "adding up to 10"),
    "addsub_20": pgettext_lazy("practice, child", "adding up to 20"),
    "mult": pgettext_lazy("practice, child", "times"),
    "div": pgettext_lazy("practice, child", "sharing"),
    "multi_step": pgettext_lazy("practice, child", "long sums"),
    "frac_pow": pgettext_lazy("practice, child", "powers"),
    "joker": pgettext_lazy("practice, child", "the X card"),
}
SKILL_SIGN = {
    "addsub_10": "+ −",
    "addsub_20": "+ −",
    "mult": "×",
    "div": "÷",
    "multi_step": "+ +",
    "frac_pow": "^",
    "joker": "",  # the words already name the X card: "X the X card" read twice
}


def skill_possible(skill: str, rules: engine.RuleSet) -> bool:
    """Whether an operation of this skill can be made at this level at all (R2.2, R2.5)."""
    ops = rules.allowed_operators
    return {
        "addsub_10": True,
        "addsub_20": rules.max_number >= 20,
        "mult": "*" in ops,
        "div": "/" in ops,
        "multi_step": True,
        "frac_pow": "^" in ops,
        "joker": True,
    }.get(skill, False)


# --- the spaced schedule ------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One judged play, as the schedule reads it."""

    at: datetime
    skills: tuple[str, ...]
    ok: bool  # False: a mistake (wrong operation or false "nothing to do")
    practice: bool  # played in a practice game
    operation: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SkillDue:
    """Where one skill is on the schedule."""

    skill: str
    step: int  # 0, 1, 2: the interval waited for now (INTERVALS[step] days)
    due_at: datetime
    mistake: Mapping[str, Any] | None  # the latest mistake's operation (operation_dict)
    done: bool = False

    def is_due(self, now: datetime) -> bool:
        return not self.done and self.due_at <= now


def attempt_of(play: Play) -> Attempt | None:
    """A Play as the schedule reads it, or None when it says nothing about a skill."""
    if play.kind == Play.Kind.ANNOUNCE and play.ok is True:
        return Attempt(play.at, tuple(play.skills), True, play.game.kind == Game.Kind.PRACTICE)
    if play.kind == Play.Kind.ANNOUNCE and play.ok is False and play.verdict_kind == "wrong":
        # R3.5: only a real mistake; an invalid announcement was refused and taught nothing.
        return Attempt(play.at, tuple(play.skills), False, False, play.operation)
    if play.kind == Play.Kind.NOTHING and play.missed:
        # A false "nothing to do": the skill of the operation that was there (R5.6).
        return Attempt(play.at, tuple(play.skills), False, False, play.operation)
    return None


def schedule(attempts: Iterable[Attempt]) -> dict[str, SkillDue]:
    """The spaced schedule of every skill the child got wrong, from their attempts in time order.

    A mistake puts its skills at step 0 (due a day later). A correct operation of a skill in a
    practice game, at or after its due time, moves it one step on: due 3 days later, then 7;
    the success after the 7-day wait makes it done. Successes before the due time do not count
    (that is the spacing), and a new mistake starts the skill again.
    """
    state: dict[str, SkillDue] = {}
    for a in sorted(attempts, key=lambda a: a.at):
        for skill in a.skills:
            if skill not in SKILL_WORDS:
                continue
            if not a.ok:
                state[skill] = SkillDue(skill, 0, a.at + timedelta(days=INTERVALS[0]), a.operation)
                continue
            current = state.get(skill)
            if current is None or current.done or not a.practice or a.at < current.due_at:
                continue
            step = current.step + 1
            if step >= len(INTERVALS):
                state[skill] = SkillDue(skill, step, current.due_at, current.mistake, done=True)
            else:
                state[skill] = SkillDue(
                    skill, step, a.at + timedelta(days=INTERVALS[step]), current.mistake
                )
    return state


def due_skills(
    attempts: Iterable[Attempt], *, now: datetime, rules: engine.RuleSet
) -> list[SkillDue]:
    """The skills due now and possible at this level, the longest waiting first."""
    order = {s: i for i, s in enumerate(SKILL_WORDS)}
    due = [
        d for d in schedule(attempts).values() if d.is_due(now) and skill_possible(d.skill, rules)
    ]
    return sorted(due, key=lambda d: (d.due_at, order[d.skill]))


# --- the deal -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """An operation to deal: the card values (result last, "X" for an X card) and its text."""

    skill: str
    text: str
    values: tuple[int | str, ...]
    from_mistake: bool


def _checked(skill: str, text: str, values: Sequence[int | str], rules: engine.RuleSet) -> bool:
    """The engine's word: correct at this level (R3.3) and an operation of this skill."""
    if any(v != "X" and not (isinstance(v, int) and 0 <= v <= rules.max_number) for v in values):
        return False  # R1.2: a card outside the level's range is not in its deck
    verdict = engine.check_operation(text, list(values), rules)
    return verdict.ok and skill in engine.skills_of(verdict.operation)


def _corrected(skill: str, operation: Mapping[str, Any], rules: engine.RuleSet) -> Task | None:
    """The child's own mistake, put right: the same cards, with the result that is true."""
    text = str(operation.get("text") or "")
    values = list(operation.get("values") or [])
    if " = " not in text or len(values) < 3:
        return None
    if _checked(skill, text, values, rules):  # a missed operation: it was right already
        return Task(skill, text, tuple(values), True)
    steps = operation.get("steps") or []
    if not steps:
        return None
    true_value = str(steps[-1]).rsplit(" = ", 1)[-1]
    if not true_value.isdigit():
        return None
    expression, rest = text.rsplit(" = ", 1)
    xs = rest.partition(" ")[2]  # "(X=2)" when an X card was named
    result = int(true_value)
    candidate = f"{expression} = {result} {xs}".strip()
    fixed = [*values[:-1], result]
    if _checked(skill, candidate, fixed, rules):
        return Task(skill, candidate, tuple(fixed), True)
    return None


def _made(skill: str, rules: engine.RuleSet, rng: random.Random) -> Task | None:
    """An operation of this skill made for the level, when the child's own can't be used."""
    top = rules.max_number
    options: list[tuple[str, tuple[int | str, ...]]] = []
    if skill == "addsub_10":
        options = [
            (f"{a} + {b} = {a + b}", (a, b, a + b)) for a in range(1, 10) for b in range(1, 11 - a)
        ]
    elif skill == "addsub_20":
        options = [
            (f"{a} + {b} = {a + b}", (a, b, a + b))
            for a in range(1, 20)
            for b in range(1, 21 - a)
            if a + b > 10
        ]
    elif skill == "mult":
        options = [
            (f"{a} * {b} = {a * b}", (a, b, a * b))
            for a in range(2, 11)
            for b in range(2, 11)
            if a * b <= top
        ]
    elif skill == "div":
        options = [
            (f"{a * b} / {b} = {a}", (a * b, b, a))
            for a in range(1, 11)
            for b in range(2, 11)
            if a * b <= top
        ]
    elif skill == "multi_step":
        options = [
            (f"{a} + {b} + {c} = {a + b + c}", (a, b, c, a + b + c))
            for a in range(1, 8)
            for b in range(1, 8)
            for c in range(1, 8)
            if a + b + c <= top
        ]
    elif skill == "frac_pow":
        options = [
            (f"{a} ^ {b} = {a**b}", (a, b, a**b))
            for a in range(2, 5)
            for b in range(2, 5)
            if a**b <= top
        ]
    elif skill == "joker":
        options = [
            (f"X + {a} = {b} (X={b - a})", ("X", a, b))
            for a in range(1, 10)
            for b in range(a + 1, min(top, 10) + 1)
        ]
    rng.shuffle(options)
    for text, values in options:
        if _checked(skill, text, values, rules):
            return Task(skill, text, values, False)
    return None


def task_for(due: SkillDue, rules: engine.RuleSet, rng: random.Random) -> Task | None:
    """The operation to deal for a due skill: the child's own mistake if it fits the level."""
    if due.mistake:
        own = _corrected(due.skill, due.mistake, rules)
        if own is not None:
            return own
    return _made(due.skill, rules, rng)


@dataclass(frozen=True)
class PracticeDeal:
    """A practice game's seed and full draw order, and what it helps with."""

    seed: int
    draw_order: list[int]
    task: Task

    @property
    def skill(self) -> str:
        return self.task.skill


def deal_order(deck: Sequence[engine.Card], values: Sequence[int | str], seed: int) -> list[int]:
    """The draw order (card ids): the seed's shuffle (R1.4) with cards of these values first.

    The same deck, values and seed give the same order; the first cards are the task's, in an
    order the seed picks too, so the result is not always the last card turned up.
    """
    rng = random.Random(f"practice/{seed}")
    order = [c.id for c in deck]
    rng.shuffle(order)
    chosen: list[int] = []
    for value in values:
        for cid in order:
            card = deck[cid]
            same = (
                card.kind == "x" if value == "X" else card.kind == "number" and card.value == value
            )
            if same and cid not in chosen:
                chosen.append(cid)
                break
        else:
            raise ValueError(f"no card {value!r} left in this deck")
    rng.shuffle(chosen)
    return chosen + [cid for cid in order if cid not in chosen]


def practice_deal(
    attempts: Iterable[Attempt], *, config: engine.GameConfig, now: datetime, seed: int
) -> PracticeDeal | None:
    """The deal for the child's next practice game, or None when nothing is due (pure)."""
    rules = config.rules
    rng = random.Random(seed)
    for due in due_skills(attempts, now=now, rules=rules):
        task = task_for(due, rules, rng)
        if task is None:
            continue
        deck = engine.build_deck(config.deck)
        try:
            order = deal_order(deck, task.values, seed)
        except ValueError:
            continue
        return PracticeDeal(seed=seed, draw_order=order, task=task)
    return None


# --- reading the child's own plays --------------------------------------------------------------


def attempts_of(student, *, now: datetime) -> list[Attempt]:
    """The child's own judged plays of the last LOOKBACK days (never another child's)."""
    plays = (
        Play.objects.filter(student=student, at__gte=now - LOOKBACK, at__lte=now)
        .filter(kind__in=[Play.Kind.ANNOUNCE, Play.Kind.NOTHING])
        .select_related("game")
        .only("kind", "at", "ok", "verdict_kind", "missed", "skills", "operation", "game__kind")
        .order_by("at", "pk")
    )
    return [a for a in (attempt_of(p) for p in plays) if a is not None]


def practice_deal_for(
    student, *, config: engine.GameConfig, seed: int, now: datetime | None = None
) -> PracticeDeal | None:
    """The deal for this child's practice game at `config`'s level, from their own mistakes."""
    now = now or timezone.now()
    return practice_deal(attempts_of(student, now=now), config=config, now=now, seed=seed)


def practice_today(student, *, now: datetime | None = None) -> SkillDue | None:
    """What the child's next practice game will help with (the tablet's home), or None."""
    now = now or timezone.now()
    rules = engine.ruleset_for_players([student.level])
    due = due_skills(attempts_of(student, now=now), now=now, rules=rules)
    return due[0] if due else None


# --- teachers' goals ----------------------------------------------------------------------------


class GoalError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _day_end(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))


def goal_count(goal: PracticeGoal, student) -> int:
    """How much of the goal this child has done: their own practice since the goal was set."""
    start, end = goal.created_at, _day_end(goal.due_on)
    practice = Game.objects.filter(kind=Game.Kind.PRACTICE)
    if goal.kind == PracticeGoal.Kind.GAMES:
        return (
            Seat.objects.filter(
                student=student,
                game__in=practice.filter(
                    status=Game.Status.FINISHED, finished_at__gte=start, finished_at__lt=end
                ),
            )
            .values("game_id")
            .distinct()
            .count()
        )
    operations = Play.objects.filter(
        student=student,
        kind=Play.Kind.ANNOUNCE,
        ok=True,
        at__gte=start,
        at__lt=end,
        game__in=practice,
    ).values_list("operation", flat=True)
    if not goal.operator:
        return operations.count()
    return sum(1 for op in operations if goal.operator in ((op or {}).get("operators") or ()))


@dataclass(frozen=True)
class GoalProgress:
    goal: PracticeGoal
    student: Any
    count: int

    @property
    def done(self) -> bool:
        return self.count >= self.goal.target


def goals_for_student(student, *, today: date | None = None) -> list[GoalProgress]:
    """The child's goals (their own and their class's) not past their date, with their count."""
    today = today or timezone.localdate()
    goals = PracticeGoal.objects.filter(classroom_id=student.classroom_id, due_on__gte=today)
    goals = goals.filter(student__isnull=True) | goals.filter(student=student)
    return [
        GoalProgress(g, student, goal_count(g, student)) for g in goals.order_by("due_on", "pk")
    ]


def goals_of_classroom(classroom) -> list[dict[str, Any]]:
    """Every goal of the class, with each child it is for and whether they have done it."""
    students = list(classroom.students.order_by("name"))
    rows = []
    for goal in PracticeGoal.objects.filter(classroom=classroom).select_related("student"):
        targets = [goal.student] if goal.student_id else students
        progress = [GoalProgress(goal, s, goal_count(goal, s)) for s in targets]
        rows.append(
            {"goal": goal, "progress": progress, "done": sum(1 for p in progress if p.done)}
        )
    return rows


@transaction.atomic
def practice_goal_create(
    *,
    classroom,
    student,
    kind: str,
    operator: str,
    target: int,
    due_on: date,
    created_by,
) -> PracticeGoal:
    """A goal for one child of this class (or, with no child, for the whole class)."""
    if student is not None and student.classroom_id != classroom.pk:
        raise GoalError(_("This child is not in this class."))
    if kind not in PracticeGoal.Kind.values:
        raise GoalError(_("Choose games or operations."))
    if operator not in PracticeGoal.Operator.values or (
        kind == PracticeGoal.Kind.GAMES and operator
    ):
        raise GoalError(_("Choose a sign only for operations."))
    if not 1 <= int(target) <= PracticeGoal.MAX_TARGET:
        raise GoalError(_("Choose a number from 1 to %(max)d.") % {"max": PracticeGoal.MAX_TARGET})
    if due_on < timezone.localdate():
        raise GoalError(_("Choose a date from today on."))
    return PracticeGoal.objects.create(
        classroom=classroom,
        student=student,
        kind=kind,
        operator=operator,
        target=int(target),
        due_on=due_on,
        created_by=created_by,
    )


def practice_goal_delete(*, goal: PracticeGoal) -> None:
    goal.delete()
