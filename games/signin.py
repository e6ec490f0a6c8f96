"""Tablet sign-in for children: the tablet remembers its class, the child taps a name then 3 pictures."""
from __future__ import annotations

import secrets
import time

from django.contrib.auth import login, logout
from django.core.cache import cache
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from classrooms.models import Classroom, Student
from classrooms.pictures import CODE_LENGTH, PICTURE_COUNT, PICTURES, decode, encode

CLASS_COOKIE = "kavet_class"
TABLET_COOKIE = "kavet_tablet"
COOKIE_AGE = 400 * 24 * 3600  # a school year and then some: entered once per tablet
SALT = "kavet.tablet.class"
# Wrong tries allowed within the window before a pause (per student, and per tablet).
STUDENT_TRIES = 5
TABLET_TRIES = 15
TRY_WINDOW = 5 * 60
SESSION_KEY = "kv_student"  # {"idle": minutes, "classroom": id}
SEEN_KEY = "kv_seen"  # last activity, seconds since the epoch


# --- small services ---------------------------------------------------------------------------


def tablet_classroom(request: HttpRequest) -> Classroom | None:
    """The class this tablet remembers, if the code still names an open class."""
    try:
        code = request.get_signed_cookie(CLASS_COOKIE, salt=SALT)
    except (KeyError, BadSignature):
        return None
    return Classroom.objects.filter(code=code, archived_at__isnull=True).select_related("school").first()


def tablet_id(request: HttpRequest) -> str:
    return request.COOKIES.get(TABLET_COOKIE) or f"ip-{request.META.get('REMOTE_ADDR', '?')}"


def _key(kind: str, ident: object) -> str:
    return f"kv:signin:{kind}:{ident}"


def tries_left(*, student: Student, tablet: str) -> int:
    """How many wrong tries are left before a pause; 0 means wait."""
    used_student = cache.get(_key("s", student.pk), 0)
    used_tablet = cache.get(_key("t", tablet), 0)
    return max(0, min(STUDENT_TRIES - used_student, TABLET_TRIES - used_tablet))


def _count_failure(kind: str, ident: object) -> None:
    key = _key(kind, ident)
    # add() starts the window; incr() counts within it without extending it.
    if not cache.add(key, 1, TRY_WINDOW):
        try:
            cache.incr(key)
        except ValueError:
            cache.set(key, 1, TRY_WINDOW)


def signin_check(*, student: Student, pictures: tuple[int, ...], tablet: str) -> str | None:
    """None when the pictures are the student's; else a friendly reason. Counts failures."""
    if tries_left(student=student, tablet=tablet) <= 0:
        return _("Too many tries. Wait a few minutes, or ask your teacher for help.")
    if encode(pictures) == student.picture_code:
        cache.delete(_key("s", student.pk))
        return None
    _count_failure("s", student.pk)
    _count_failure("t", tablet)
    if tries_left(student=student, tablet=tablet) <= 0:
        return _("Too many tries. Wait a few minutes, or ask your teacher for help.")
    return _("Those are not your pictures. Try again!")


def student_signin(request: HttpRequest, student: Student) -> None:
    login(request, student.user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_KEY] = {"idle": student.classroom.student_idle_minutes,
                                    "classroom": student.classroom_id}
    request.session[SEEN_KEY] = time.time()


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
    if request.method == "POST":
        tablet = tablet_id(request)
        code = (request.POST.get("code") or "").strip().upper().replace(" ", "")[:8]
        if cache.get(_key("code", tablet), 0) >= TABLET_TRIES:
            error = _("Too many tries. Wait a few minutes, or ask your teacher for help.")
        else:
            found = Classroom.objects.filter(code=code, archived_at__isnull=True).first() if code else None
            if found is not None:
                response = redirect("games:tablet_signin")
                response.set_signed_cookie(CLASS_COOKIE, found.code, salt=SALT, max_age=COOKIE_AGE,
                                           httponly=True, samesite="Lax")
                if TABLET_COOKIE not in request.COOKIES:
                    response.set_cookie(TABLET_COOKIE, secrets.token_urlsafe(12), max_age=COOKIE_AGE,
                                        httponly=True, samesite="Lax")
                return response
            _count_failure("code", tablet)
            error = _("There is no class with this code. Check it with your teacher.")
        classroom = None
    if classroom is None:
        return render(request, "games/signin_class.html", {"error": error}, status=400 if error else 200)
    students = Student.objects.filter(classroom=classroom).order_by("name")
    return render(request, "games/signin_names.html", {"classroom": classroom, "students": students})


@require_POST
def tablet_forget(request: HttpRequest) -> HttpResponse:
    """The teacher moves the tablet to another class."""
    response = redirect("games:tablet_signin")
    response.delete_cookie(CLASS_COOKIE)
    return response


@require_http_methods(["GET", "POST"])
def tablet_pictures(request: HttpRequest, student_id: int) -> HttpResponse:
    """Tap three pictures in order; one request per tap, so it works without JavaScript too."""
    classroom = tablet_classroom(request)
    if classroom is None:
        return redirect("games:tablet_signin")
    student = get_object_or_404(Student.objects.select_related("user", "classroom"),
                                pk=student_id, classroom=classroom)
    tablet = tablet_id(request)
    picks: list[int] = []
    message = ""
    status = 200
    if request.method == "POST":
        try:
            picks = [i for i in decode(request.POST.get("so_far", "")) if 0 <= i < PICTURE_COUNT][:CODE_LENGTH]
            pick = int(request.POST.get("pick", ""))
        except ValueError:
            picks, pick = [], -1
        if request.POST.get("undo"):
            picks = picks[:-1]
        elif 0 <= pick < PICTURE_COUNT and len(picks) < CODE_LENGTH:
            picks.append(pick)
        if len(picks) == CODE_LENGTH:
            reason = signin_check(student=student, pictures=tuple(picks), tablet=tablet)
            if reason is None:
                student_signin(request, student)
                if request.htmx:
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = reverse("games:student_home")
                    return response
                return redirect("games:student_home")
            message, picks, status = reason, [], 200
    locked = tries_left(student=student, tablet=tablet) <= 0
    if locked and not message:
        message = _("Too many tries. Wait a few minutes, or ask your teacher for help.")
    ctx = {
        "student": student, "pictures": PICTURES, "picks": picks, "so_far": encode(picks),
        "chosen": [PICTURES[i] for i in picks], "slots": range(CODE_LENGTH - len(picks)),
        "message": message, "locked": locked,
    }
    template = "games/signin_pictures.html#pictures" if request.htmx else "games/signin_pictures.html"
    return render(request, template, ctx, status=status)


@require_POST
def student_signout(request: HttpRequest) -> HttpResponse:
    """"I'm done": the next child never plays in this one's name; the tablet keeps its class."""
    logout(request)
    return redirect("games:tablet_signin")
