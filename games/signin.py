"""Tablet sign-in for children: the tablet remembers its class, the child taps a name then 3 pictures.

Wrong tries are counted on what the client cannot choose:

- per child, over every tablet that never signed that child in (whatever its id or address):
  STRANGER_TRIES slots over any TRY_WINDOW and STRANGER_DAY_TRIES a day. Once they are used up
  such tablets wait, even with the right pictures, and the teacher's class page says someone is
  trying the child's pictures; the child's own tablets (those that signed them in before) are
  never held up by it, so being guessed at never locks the child out;
- per (tablet, child) and per tablet, on a tablet id the server signs, hands out and keeps in a
  registry (games.models.Tablet: an id not seen for TABLET_DAYS, or never handed out, is a new
  tablet); new ids are limited per client address, so throwing the cookie away buys no tries;
- wrong class codes per tablet and per client address.

The teacher lifts a pause on the student's page, or gives new pictures in one tap from the
class page (the old guesses are then worth nothing). The counts live in the database
(kavet_site.throttles.counters), so they hold while Redis is down.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import login, logout
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from classrooms.models import Classroom, Student
from classrooms.pictures import CODE_LENGTH, PICTURE_COUNT, PICTURES, decode, encode
from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters

from .models import Tablet, TabletSignin

CLASS_COOKIE = "kavet_class"
TABLET_COOKIE = "kavet_tablet"
COOKIE_AGE = 400 * 24 * 3600  # a school year and then some: entered once per tablet
SALT = "kavet.tablet.class"
TABLET_SALT = "kavet.tablet.id"
# Wrong tries allowed within the window before a pause (per student on a tablet, and per tablet).
STUDENT_TRIES = 5
TABLET_TRIES = 15
TRY_WINDOW = 5 * 60
# Wrong tries against one child from every tablet that never signed them in, all together:
# at most this many within any TRY_WINDOW, and this many a day (3,360 codes: months of guessing).
STRANGER_TRIES = 10
STRANGER_DAY_TRIES = 40
DAY = 24 * 3600
# Wrong class codes per client address (a whole school shares one) within the hour; honest
# typos of a school's tablets never come near it (each tablet types the code once a year).
ADDRESS_CODE_TRIES = 200
ADDRESS_CODE_WINDOW = 60 * 60
# New tablet ids handed out per client address (a school shares one) within the mint window:
# a big school setting up all its tablets in one hour. Past it the address's tablets share one
# id. A fresh id buys a guesser nothing (the limits per child and per address hold whatever
# the id); the limit keeps the registry from being filled.
MINT_TRIES = 100
MINT_WINDOW = 60 * 60
# A tablet not seen for this long is new again (longer than the summer holidays, so a class's
# tablets keep their children over the year); its last-seen time is written at most daily.
TABLET_DAYS = 90
TABLET_SEEN_EVERY = timedelta(days=1)
SESSION_KEY = "kv_student"  # {"idle": minutes, "classroom": id}
SEEN_KEY = "kv_seen"  # last activity, seconds since the epoch
CLASS_CODE_MAX = 8
_TABLET_ID = re.compile(r"[A-Za-z0-9_-]{16,40}")
_CLASS_CODE = re.compile(r"[A-Z0-9]+")


def _too_many() -> str:
    return _("Too many tries. Wait a few minutes, or ask your teacher for help.")


# --- small services ---------------------------------------------------------------------------


def cookie_options() -> dict:
    """HttpOnly, SameSite=Lax, and Secure whenever the site is served over HTTPS."""
    return {
        "max_age": COOKIE_AGE,
        "httponly": True,
        "samesite": "Lax",
        "secure": bool(getattr(settings, "KAVET_COOKIE_SECURE", False)),
    }


def tablet_classroom(request: HttpRequest) -> Classroom | None:
    """The class this tablet remembers, if the code still names an open class."""
    try:
        code = request.get_signed_cookie(CLASS_COOKIE, salt=SALT)
    except (KeyError, BadSignature):
        return None
    if not code or not _CLASS_CODE.fullmatch(code):
        return None
    return (
        Classroom.objects.filter(code=code, archived_at__isnull=True)
        .select_related("school")
        .first()
    )


def _tablet_cutoff():
    return timezone.now() - timedelta(days=TABLET_DAYS)


def _tablet_known(ident: str) -> bool:
    """Whether the registry knows this id and has seen it lately; marks it seen (daily)."""
    seen = (
        Tablet.objects.filter(pk=ident, last_seen_at__gt=_tablet_cutoff())
        .values_list("last_seen_at", flat=True)
        .first()
    )
    if seen is None:
        return False
    now = timezone.now()
    if seen < now - TABLET_SEEN_EVERY:
        Tablet.objects.filter(pk=ident).update(last_seen_at=now)
    return True


def tablet_id(request: HttpRequest, *, mint: bool = False) -> str | None:
    """The id this tablet was given and signed by the server; None when it has none.

    An id the registry does not know (never handed out, or not seen for TABLET_DAYS) is no id.
    With ``mint`` a tablet without a valid id gets a new one (sent back by ``with_tablet_cookie``),
    unless its address has had too many new ids lately: then it shares one id with every other
    tablet of that address (never one of a child's own tablets), so clearing the cookie never
    gives fresh tries.
    """
    known = getattr(request, "_kavet_tablet", None)
    if known:
        return known
    try:
        value = request.get_signed_cookie(TABLET_COOKIE, salt=TABLET_SALT)
    except (KeyError, BadSignature):
        value = None
    if value and _TABLET_ID.fullmatch(value) and _tablet_known(value):
        request._kavet_tablet = value
        return value
    if not mint:
        return None
    bucket = client_bucket(request)
    if _count("mint", bucket, MINT_WINDOW) > MINT_TRIES:
        ident = f"ip-{bucket}"
    else:
        ident = secrets.token_urlsafe(18)
        Tablet.objects.create(ident=ident, last_seen_at=timezone.now())
        request._kavet_new_tablet = ident
    request._kavet_tablet = ident
    return ident


def with_tablet_cookie(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Send the tablet id minted during this request, signed."""
    new = getattr(request, "_kavet_new_tablet", None)
    if new:
        response.set_signed_cookie(TABLET_COOKIE, new, salt=TABLET_SALT, **cookie_options())
    return response


def tablets_sweep() -> int:
    """Forget the tablets not seen for TABLET_DAYS (and which children they signed in); how many."""
    deleted, _by_model = Tablet.objects.filter(last_seen_at__lte=_tablet_cutoff()).delete()
    return deleted


def _own_tablet(student: Student, tablet: str | None) -> bool:
    """Whether this (registered) tablet has signed this child in before."""
    if not tablet:
        return False
    return TabletSignin.objects.filter(tablet_id=tablet, student=student).exists()


def _trust(student: Student, tablet: str) -> None:
    """Remember that this tablet signed the child in (a registered id only, never an address's)."""
    if not Tablet.objects.filter(pk=tablet).exists():
        return
    TabletSignin.objects.update_or_create(
        tablet_id=tablet, student=student, defaults={"signed_in_at": timezone.now()}
    )


def _key(kind: str, ident: object) -> str:
    return f"kv:signin:{kind}:{ident}"


def _count(kind: str, ident: object, window: int) -> int:
    """Add one to a counter whose window starts at its first count; the new value."""
    return counters.hit(_key(kind, ident), window)


def _pair_key(student: Student, tablet: str) -> str:
    return _key("st", f"{student.pk}:{tablet}")


def _lock_key(student: Student, tablet: str = "") -> str:
    return _key("lock", f"{student.pk}:{tablet}")


def _stranger_prefix(student: Student) -> str:
    return _key("stranger", f"{student.pk}:")


def _stranger_day_key(student: Student) -> str:
    return _key("strangerday", student.pk)


def _guessed_key(student_pk: int) -> str:
    return _key("guessed", student_pk)


def tries_left(*, student: Student, tablet: str | None) -> int:
    """How many wrong tries are left on this tablet before a pause; 0 means wait."""
    if tablet is None:
        return STUDENT_TRIES
    used = counters.counts([_pair_key(student, tablet), _key("t", tablet)])
    used_pair, used_tablet = used.values()
    return max(0, min(STUDENT_TRIES - used_pair, TABLET_TRIES - used_tablet))


def _day_used_up(student: Student) -> bool:
    return counters.count(_stranger_day_key(student)) >= STRANGER_DAY_TRIES


def strangers_paused(student: Student) -> bool:
    """Whether tablets that never signed this child in must wait: their tries are used up."""
    if _day_used_up(student):
        return True
    return counters.taken(_stranger_prefix(student), STRANGER_TRIES) >= STRANGER_TRIES


def _paused(student: Student, tablet: str | None) -> bool:
    """Whether this tablet may not check pictures for this child right now."""
    if tries_left(student=student, tablet=tablet) <= 0:
        return True
    return not _own_tablet(student, tablet) and strangers_paused(student)


def _note_lock(student: Student, tablet: str) -> None:
    """Remember that this child is kept out on this tablet, for the teacher's page."""
    counters.mark(_lock_key(student, tablet), TRY_WINDOW)


def _note_guessed(student: Student, *, until_day_is_over: bool = False) -> None:
    """Tell the teacher's class page that someone is trying this child's pictures.

    The note lasts a window after the last try refused (or, once the day's tries are used up,
    until the day's count is over), and goes when the teacher gives new pictures or lifts the
    pause.
    """
    window = TRY_WINDOW
    day_over = counters.ends(_stranger_day_key(student)) if until_day_is_over else None
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
        *(_key("t", tablet) for tablet in tablets),
        _stranger_day_key(student),
        _guessed_key(student.pk),
        prefix=_pair_key(student, ""),
    )
    counters.clear(prefix=_lock_key(student))
    counters.clear(prefix=_stranger_prefix(student))


