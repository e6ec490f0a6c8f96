"""URLs of the activity log (namespace "audit")."""

from django.urls import path

from . import views

app_name = "audit"

urlpatterns = [
    path("teacher/activity/", views.activity, name="activity"),
]
