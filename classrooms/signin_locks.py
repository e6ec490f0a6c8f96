"""The children's picture sign-in, counted: wrong tries, pauses, and the teacher's alerts.

Wrong tries are counted per child on what the client cannot choose (the tablet registry of
games.tablets tells a child's own tablets from strangers):

- per child, over every tablet that never signed that child in: STRANGER_TRIES slots over any
  TRY_WINDOW and STRANGER_DAY_TRIES slots over any DAY (a slot is held a whole day from its try,
  so no burst fits across the end of a fixed day). Once they are used up such tablets wait, even with
  the right pictures, and the teacher's class page says someone is trying the child's pictures;
  the child's own tablets are never held up by it, so being guessed at never locks the child out;
- per (tablet, child) and per tablet: STUDENT_TRIES and TABLET_TRIES within TRY_WINDOW.

The teacher lifts a pause on the student's page (signin_unlock), or gives new pictures in one
tap from the class page (the old guesses are then worth nothing). The counts live in the
database (kavet_site.throttles.counters), so they hold while Redis is down. The tablet sign-in
pages are games.signin; games.tablets.signin_check is the one check of a try.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from kavet_site.throttles import counters

from .models import Student

# Wrong tries allowed within the window before a pause (per student on a tablet, and per tablet).
STUDENT_TRIES = 5
TABLET_TRIES = 15
TRY_WINDOW = 5 * 60
# Wrong tries against one child from every tablet that never signed them in, all together:
# at most this many within any TRY_WINDOW, and this many a day (3,360 codes: months of guessing).
STRANGER_TRIES = 10
STRANGER_DAY_TRIES = 40
DAY = 24 * 3600


def counter_key(kind: str, ident: object) -> str:
    return f"kv:signin:{kind}:{ident}"


def count_try(kind: str, ident: object, window: int) -> int:
    """Add one to a counter whose window starts at its first count; the new value."""
    return counters.hit(counter_key(kind, ident), window)


def pair_key(student: Student, tablet: str) -> str:
    return counter_key("st", f"{student.pk}:{tablet}")


def _lock_key(student: Student, tablet: str = "") -> str:
    return counter_key("lock", f"{student.pk}:{tablet}")


def _stranger_prefix(student: Student) -> str:
    return counter_key("stranger", f"{student.pk}:")


def _stranger_day_prefix(student: Student) -> str:
    return counter_key("strangerday", f"{student.pk}:")


def _guessed_key(student_pk: int) -> str:
    return counter_key("guessed", student_pk)


def tries_left(*, student: Student, tablet: str | None) -> int:
    """How many wrong tries are left on this tablet before a pause; 0 means wait."""
    if tablet is None:
        return STUDENT_TRIES
    used = counters.counts([pair_key(student, tablet), counter_key("t", tablet)])
    used_pair, used_tablet = used.values()
    return max(0, min(STUDENT_TRIES - used_pair, TABLET_TRIES - used_tablet))


def day_used_up(student: Student) -> bool:
    return counters.taken(_stranger_day_prefix(student), STRANGER_DAY_TRIES) >= STRANGER_DAY_TRIES


def strangers_paused(student: Student) -> bool:
    """Whether tablets that never signed this child in must wait: their tries are used up."""
    if day_used_up(student):
        return True
    return counters.taken(_stranger_prefix(student), STRANGER_TRIES) >= STRANGER_TRIES


def note_lock(student: Student, tablet: str) -> None:
    """Remember that this child is kept out on this tablet, for the teacher's page."""
    counters.mark(_lock_key(student, tablet), TRY_WINDOW)


def note_guessed(student: Student, *, until_day_is_over: bool = False) -> None:
    """Tell the teacher's class page that someone is trying this child's pictures.

    The note lasts a window after the last try refused (or, once the day's tries are used up,
    until the first of them is a day old and strangers may try again), and goes when the teacher gives new pictures or lifts the
    pause.
    """
    window = TRY_WINDOW
    day_over = (
        counters.first_free(_stranger_day_prefix(student), STRANGER_DAY_TRIES)
        if until_day_is_over
        else None
    )
    if day_over is not None:
        window = max(window, int((day_over - timezone.now()).total_seconds()) + 1)
    counters.mark(_guessed_key(student.pk), window)


def _locked_tablets(student: Student) -> list[str]:
    prefix = _lock_key(student)
    return [bucket[len(prefix) :] for bucket in counters.live(prefix)]


def signin_locks(student: Student) -> int:
    """On how many tablets this child's sign-in is paused right now."""
    return sum(
        1 for tablet in _locked_tablets(student) if tries_left(student=student, tablet=tablet) <= 0
    )


def signin_guessed(students: Iterable[Student]) -> set[int]:
    """Of these children, the ids of those whose pictures someone is trying now (one query)."""
    wanted = {_guessed_key(s.pk): s.pk for s in students}
    return {wanted[bucket] for bucket, n in counters.counts(wanted).items() if n}


def signin_unlock(student: Student) -> None:
    """The teacher lets the child sign in again at once, on every tablet where it was paused.

    Also what giving new pictures does: the guesses counted were against the old pictures.
    """
    tablets = _locked_tablets(student)
    counters.clear(
        *(counter_key("t", tablet) for tablet in tablets),
        _guessed_key(student.pk),
        prefix=pair_key(student, ""),
    )
    counters.clear(prefix=_lock_key(student))
    counters.clear(prefix=_stranger_prefix(student))
    counters.clear(prefix=_stranger_day_prefix(student))


def stranger_try(student: Student) -> tuple[str, str] | None:
    """A try from a tablet that never signed the child in: the two slots it holds, or None to wait.

    The slots (one of the window's, one of the day's) are taken before the pictures are looked
    at, so tries at the same moment from many tablets and addresses can never look at more than
    STRANGER_TRIES within any window, nor STRANGER_DAY_TRIES within any day. A right try gives
    both back (games.tablets.signin_check).
    """
    if day_used_up(student):
        note_guessed(student, until_day_is_over=True)
        return None
    slot = counters.take(_stranger_prefix(student), STRANGER_TRIES, TRY_WINDOW)
    if slot is None:
        note_guessed(student)
        return None
    day_slot = counters.take(_stranger_day_prefix(student), STRANGER_DAY_TRIES, DAY)
    if day_slot is None:
        counters.clear(slot)
        note_guessed(student, until_day_is_over=True)
        return None
    return slot, day_slot
