"""An email backend that keeps every message in the database (OutboxEmail) instead of sending
it: the demo's (settings: DEBUG and no EMAIL_BACKEND), read on the outbox page."""

from __future__ import annotations

from django.core.mail.backends.base import BaseEmailBackend


class OutboxBackend(BaseEmailBackend):
    def send_messages(self, email_messages) -> int:
        from .models import OutboxEmail

        sent = 0
        for message in email_messages:
            html = next(
                (
                    body
                    for body, kind in getattr(message, "alternatives", ())
                    if kind == "text/html"
                ),
                "",
            )
            OutboxEmail.objects.create(
                to=", ".join(message.to),
                subject=message.subject,
                text=message.body,
                html=html,
                headers={k: str(v) for k, v in (message.extra_headers or {}).items()},
            )
            sent += 1
        return sent
