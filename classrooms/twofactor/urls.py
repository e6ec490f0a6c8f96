"""URLs of the second factor (namespace "twofactor")."""

from django.urls import path

from . import views

app_name = "twofactor"

urlpatterns = [
    path("login/code/", views.verify, name="verify"),
    path("teacher/second-factor/", views.mine, name="mine"),
    path("teacher/second-factor/set-up/", views.setup, name="setup"),
    path("teacher/second-factor/recovery-codes/", views.recovery_codes, name="recovery_codes"),
    path("teacher/second-factor/turn-off/", views.turn_off, name="turn_off"),
    path("teacher/staff-sign-in/", views.school, name="school"),
    path("teacher/staff-sign-in/<int:user_id>/reset/", views.reset, name="reset"),
]
