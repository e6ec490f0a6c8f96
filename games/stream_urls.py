"""URLs of the push streams (server-sent events), included by games/urls.py under /push/.

A class game's stream (/push/session/<id>/) is the class games' (classgames/urls.py), served
by games.stream.group_stream."""

from django.urls import path

from . import stream

urlpatterns = [
    path("table/<int:game_id>/", stream.table_stream, name="table_stream"),
]
