"""Tablet sign-in for children: the tablet remembers its class, the child taps a name then 3 pictures.

The pages only: the tablet registry and the check of a try are games.tablets, the counting of
wrong tries (per child, per tablet, against strangers) and the teacher's alerts are
classrooms.signin_locks. Wrong class codes are counted here, per tablet and per client address.
"""

from __future__ import annotations

import re
import time

from django.contrib.auth import login, logout
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from classrooms import permissions
from classrooms.models import Classroom, Student
from classrooms.pictures import CODE_LENGTH, PICTURE_COUNT, PICTURES, decode, encode
from classrooms.signin_locks import (
    TABLET_TRIES,
    TRY_WINDOW,
    count_try,
    counter_key,
    note_lock,
    tries_left,
)
from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters

from .tablets import (
    cookie_options,
    paused,
    signin_check,
    tablet_id,
    too_many_message,
    with_tablet_cookie,
)

CLASS_COOKIE = "kavet_class"
SALT = "kavet.tablet.class"
CODE_BOX = 8  # the class code box's maxlength (templates/games/signin_class.html)
# Wrong class codes per client address (a whole school shares one) within the hour; honest
# typos of a school's tablets never come near it (each tablet types the code once a year).
ADDRESS_CODE_TRIES = 200
ADDRESS_CODE_WINDOW = 60 * 60
# Past the address's limit each tablet still looks up this many codes in the window, so a code
# typed on a new tablet at a school whose address someone floods gets through (a guesser gets a
# few more tries per tablet id, and new ids are limited per address: games.tablets.MINT_TRIES).
OVER_LIMIT_TABLET_TRIES = 3
# The class board's QR link carries a key only the server can make for that code (join_key):
# such a join is no guess and is never held up by the address's count.
JOIN_SALT = "kavet.tablet.join"
JOIN_KEY_LENGTH = 16
SESSION_KEY = "kv_student"  # {"idle": minutes, "classroom": id}
SEEN_KEY = "kv_seen"  # last activity, seconds since the epoch
CLASS_CODE_MAX = 8
_CLASS_CODE = re.compile(r"[A-Z0-9]+")


# --- small services ---------------------------------------------------------------------------


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


def join_key(code: str) -> str:
    """The key of the class board's link for this code (an HMAC of the site's secret)."""
    return salted_hmac(JOIN_SALT, code, algorithm="sha256").hexdigest()[:JOIN_KEY_LENGTH]


def _join_key_ok(code: str, key: str) -> bool:
    return bool(code) and constant_time_compare(join_key(code), key or "")


def _may_look_up(request: HttpRequest, *, code: str, tablet: str, address: str) -> str:
    """Whether this try may look a code up, and what it was counted on ("" when it may not).

    "key": the board's own link; "address": within the address's hour; "tablet": past it, one
    of the tablet's own few lookups. Counted before the code is looked up, so tries at the same
    moment never look up more than the limits.
    """
    if _join_key_ok(code, request.POST.get("k", "")):
        return "key"
    if counters.hit(address, ADDRESS_CODE_WINDOW) <= ADDRESS_CODE_TRIES:
        return "address"
    if count_try("codeover", tablet, ADDRESS_CODE_WINDOW) <= OVER_LIMIT_TABLET_TRIES:
        return "tablet"
    return ""


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
    return permissions.is_student(request.user)


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
    prefill_key = request.GET.get("k", "") if _join_key_ok(prefill, request.GET.get("k")) else ""
    if request.method == "POST":
        tablet = tablet_id(request, mint=True)
        raw = request.POST.get("code", "")
        prefill = raw.strip()[:CODE_BOX]  # a wrong code stays in the box, to be mended
        code, error = _class_code(raw)
        address = counter_key("codeip", client_bucket(request))
        if counters.count(counter_key("code", tablet)) >= TABLET_TRIES:
            error = too_many_message()
        elif not raw.strip():
            pass  # an empty box is no try
        elif not (counted := _may_look_up(request, code=code, tablet=tablet, address=address)):
            error = too_many_message()
        elif not error:
            found = Classroom.objects.filter(code=code, archived_at__isnull=True).first()
            if found is not None:  # a right code gives its count back
                if counted == "address":
                    counters.unhit(address)
                elif counted == "tablet":
                    counters.unhit(counter_key("codeover", tablet))
                response = redirect("games:tablet_signin")
                response.set_signed_cookie(CLASS_COOKIE, found.code, salt=SALT, **cookie_options())
                return with_tablet_cookie(request, response)
            error = _("There is no class with this code. Check it with your teacher.")
            count_try("code", tablet, TRY_WINDOW)
        else:
            count_try("code", tablet, TRY_WINDOW)  # junk costs a try like a wrong code
        classroom = None
    if classroom is None:
        response = render(
            request,
            "games/signin_class.html",
            {"error": error, "code": prefill, "join_key": prefill_key},
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
    locked = paused(student, tablet)
    if locked:
        picks = []  # nothing is looked at while paused: the slots show empty
        if tablet and tries_left(student=student, tablet=tablet) <= 0:
            note_lock(student, tablet)
        if not message:
            message = too_many_message()
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
