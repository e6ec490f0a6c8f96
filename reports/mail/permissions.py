"""Who may read the weekly emails' rows (the rules of classrooms.permissions, for this app): a
parent's own email settings and sent-log are theirs alone."""

from __future__ import annotations

from django.db.models import Q

from classrooms.permissions import rules

from .models import EmailPreference, WeeklyEmail


def _own(user) -> Q:
    return Q(parent=user)


rules(EmailPreference, read=_own)
rules(WeeklyEmail, read=_own)
