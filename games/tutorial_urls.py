"""'Learn to play' (games/tutorial_views.py), in the games namespace."""

from django.urls import path

from . import tutorial_views

urlpatterns = [
    path("me/learn/", tutorial_views.tutorial_start, name="tutorial_start"),
]
