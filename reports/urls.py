"""URLs of the reports app (mounted at /reports/)."""

from django.urls import include, path

from . import moves_views, views

app_name = "reports"
urlpatterns = [
    path("", views.parent_home, name="parent_home"),
    path("join/", views.join, name="join"),
    path("children/add/", views.link_child, name="link_child"),
    path("child/<int:student_id>/", views.child_report, name="child"),
    path("child/<int:student_id>/pdf/", views.child_report_pdf, name="child_pdf"),
    path("classes/", views.class_list, name="class_list"),
    path("class/<int:classroom_id>/", views.class_report, name="class"),
    path("class/<int:classroom_id>/csv/", views.class_report_csv, name="class_csv"),
    path("student/<int:student_id>/", views.student_report, name="student"),
    path("student/<int:student_id>/invite/", views.invite_create, name="invite_create"),
    path("student/<int:student_id>/export.json", views.student_export, name="student_export"),
    path("student/<int:student_id>/erase/", views.student_erase, name="student_erase"),
    path("invite/<int:invite_id>/revoke/", views.invite_revoke, name="invite_revoke"),
    path("link/<int:link_id>/revoke/", views.link_revoke, name="link_revoke"),
    path("build/", views.build, name="build"),
    path("job/<int:job_id>/", views.job, name="job"),
    # The moves behind a number: a report's figure, a cell of the live skill grid.
    path("child/<int:student_id>/moves/", moves_views.child_moves, name="child_moves"),
    path("student/<int:student_id>/moves/", moves_views.student_moves, name="student_moves"),
    path("class/<int:classroom_id>/moves/", moves_views.class_moves, name="class_moves"),
    path("live/<int:session_id>/", moves_views.live_skills, name="live_skills"),
    path(
        "live/<int:session_id>/cell/<int:student_id>/<str:skill>/",
        moves_views.live_cell,
        name="live_cell",
    ),
    path("email/", include("reports.mail.urls")),
    path(
        "proposal/<int:rec_id>/<str:decision>/",
        views.recommendation_decide,
        name="recommendation_decide",
    ),
]
