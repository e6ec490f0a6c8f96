"""The teacher's practice goals of a class (games/practice_views.py), in the games namespace."""

from django.urls import path

from . import practice_views

_class = "teacher/classes/<int:pk>/practice/"

urlpatterns = [
    path(_class, practice_views.practice_goals, name="practice_goals"),
    path(
        _class + "<int:goal_id>/remove/",
        practice_views.practice_goal_delete,
        name="practice_goal_delete",
    ),
]
