"""URLs of the class-game pages; classrooms/urls.py includes them in the "classrooms" namespace,
so their names stay "classrooms:session_live" and so on."""

from django.urls import path

from . import views

_class = "teacher/classes/<int:pk>/"

urlpatterns = [
    path(_class + "play/", views.class_game_setup, name="class_game_setup"),
    path(_class + "history/", views.history, name="history"),
    path("teacher/class-games/<int:pk>/", views.session_live, name="session_live"),
    path("teacher/class-games/<int:pk>/control/", views.session_control, name="session_control"),
    path(
        "teacher/class-games/<int:pk>/tables/<int:gid>/replace/",
        views.seat_replace,
        name="seat_replace",
    ),
    path("teacher/games/<int:pk>/replay/", views.game_replay, name="game_replay"),
]