def _is_their_code(student: Student, pictures: tuple[int, ...]) -> bool:
    """The one comparison of a try with the child's pictures (every check counted comes here)."""
    return secrets.compare_digest(encode(pictures), student.picture_code)


def _stranger_try(student: Student) -> str | None:
    """A try from a tablet that never signed the child in: the slot it holds, or None to wait.

    The slot is taken before the pictures are looked at, so tries at the same moment from many
    tablets and addresses can never look at more than STRANGER_TRIES within a window.
    """
    if _day_used_up(student):
        _note_guessed(student, until_day_is_over=True)
        return None
    slot = counters.take(_stranger_prefix(student), STRANGER_TRIES, TRY_WINDOW)
    if slot is None:
        _note_guessed(student)
        return None
    if counters.hit(_stranger_day_key(student), DAY) > STRANGER_DAY_TRIES:
        counters.clear(slot)
        _note_guessed(student, until_day_is_over=True)
        return None
    return slot


def signin_check(*, student: Student, pictures: tuple[int, ...], tablet: str) -> str | None:
    """None when the pictures are the student's; else a friendly reason. Counts failures."""
    if tries_left(student=student, tablet=tablet) <= 0:
        _note_lock(student, tablet)
        return _too_many()
    own = _own_tablet(student, tablet)
    slot = None if own else _stranger_try(student)
    if not own and slot is None:
        return _too_many()
    if _is_their_code(student, pictures):
        if slot is not None:  # a right try is not a wrong one: its slot and count go back
            counters.clear(slot)
            counters.unhit(_stranger_day_key(student))
        counters.clear(_pair_key(student, tablet))
        _trust(student, tablet)
        return None
    _count("st", f"{student.pk}:{tablet}", TRY_WINDOW)
    _count("t", tablet, TRY_WINDOW)
    if not own and strangers_paused(student):  # that was the last one: the teacher is told
        _note_guessed(student, until_day_is_over=_day_used_up(student))
    if tries_left(student=student, tablet=tablet) <= 0:
        _note_lock(student, tablet)
        return _too_many()
    return _("Those are not your pictures. Try again!")


