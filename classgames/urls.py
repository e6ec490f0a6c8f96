"""URLs of the class-game pages; the site's urls (kavet_site/urls.py) include them in the
"classrooms" namespace, beside the class pages, so their names stay "classrooms:session_live"
and so on."""

from django.urls import path

from . import replay_views, stream, views

_class = "teacher/classes/<int:pk>/"

urlpatterns = [
    path(_class + "play/", views.class_game_setup, name="class_game_setup"),
    path(_class + "play-now/", views.play_now, name="play_now"),
    path(
        _class + "attendance/<int:sid>/",
        views.attendance_mark,
        name="attendance_mark",
    ),
    path(_class + "history/", views.history, name="history"),
    path("teacher/class-games/<int:pk>/", views.session_live, name="session_live"),
    path(
        "teacher/class-games/<int:pk>/tables/<int:gid>/",
        views.session_live_table,
        name="session_live_table",
    ),
    path("teacher/class-games/<int:pk>/control/", views.session_control, name="session_control"),
    path(
        "teacher/class-games/<int:pk>/tables/<int:gid>/replace/",
        views.seat_replace,
        name="seat_replace",
    ),
    # Under /push/ with the tables' streams (kavet_site.asgi's admission gate is in front).
    path("push/session/<int:session_id>/", stream.session_stream, name="session_stream"),
    path("teacher/games/<int:pk>/replay/", views.game_replay, name="game_replay"),
    # A child's own finished game, from the tablet's home; a parent's, from the child's report.
    path("me/games/<int:pk>/replay/", replay_views.student_replay, name="student_replay"),
    path(
        "family/child/<int:student_id>/games/<int:pk>/replay/",
        replay_views.parent_replay,
        name="parent_replay",
    ),
]
