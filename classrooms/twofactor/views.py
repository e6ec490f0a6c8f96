"""The second factor's pages: the code at sign-in, setting it up, one's own, the school's."""

from __future__ import annotations

from axes.handlers.proxy import AxesProxyHandler
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from classrooms import audit, permissions
from classrooms.audit.models import Action
from classrooms.models import User
from kavet_site.auth_throttle import lockout_response

from . import services


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def _staff_only(request: HttpRequest) -> None:
    if not permissions.is_staff(request.user):
        raise Http404("staff only")


def _locked_out(request: HttpRequest, credentials: dict) -> HttpResponse:
    """Too many wrong codes (or passwords) for this account from here: signed out, and told."""
    request.kavet_lock_reason = "account"
    logout(request)
    return lockout_response(request, credentials=credentials)


@login_required
def verify(request: HttpRequest) -> HttpResponse:
    """The second step of a staff sign-in: a code from the phone's app, or a recovery code."""
    user = request.user
    if request.session.get(services.SESSION_FLAG) != services.VERIFY:
        return redirect(_next(request))
    if not services.has_second_factor(user):  # reset by another admin meanwhile
        request.session.pop(services.SESSION_FLAG, None)
        return redirect(_next(request))
    credentials = {"username": user.get_username()}
    error = ""
    if request.method == "POST":
        if AxesProxyHandler.is_locked(request, credentials):
            return _locked_out(request, credentials)
        check = services.code_check(user=user, code=request.POST.get("code", ""))
        if check.device is not None:
            services.session_verified(request, check.device)
            if not check.recovery:
                audit.record(request, Action.SIGNED_IN, user, second_factor=True)
            else:
                left = services.recovery_codes_left(user)
                audit.record(request, Action.RECOVERY_CODE_USED, user, left=left)
                messages.warning(
                    request,
                    _(
                        "You signed in with a recovery code; it cannot be used again. "
                        "%(left)s codes are left."
                    )
                    % {"left": left},
                )
            return redirect(_next(request))
        # Counted like a wrong password of this account from this address (django-axes).
        user_login_failed.send(
            sender=__name__, credentials=credentials, request=request, second_factor=True
        )
        if AxesProxyHandler.is_locked(request, credentials):
            return _locked_out(request, credentials)
        if check.wait_until is not None:
            error = _("Too many wrong codes. Wait until %(time)s, then try again.") % {
                "time": date_format(localtime(check.wait_until), "TIME_FORMAT")
            }
        else:
            error = _(
                "That code is not right. Type the 6 digits your app shows now, "
                "or one of your recovery codes."
            )
    return render(
        request,
        "twofactor/verify.html",
        {"error": error, "next": _next(request)},
        status=400 if error else 200,
    )


@login_required
def setup(request: HttpRequest) -> HttpResponse:
    """Set up the phone's app: scan the QR code, type the code it shows; recovery codes once."""
    _staff_only(request)
    user = request.user
    if request.session.get(services.SESSION_FLAG) == services.VERIFY:
        return redirect("twofactor:verify")
    key = services.pending_key(request)
    error = ""
    if request.method == "POST":
        try:
            device, codes = services.second_factor_set_up(
                user=user, key=key, code=request.POST.get("code", "")
            )
        except ValidationError as exc:
            error = " ".join(exc.messages)
        else:
            services.session_verified(request, device)
            audit.record(request, Action.SECOND_FACTOR_ON, user)
            return render(
                request,
                "twofactor/recovery_codes.html",
                {"codes": codes, "next": _next(request), "first": True},
            )
    url = services.config_url(user, key)
    return render(
        request,
        "twofactor/setup.html",
        {
            "qr": _qr_data_uri(url),
            "secret": services.secret_text(key),
            "error": error,
            "next": _next(request),
            "required": request.session.get(services.SESSION_FLAG) == services.SET_UP,
        },
        status=400 if error else 200,
    )


def _qr_data_uri(url: str) -> str:
    import segno

    return segno.make(url, error="m").svg_data_uri(scale=5, border=4)


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    """One's own second factor: whether it is on, the recovery codes left, new ones, off."""
    _staff_only(request)
    user = request.user
    return render(
        request,
        "twofactor/mine.html",
        {
            "on": services.has_second_factor(user),
            "left": services.recovery_codes_left(user),
            "required": permissions.is_school_admin(user)
            and services.school_requires(user.school_id),
        },
    )


@login_required
@require_POST
def recovery_codes(request: HttpRequest) -> HttpResponse:
    _staff_only(request)
    user = request.user
    if not services.has_second_factor(user):
        messages.error(request, _("Set up a second factor first."))
        return redirect("twofactor:mine")
    codes = services.recovery_codes_new(user=user)
    audit.record(request, Action.RECOVERY_CODES_NEW, user)
    return render(
        request, "twofactor/recovery_codes.html", {"codes": codes, "next": "", "first": False}
    )


@login_required
@require_POST
def turn_off(request: HttpRequest) -> HttpResponse:
    _staff_only(request)
    user = request.user
    if request.POST.get("confirm") != "yes":
        messages.error(request, _("Tick the box to confirm."))
        return redirect("twofactor:mine")
    try:
        services.second_factor_turn_off(user=user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        audit.record(request, Action.SECOND_FACTOR_OFF, user)
        messages.success(request, _("Your second factor is off."))
    return redirect("twofactor:mine")


@permissions.admin_required
def school(request: HttpRequest) -> HttpResponse:
    """The school's rule for its admins, and who of its staff has a second factor."""
    user = request.user
    if request.method == "POST":
        required = request.POST.get("required") == "on"
        try:
            changed = services.school_rule_set(school=user.school, required=required, by=user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            if changed:
                audit.record(
                    request,
                    Action.SCHOOL_CHANGED,
                    user.school,
                    changed=["admins_need_second_factor"],
                    new=required,
                )
            messages.success(request, _("Saved."))
        return redirect("twofactor:school")
    staff = list(
        permissions.accounts_of_school(user.school_id)
        .filter(role__in=permissions.STAFF_ROLES, is_active=True)
        .order_by("role", "last_name", "first_name", "username")
    )
    with_device = services.with_second_factor([s.pk for s in staff])
    return render(
        request,
        "twofactor/school.html",
        {
            "required": services.school_requires(user.school_id),
            "rows": [(s, s.pk in with_device) for s in staff],
        },
    )


@permissions.admin_required
@require_POST
def reset(request: HttpRequest, user_id: int) -> HttpResponse:
    """Another admin of the school resets a colleague's second factor (a lost phone)."""
    target = permissions.get_manageable_or_404(
        request.user,
        User.objects.filter(role__in=permissions.STAFF_ROLES),
        what="staff account",
        pk=user_id,
    )
    if request.POST.get("confirm") != "yes":
        messages.error(request, _("Tick the box to confirm."))
        return redirect("twofactor:school")
    try:
        services.second_factor_reset(target=target, by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        audit.record(request, Action.SECOND_FACTOR_RESET, target)
        messages.success(
            request,
            _("%(name)s's second factor was reset: they set up a new one at their next sign-in.")
            % {"name": audit.person_name(target)},
        )
    return redirect("twofactor:school")
