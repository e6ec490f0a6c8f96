"""The push stream of a class game (the teacher's live view, the class board, the skill grid):

    GET /push/session/<session_id>/?v=<version seen>

Its tables are one group (games.signals.table_group, declared in apps.py): games.stream serves
it, this view says who may watch it and what its tables' versions are.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from games.stream import group_stream

from .permissions import session_get


@require_GET
def session_stream(request: HttpRequest, session_id: int) -> HttpResponse:
    """The teacher's live view: a class game of a class they teach (else 404, as the page)."""

    def versions(request: HttpRequest) -> dict[int, int]:
        session = session_get(request.user, session_id)  # else 404
        return dict(session.games.values_list("pk", "version"))

    return group_stream(request, session_id, versions)
