"""Password reset by email for teachers and parents, on Django's own views.

Students never have a password to reset (they sign in with pictures); school admins are reset
by the site's administrators. The "done" page is the same whether or not an email matched,
so the form never tells who has an account.
"""

from __future__ import annotations

from axes.utils import reset as axes_reset
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.utils import translation

from classrooms.models import User

RESETTABLE_ROLES = (User.Role.TEACHER, User.Role.PARENT)


class KavetPasswordResetForm(PasswordResetForm):
    def get_users(self, email):
        return (user for user in super().get_users(email) if user.role in RESETTABLE_ROLES)

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        # In the language the person chose, else the language of the page they asked from.
        language = getattr(context.get("user"), "language", "") or translation.get_language()
        with translation.override(language):
            super().send_mail(
                subject_template_name,
                email_template_name,
                context,
                from_email,
                to_email,
                html_email_template_name,
            )


class KavetPasswordResetView(auth_views.PasswordResetView):
    form_class = KavetPasswordResetForm


class KavetPasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        # Whoever holds the email link owns the account: lift its sign-in lock everywhere.
        axes_reset(username=form.user.get_username())
        return response
