"""URLs of the weekly report email (mounted at /reports/email/, namespace reports:mail)."""

from django.urls import path

from . import views

app_name = "mail"
urlpatterns = [
    path("", views.email_settings, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
