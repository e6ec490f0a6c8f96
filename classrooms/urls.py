"""URLs of the teachers' pages (namespace "classrooms")."""

from django.urls import path

from . import views

app_name = "classrooms"

_class = "teacher/classes/<int:pk>/"
_student = _class + "students/<int:sid>/"

urlpatterns = [
    path("teacher/", views.teacher_home, name="teacher_home"),
    path("teacher/classes/new/", views.classroom_create, name="classroom_create"),
    path(_class, views.classroom_detail, name="classroom_detail"),
    path(_class + "edit/", views.classroom_edit, name="classroom_edit"),
    path(_class + "archive/", views.classroom_archive, name="classroom_archive"),
    path(_class + "next-year/", views.classroom_copy, name="classroom_copy"),
    path(_class + "students/add/", views.students_add, name="students_add"),
    path(_student, views.student_edit, name="student_edit"),
    path(_student + "move/", views.student_move, name="student_move"),
    path(_student + "remove/", views.student_remove, name="student_remove"),
    path(_student + "new-pictures/", views.student_code_reset, name="student_code_reset"),
    path(_student + "unlock-sign-in/", views.student_signin_unlock, name="student_signin_unlock"),
    path(_class + "levels/", views.levels, name="levels"),
    path(_class + "sign-in-cards/", views.signin_cards, name="signin_cards"),
    path(_class + "find-pictures/", views.code_lookup, name="code_lookup"),
    path("teacher/invitations/", views.invites, name="invites"),
    path("teacher/invitations/<int:pk>/revoke/", views.invite_revoke, name="invite_revoke"),
    path("invitation/<str:token>/", views.invite_accept, name="invite_accept"),
]
