"""URLs of the push streams (server-sent events), included by games/urls.py under /push/."""

from django.urls import path

from . import stream

urlpatterns = [
    path("table/<int:game_id>/", stream.table_stream, name="table_stream"),
    path("session/<int:session_id>/", stream.session_stream, name="session_stream"),
]
