"""URLs of the weekly report email (mounted at /reports/email/, namespace reports:mail)."""

from django.urls import path

from . import views

app_name = "mail"
urlpatterns = [
    path("", views.email_settings, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    # A teacher or school admin: this week's email of a parent, seen and sent now.
    path("preview/", views.email_preview, name="preview"),
    path("preview/html/", views.email_preview_html, name="preview_html"),
    # The school's settings page, its weekly email section (the school admin's).
    path("school/", views.school_email_settings, name="school_settings"),
    # The development outbox (DEBUG only, else 404).
    path("outbox/", views.outbox, name="outbox"),
    path("outbox/<int:email_id>/", views.outbox_email, name="outbox_email"),
    path("outbox/<int:email_id>/html/", views.outbox_email_html, name="outbox_email_html"),
]
