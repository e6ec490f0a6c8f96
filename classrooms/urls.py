"""URLs of the classrooms app."""
from django.urls import path  # noqa: F401

app_name = "classrooms"
urlpatterns: list = []
