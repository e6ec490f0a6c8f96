"""URLs of the games app: tablet sign-in, the student's home, the game table."""

from django.urls import include, path

from . import catalogue_views, entry, signin, views

app_name = "games"
urlpatterns = [
    path("tablet/", signin.tablet_signin, name="tablet_signin"),
    path("tablet/forget/", signin.tablet_forget, name="tablet_forget"),
    path("tablet/student/<int:student_id>/", signin.tablet_pictures, name="tablet_pictures"),
    path("tablet/done/", signin.student_signout, name="student_signout"),
    path("me/", views.student_home, name="student_home"),
    path("me/practice/", views.practice_start, name="practice_start"),
    path("play/<int:game_id>/", views.table, name="table"),
    path("play/<int:game_id>/move/", views.table_move, name="table_move"),
    path("play/<int:game_id>/log/", views.table_moves, name="table_log"),
    path("play/<int:game_id>/steps/", entry.table_steps, name="table_steps"),  # R2.4
    path("play/<int:game_id>/stop/", views.practice_stop, name="practice_stop"),
    # The table in every state of games.catalogue, for a developer (404 unless DEBUG).
    path("dev/table-states/", catalogue_views.catalogue_list, name="table_catalogue"),
    path(
        "dev/table-states/<slug:name>/<int:position>/",
        catalogue_views.catalogue_table,
        name="table_catalogue_state",
    ),
    path("how-to-play/", include("games.howto")),  # how to play, for children and teachers
    path("push/", include("games.stream_urls")),  # server-sent events (games/stream.py)
    path("", include("games.practice_urls")),  # practice goals (games/practice_views.py)
    path("", include("games.tutorial_urls")),  # "Learn to play" (games/tutorial_views.py)
]