def student_signin(request: HttpRequest, student: Student) -> None:
    login(request, student.user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_KEY] = {
        "idle": student.classroom.student_idle_minutes,
        "classroom": student.classroom_id,
    }
    request.session[SEEN_KEY] = time.time()


def _class_code(raw: str) -> tuple[str, str]:
    """The code typed, cleaned, and an error when it can't be a class code."""
    code = (raw or "").strip().upper().replace(" ", "").replace("-", "")
    if not code:
        return "", _("Type the class code.")
    if not _CLASS_CODE.fullmatch(code) or not code.isascii():
        return "", _("A class code has only letters and numbers. Check it with your teacher.")
    if len(code) > CLASS_CODE_MAX:
        return "", _("There is no class with this code. Check it with your teacher.")
    return code, ""


# --- views ------------------------------------------------------------------------------------


def _is_student(request: HttpRequest) -> bool:
    return request.user.is_authenticated and getattr(request.user, "role", "") == "student"


@require_http_methods(["GET", "POST"])
def tablet_signin(request: HttpRequest) -> HttpResponse:
    """The class code (once per tablet), then the class list of names to tap."""
    if _is_student(request):
        return redirect("games:student_home")
    classroom = tablet_classroom(request)
    error = ""
    # The class board's QR code opens /tablet/?code=KAVETA: the code is filled in, one tap to
    # remember it (the POST below, counted as ever), even on a tablet that knew another class.
    prefill, _prefill_error = _class_code(request.GET.get("code", ""))
    if prefill and classroom is not None and classroom.code != prefill:
        classroom = None
    if request.method == "POST":
        tablet = tablet_id(request, mint=True)
        raw = request.POST.get("code", "")
        code, error = _class_code(raw)
        address = _key("codeip", client_bucket(request))
        if counters.count(_key("code", tablet)) >= TABLET_TRIES:
            error = _too_many()
        elif not raw.strip():
            pass  # an empty box is no try
        elif counters.hit(address, ADDRESS_CODE_WINDOW) > ADDRESS_CODE_TRIES:
            # Counted before the code is looked up: tries at the same moment from one
            # address never look up more than the limit; a right code gives its count back.
            error = _too_many()
        elif not error:
            found = Classroom.objects.filter(code=code, archived_at__isnull=True).first()
            if found is not None:
                counters.unhit(address)
                response = redirect("games:tablet_signin")
                response.set_signed_cookie(CLASS_COOKIE, found.code, salt=SALT, **cookie_options())
                return with_tablet_cookie(request, response)
            error = _("There is no class with this code. Check it with your teacher.")
            _count("code", tablet, TRY_WINDOW)
        else:
            _count("code", tablet, TRY_WINDOW)  # junk costs a try like a wrong code
        classroom = None
    if classroom is None:
        response = render(
            request,
            "games/signin_class.html",
            {"error": error, "code": prefill},
            status=400 if error else 200,
        )
        return with_tablet_cookie(request, response)
    students = Student.objects.filter(classroom=classroom).order_by("name")
    return render(
        request, "games/signin_names.html", {"classroom": classroom, "students": students}
    )


