"""One row per rate-limit counter (see counters.py for why they are not in the cache)."""

from __future__ import annotations

from django.db import models


class Counter(models.Model):
    """How often something happened within a window that started at its first time."""

    bucket = models.CharField(max_length=200, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.bucket}: {self.count} until {self.expires_at:%Y-%m-%d %H:%M:%S}"
