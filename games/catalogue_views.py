"""The table catalogue for a developer (DEBUG only): the list of states, and each seat's table
of a state as its tablet shows it (games.catalogue). 404 when DEBUG is off."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games import catalogue


def _debug_only() -> None:
    if not settings.DEBUG:
        raise Http404("the table catalogue is shown in DEBUG only")


@require_GET
def catalogue_list(request: HttpRequest) -> HttpResponse:
    _debug_only()
    entries = [
        (entry, [(p, entry.names[p]) for p in entry.tablets()])
        for entry in catalogue.states().values()
    ]
    return render(request, "games/table_catalogue.html", {"entries": entries})


@require_GET
def catalogue_table(request: HttpRequest, name: str, position: int) -> HttpResponse:
    _debug_only()
    try:
        return HttpResponse(catalogue.render(name, position, request))
    except KeyError as exc:
        raise Http404("no such state or seat in the catalogue") from exc