@require_http_methods(["GET", "POST"])
def tablet_forget(request: HttpRequest) -> HttpResponse:
    """The teacher moves the tablet to another class: asked first, as one tap would lose the class."""
    classroom = tablet_classroom(request)
    if classroom is None:
        return redirect("games:tablet_signin")
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        response = redirect("games:tablet_signin")
        response.delete_cookie(CLASS_COOKIE, samesite="Lax")
        return response
    return render(request, "games/signin_forget.html", {"classroom": classroom})


def _picks_posted(request: HttpRequest) -> tuple[list[int], int] | None:
    """The pictures tapped so far and the new one (-1 for none); None when the form is junk."""
    so_far = request.POST.get("so_far", "")
    pick_text = request.POST.get("pick", "")
    if (
        len(so_far) > 40
        or len(pick_text) > 4
        or not re.fullmatch(r"[0-9-]*", so_far)
        or not re.fullmatch(r"[0-9]*", pick_text)
    ):
        return None
    try:
        picks = list(decode(so_far))
    except ValueError:
        return None
    if len(picks) > CODE_LENGTH or any(not 0 <= i < PICTURE_COUNT for i in picks):
        return None
    pick = int(pick_text) if pick_text else -1
    if pick >= PICTURE_COUNT:
        return None
    return picks, pick


@require_http_methods(["GET", "POST"])
def tablet_pictures(request: HttpRequest, student_id: int) -> HttpResponse:
    """Tap three pictures in order; one request per tap, so it works without JavaScript too."""
    classroom = tablet_classroom(request)
    if classroom is None:
        return redirect("games:tablet_signin")
    student = get_object_or_404(
        Student.objects.select_related("user", "classroom"), pk=student_id, classroom=classroom
    )
    tablet = tablet_id(request, mint=request.method == "POST")
    picks: list[int] = []
    message = ""
    status = 200
    if request.method == "POST":
        posted = _picks_posted(request)
        if posted is None:
            message, status = _("Something went wrong. Tap your pictures again."), 400
        else:
            picks, pick = posted
            if request.POST.get("undo"):
                picks = picks[:-1]
            elif 0 <= pick and len(picks) < CODE_LENGTH:
                picks.append(pick)
        if len(picks) == CODE_LENGTH:
            reason = signin_check(student=student, pictures=tuple(picks), tablet=tablet)
            if reason is None:
                student_signin(request, student)
                if request.htmx:
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = reverse("games:student_home")
                    return with_tablet_cookie(request, response)
                return with_tablet_cookie(request, redirect("games:student_home"))
            message, picks, status = reason, [], 200
    locked = _paused(student, tablet)
    if locked:
        picks = []  # nothing is looked at while paused: the slots show empty
        if tablet and tries_left(student=student, tablet=tablet) <= 0:
            _note_lock(student, tablet)
        if not message:
            message = _too_many()
    ctx = {
        "student": student,
        "pictures": PICTURES,
        "picks": picks,
        "so_far": encode(picks),
        "chosen": [PICTURES[i] for i in picks],
        "slots": range(CODE_LENGTH - len(picks)),
        "message": message,
        "locked": locked,
    }
    template = (
        "games/signin_pictures.html#pictures" if request.htmx else "games/signin_pictures.html"
    )
    return with_tablet_cookie(request, render(request, template, ctx, status=status))


@require_POST
def student_signout(request: HttpRequest) -> HttpResponse:
    """ "I'm done": the next child never plays in this one's name; the tablet keeps its class."""
    logout(request)
    return redirect("games:tablet_signin")
