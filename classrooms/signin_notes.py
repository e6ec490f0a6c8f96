"""Where a school's staff sign in from, so the school's admin hears of a sign-in flood there."""

from __future__ import annotations

from kavet_site.auth_throttle import note_staff_address

from .permissions import is_staff


def note_staff_signin(sender, request, user, **kwargs) -> None:
    """user_logged_in: a teacher's or school admin's address is noted for their school.

    Parents sign in from home and children from the class tablets: neither is noted.
    """
    if request is not None and is_staff(user) and user.school_id:
        note_staff_address(school_id=user.school_id, request=request)
