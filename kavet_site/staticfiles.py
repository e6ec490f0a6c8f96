"""WhiteNoise, its table of static files built once per process instead of once per handler.

WhiteNoiseMiddleware lists every static file (STATIC_ROOT, and every finder's when
WHITENOISE_USE_FINDERS) each time it is instantiated: once per request handler. A server makes
one handler, so this changes nothing in production; but Django's test Client makes a handler per
client, and the finders' ~500 files (Django admin's among them) were listed again for each:
a tenth of a second of CPU per client, most of some test modules' time (issue 35). The files
listed are kept per process, keyed by everything that goes into them (the roots, the URL prefix,
the finders' settings and WhiteNoise's header settings), and shared by every instance.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    _listed: ClassVar[dict[tuple, dict]] = {}

    def _key(self, *what) -> tuple:
        return (
            *what,
            tuple(str(d) for d in settings.STATICFILES_DIRS),
            tuple(settings.INSTALLED_APPS),
            tuple(settings.STATICFILES_FINDERS),
            self.autorefresh,
            self.max_age,
            self.allow_all_origins,
            self.charset,
            self.index_file,
            self.add_headers_function,
            # (the default test is a method: its function, the same for every instance)
            getattr(self.immutable_file_test, "__func__", self.immutable_file_test),
            repr(getattr(settings, "WHITENOISE_MIMETYPES", None)),
        )

    def _once(self, key: tuple, list_files) -> None:
        if self.autorefresh:  # (DEBUG: nothing is listed, each request looks on disk)
            list_files()
            return
        listed = self._listed.get(key)
        if listed is None:
            own, self.files = self.files, {}
            try:
                list_files()
                listed = self._listed[key] = self.files
            finally:
                self.files = own
        self.files.update(listed)

    def add_files(self, root, prefix=None):
        self._once(
            self._key("root", str(root), prefix),
            lambda: super(StaticFilesMiddleware, self).add_files(root, prefix),
        )

    def add_files_from_finders(self):
        self._once(
            self._key("finders", self.static_prefix),
            lambda: super(StaticFilesMiddleware, self).add_files_from_finders(),
        )
