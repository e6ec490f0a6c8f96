"""The site's URLs: one include per app, the admin, auth, language switch, /healthz, /privacy/,
and the styled error pages (kavet_site.views: a way back for who the user is)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from classgames import board_urls
from classgames import urls as class_game_urls
from classrooms import auth_forms, oidc
from classrooms import urls as classroom_urls
from classrooms.audit import urls as audit_urls
from classrooms.twofactor import urls as twofactor_urls
from games import urls as game_urls

from . import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("privacy/", views.privacy, name="privacy"),
    path("accessibility/", views.accessibility, name="accessibility"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Staff sign-in with the school's accounts (OpenID Connect; 404 where none is configured).
    path("oidc/authenticate/", oidc.OIDCStart.as_view(), name="oidc_start"),
    path("oidc/callback/", oidc.OIDCCallback.as_view(), name="oidc_callback"),
    # Password reset by email (teachers and parents), Django's views under Django's names.
    path("password-reset/", auth_forms.KavetPasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        auth_forms.KavetPasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # The admin's sign-in page shows "Forgotten your password?" when this name exists.
    path(
        "admin/password-reset/",
        auth_forms.KavetPasswordResetView.as_view(),
        name="admin_password_reset",
    ),
    path("admin/", admin.site.urls),
    # The class pages and the class-game pages share the "classrooms" namespace (their names).
    path("", include((classroom_urls.urlpatterns + class_game_urls.urlpatterns, "classrooms"))),
    # The tables and the class board (a class-game page: classgames/board_urls.py) share "games".
    path("", include((game_urls.urlpatterns + [path("board/", include(board_urls))], "games"))),
    path("reports/", include("reports.urls")),
    path("school/", include("classrooms.schooladmin.urls")),
    path("", include(audit_urls)),
    path("", include(twofactor_urls)),
]

handler400 = "kavet_site.views.bad_request"
handler403 = "kavet_site.views.permission_denied"
handler404 = "kavet_site.views.page_not_found"
handler500 = "kavet_site.views.server_error"
