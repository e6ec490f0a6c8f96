"""The demo school's data: its classes, children, lessons, and how each child plays."""

from __future__ import annotations

from dataclasses import dataclass

DEMO_PASSWORD = "kavet-demo"
SCHOOL_YEAR = "2026-2027"
HISTORY_WEEKS = 5  # the school weeks of play before the current week
# The teacher's form defaults (classrooms.forms.ClassGameSettingsForm).
GAME_SETTINGS = {
    "challenge_window": 10,
    "challenge_time": 60,
    "turn_time": 120,
    "nothing_true_penalty": 3,
    "lesson": None,
    "copies": 2,
    "x_cards": 4,
    "events": True,
}
# The running class game has no turn limit, so it waits for a tablet instead of playing on by
# itself with "time ran out" while nobody looks.
LIVE_SETTINGS = {**GAME_SETTINGS, "turn_time": 0}
LIVE_MIN_MOVES = 10  # moves played at each table of the running class game before it waits

# How long a child thinks, by the computer-player strength that stands in for them (seconds).
# "Easy" children are often slower than the reports' 20 s for "quickly"; "hard" ones are not.
THINK_SECONDS = {"easy": (7.0, 35.0), "medium": (5.0, 22.0), "hard": (3.0, 12.0)}
WINDOW_SECONDS = (1.5, 8.0)  # answering OK or "Kavet 'm eus!" to someone else's announcement


def _by_week(values: tuple, week: int):
    """A habit spread over the history weeks: ("easy", "medium") is easy first, medium later."""
    return values[min(len(values) - 1, week * len(values) // HISTORY_WEEKS)]


@dataclass(frozen=True)
class DemoStudent:
    """A demo child: level now, level when the history starts, and how they play week by week."""

    name: str
    number_range: int
    tier: int
    pictures: str
    strengths: tuple[str, ...]  # the computer player that stands in for the child, by week
    slips: tuple[float, ...] = (0.1,)  # chance of announcing a wrong operation on their turn
    start: tuple[int, int] | None = None  # (range, tier) five weeks ago, when it was lower
    promoted_week: int = 0  # week of the history (0 = first) when the teacher raised the level
    # Practice games against one computer player on the tablet, each week from this one on
    # (None: never). Enough play at one level for the reports' level advice to speak up.
    practice_from_week: int | None = None
    practice_per_week: int = 2

    def strength(self, week: int) -> str:
        return _by_week(self.strengths, week)

    def slip(self, week: int) -> float:
        return _by_week(self.slips, week)


@dataclass(frozen=True)
class Lesson:
    """A class game in the past: week of the history, weekday (0 = Monday), local time, tables.

    A table is written "Anna Bleuenn +easy": students in seat order, then computer players.
    """

    week: int
    weekday: int
    at: str
    tables: tuple[str, ...]


@dataclass(frozen=True)
class DemoClass:
    name: str
    code: str
    students: tuple[DemoStudent, ...]
    lessons: tuple[Lesson, ...] = ()
    live: tuple[str, ...] = ()  # the tables of a class game left running now


DEMO_CLASSES = (
    DemoClass(
        "CP-CE1",
        "KAVETA",
        (
            DemoStudent("Anna", 10, 1, "0-4-8", ("easy", "easy", "medium"), (0.25, 0.15, 0.08)),
            DemoStudent("Bleuenn", 10, 1, "1-5-9", ("easy",), (0.2,)),
            DemoStudent(
                "Corentin",
                20,
                1,
                "2-6-10",
                ("medium", "hard"),
                (0.1, 0.05),
                start=(10, 1),
                promoted_week=2,
                # Corentin practises at home time on the tablet: the reports then propose the
                # next level (up to 20, four operations), which the teacher sees on the class page.
                practice_from_week=2,
                practice_per_week=3,
            ),
            DemoStudent("Dewi", 10, 1, "3-7-11", ("easy",), (0.3, 0.25)),
            DemoStudent("Elouan", 20, 2, "12-13-14", ("hard",), (0.05,)),
            DemoStudent("Fanny", 20, 1, "15-0-5", ("medium",), (0.15,)),
        ),
        lessons=(
            Lesson(0, 1, "10:15", ("Anna Bleuenn Dewi", "Corentin Elouan Fanny")),
            Lesson(1, 4, "14:00", ("Anna Dewi +easy", "Bleuenn Corentin Fanny")),
            Lesson(2, 1, "10:15", ("Anna Bleuenn", "Corentin Elouan Fanny")),
            Lesson(3, 3, "10:15", ("Anna Fanny Dewi", "Bleuenn Corentin Elouan")),
            Lesson(4, 1, "14:00", ("Anna Bleuenn Dewi +easy", "Corentin Elouan Fanny")),
        ),
    ),
    DemoClass(
        "CM1",
        "KAVETB",
        (
            DemoStudent("Gwen", 20, 2, "0-4-8", ("medium",), (0.1,)),
            DemoStudent("Hugo", 20, 2, "1-5-9", ("easy", "medium"), (0.25, 0.15)),
            DemoStudent("Iwan", 20, 3, "2-6-10", ("hard",), (0.03,)),
            DemoStudent("Jade", 20, 2, "3-7-11", ("medium",), (0.12,)),
            # Tier 3 is new to Katell after her promotion: a few more slips at first.
            DemoStudent(
                "Katell",
                20,
                3,
                "12-13-14",
                ("medium", "hard"),
                (0.08, 0.08, 0.08, 0.15, 0.1),
                start=(20, 2),
                promoted_week=3,
            ),
            DemoStudent("Loïc", 10, 2, "15-0-5", ("easy",), (0.3,)),
        ),
        lessons=(
            Lesson(0, 0, "09:30", ("Gwen Hugo Loïc", "Iwan Jade Katell")),
            Lesson(1, 3, "09:30", ("Iwan Katell +hard", "Gwen Hugo Jade Loïc")),
            Lesson(2, 0, "09:30", ("Gwen Jade +medium", "Hugo Iwan Loïc")),
            Lesson(3, 3, "09:30", ("Iwan Katell", "Gwen Hugo Jade Loïc")),
            Lesson(4, 0, "09:30", ("Gwen Hugo Loïc", "Iwan Jade Katell")),
        ),
        live=("Gwen Hugo Jade +medium", "Iwan Katell +hard"),
    ),
)
PARENT_OF = "Anna"
