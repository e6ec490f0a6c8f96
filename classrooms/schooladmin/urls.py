"""URLs of the school admin's pages (namespace "schooladmin")."""

from django.urls import path

from . import views

app_name = "schooladmin"

urlpatterns = [
    path("", views.home, name="home"),
    path("staff/", views.staff, name="staff"),
    path("staff/<int:pk>/active/", views.staff_active, name="staff_active"),
    path("staff/<int:pk>/password/", views.staff_password, name="staff_password"),
    path("staff/<int:pk>/unlock/", views.staff_unlock, name="staff_unlock"),
    path("classes/", views.classes, name="classes"),
    path("settings/", views.school_settings, name="settings"),
    path("data/", views.data, name="data"),
    path("data/roster.csv", views.roster_export, name="export"),
    path("import/", views.roster_import, name="import"),
    path("year/", views.year_rollover, name="year"),
    path("year/undo/", views.year_rollover_undo, name="year_undo"),
]
