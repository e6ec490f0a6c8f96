"""The site's URLs: one include per app, the admin, auth, language switch and /healthz."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("classrooms.urls")),
    path("", include("games.urls")),
    path("reports/", include("classrooms.reports.urls")),
]
