"""URLs of the class board (classgames/board.py, on the class games' floor), included by the site's
urls (kavet_site/urls.py) under /board/, in the "games" namespace beside the tables."""

from django.urls import path

from . import board

urlpatterns = [
    path("", board.board_home, name="board_home"),
    path("class/<int:classroom_id>/", board.board_class, name="board_class"),
    path("class/<int:classroom_id>/join.svg", board.board_join_qr, name="board_join_qr"),
    path("table/<int:game_id>/", board.board_table, name="board_table"),
    path("session/<int:session_id>/", board.board_session, name="board_session"),
    path(
        "session/<int:session_id>/mistakes/",
        board.board_session_mistakes,
        name="board_session_mistakes",
    ),
    path(
        "class/<int:classroom_id>/mistakes/",
        board.board_class_mistakes,
        name="board_class_mistakes",
    ),
    path("mistake/<int:play_id>/", board.board_mistake, name="board_mistake"),
]
