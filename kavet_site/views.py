"""Site-wide pages: the home page that sends each role to its place."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse

# Where each role lands after signing in; the apps register these URL names.
ROLE_HOME = {
    "teacher": "classrooms:teacher_home",
    "school_admin": "classrooms:teacher_home",
    "student": "games:student_home",
    "parent": "reports:parent_home",
}


def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    if user.is_authenticated:
        target = ROLE_HOME.get(getattr(user, "role", ""))
        if target:
            try:
                return redirect(reverse(target))
            except NoReverseMatch:
                pass
    return render(request, "home.html")
