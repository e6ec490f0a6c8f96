"""Password reset by email for teachers and parents, on Django's own views.

Students never have a password to reset (they sign in with pictures); school admins are reset
by the site's administrators. The "done" page is the same whether or not an email matched,
so the form never tells who has an account.

Asking is rate-limited in the database (kavet_site.throttles.counters, so a Redis outage lifts
no limit), so the form can't be used to flood someone's mailbox or our mail server:

- per email address, RESET_EMAIL_TRIES an hour: past it the page says "sent" as always (it
  never tells whether the address has an account, nor that it was asked for too often) and
  nothing is sent;
- per client address (kavet_site.clientip: a school behind one address counts as one),
  RESET_CLIENT_TRIES an hour: past it the form answers 429 and asks to wait.
"""

from __future__ import annotations

import hashlib

from axes.utils import reset as axes_reset
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpResponseRedirect
from django.utils import translation
from django.utils.translation import gettext as _

from kavet_site.clientip import client_bucket
from kavet_site.throttles import counters

from . import permissions

RESET_WINDOW = 60 * 60
RESET_EMAIL_TRIES = 3  # a lost first email, a second try, one more: then wait the hour
RESET_CLIENT_TRIES = 20  # a whole school staff room behind one address


class KavetPasswordResetForm(PasswordResetForm):
    def get_users(self, email):
        return (user for user in super().get_users(email) if permissions.may_reset_password(user))

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

    def form_valid(self, form):
        client = counters.hit(f"pwreset:ip:{client_bucket(self.request)}", RESET_WINDOW)
        if client > RESET_CLIENT_TRIES:
            form.add_error(
                None,
                _(
                    "Too many requests for a new password from here. Wait an hour and try "
                    "again, or ask your school's administrator."
                ),
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        email = form.cleaned_data["email"].strip().lower()
        digest = hashlib.sha256(email.encode()).hexdigest()[:32]
        if counters.hit(f"pwreset:email:{digest}", RESET_WINDOW) > RESET_EMAIL_TRIES:
            return HttpResponseRedirect(self.get_success_url())  # the same page: nothing sent
        return super().form_valid(form)


class KavetPasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        # Whoever holds the email link owns the account: lift its sign-in lock everywhere.
        axes_reset(username=form.user.get_username())
        return response
