"""Who may read or change the class games (the rules of classrooms.permissions, for this app):
a class game follows its class (staff who teach it, a school admin for the whole school)."""

from __future__ import annotations

from classrooms.permissions import get_manageable_or_404, in_classroom, rules

from .models import ClassSession


def session_get(user, pk: int) -> ClassSession:
    return get_manageable_or_404(
        user, ClassSession.objects.select_related("classroom"), what="class game", pk=pk
    )


rules(ClassSession, read=in_classroom)
