"""Settings, read from the environment, with embedded defaults for a one-laptop trial.

Nothing set: SQLite next to manage.py, an in-process cache, Celery tasks run eagerly.
DATABASE_URL set: PostgreSQL through psycopg 3 with persistent, health-checked connections.
REDIS_URL set: Redis is the cache and the Celery broker; tasks go to real workers.
"""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), not {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
_DEV_SECRET = "dev-only-insecure-key-kavet-m-eus-change-me-in-production-0123456789"
SECRET_KEY = os.environ.get("SECRET_KEY") or _DEV_SECRET
if SECRET_KEY == _DEV_SECRET and not DEBUG and env_bool("KAVET_PRODUCTION", False):
    raise ImproperlyConfigured("SECRET_KEY must be set in production")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "classrooms",
    # The staff's activity log (append-only) and their second factor (TOTP, recovery codes).
    "classrooms.audit",
    "classrooms.twofactor",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "reports",
    "reports.mail",
    "games",
    "classgames",
    "demo",
    # Rate-limit counters in the database (they must hold while Redis is down).
    "kavet_site.throttles",
    # manage.py backup / restore, and the nightly backup.
    "kavet_site.backups",
    # Password-login throttling (per account and per client); keep it last (axes' docs).
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A database outage answers a 503 "try again" page (templates/503.html), not a bare 500:
    # outside everything that may touch the database.
    "kavet_site.middleware.DatabaseUnavailableMiddleware",
    # Before sessions and users: an unchanged table poll is answered here (the hottest path).
    "games.middleware.TablePollMiddleware",
    "kavet_site.staticfiles.StaticFilesMiddleware",  # WhiteNoise, its files listed once
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's AuthenticationMiddleware, the session's user read by one prepared statement.
    "kavet_site.userread.PreparedAuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Content-Security-Policy header on every response (django-csp; policy in "Security").
    "csp.middleware.CSPMiddleware",
    # Sync only, and so placed as deep as it can go: under ASGI every middleware above it then
    # runs in the one thread the request's sync code gets, instead of XFrameOptions, htmx and
    # CSP running on the event loop with a thread hop for each of their hooks (measured:
    # benchmarks/README.md, the capacity section). Its early answers (signed out) get their headers on the way out.
    "games.middleware.StudentIdleMiddleware",
    # Sync too, beside it: a staff session owing its second factor reaches only that page.
    "classrooms.twofactor.middleware.SecondFactorMiddleware",
    # Last, as axes asks: turns a locked-out login into its lockout page.
    "axes.middleware.AxesMiddleware",
]

# Benchmarks mount extra views (a bare view to compare with) through their own URLconf.
ROOT_URLCONF = os.environ.get("KAVET_URLCONF", "kavet_site.urls")
WSGI_APPLICATION = "kavet_site.wsgi.application"
ASGI_APPLICATION = "kavet_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
            conn_health_checks=True,
        )
    }
    # A PostgreSQL that does not answer costs a request at most this long, not the OS's minutes.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = int(
        os.environ.get("DB_CONNECT_TIMEOUT", "3")
    )
    if "postgresql" in DATABASES["default"]["ENGINE"] and env_bool("DB_PREPARE", True):
        # The hand-written hot statements (kavet_site.prepared.cursor) are prepared by the
        # server once per connection; nothing else is (Django's cursors bind on the client and
        # never prepare, whatever this says; psycopg prepares a server-binding cursor's
        # statement only when asked, or after this many runs: never). DB_PREPARE=0 behind a
        # pooler in transaction mode older than PgBouncer 1.21, which cannot keep them.
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 2**31
    # DB_POOL=1 (set by gunicorn.conf.py under ASGI): psycopg's connection pool, so the short
    # threads that run each ASGI request's sync code borrow a connection instead of opening one.
    if env_bool("DB_POOL", False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": int(os.environ.get("DB_POOL_MIN_SIZE", "2")),
            "max_size": int(os.environ.get("DB_POOL_MAX_SIZE", "16")),
            "timeout": int(os.environ.get("DB_POOL_TIMEOUT", "3")),
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Tables are shared by several tablets: wait for a write lock rather than fail.
            # WAL lets tablets read while one writes; IMMEDIATE takes the write lock at BEGIN,
            # so two writers queue (busy timeout, in seconds) instead of failing mid-move.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Tests use a file too, one per test run: an in-memory test database is shared-cache,
            # which locks whole tables ("database table is locked") and ignores WAL and the timeout.
            "TEST": {
                "NAME": os.environ.get("SQLITE_TEST_PATH")
                or os.path.join(tempfile.gettempdir(), f"kavet-test-{os.getpid()}.sqlite3")
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Where the nightly backup writes its archives, and how many it keeps (kavet_site/backups).
KAVET_BACKUP_DIR = os.environ.get("KAVET_BACKUP_DIR", str(BASE_DIR / "backups"))
KAVET_BACKUP_KEEP = int(os.environ.get("KAVET_BACKUP_KEEP", "14"))

# --- Cache and Celery -----------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
# Seconds a Redis call may take before it counts as "Redis is down" (cache, sessions, broker).
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "0.5"))
if REDIS_URL:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    CACHES = {
        "default": {
            # Degrades instead of failing: with Redis down, reads miss and writes are dropped,
            # behind a 5 s circuit breaker (kavet_site/cache.py); sessions then use the database.
            "BACKEND": "kavet_site.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "kavet",
            "OPTIONS": {
                "socket_connect_timeout": REDIS_SOCKET_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
                # redis-py retries 3 times with back-off by default: once is enough for a cache.
                "retry": Retry(NoBackoff(), 1),
                "health_check_interval": 30,
            },
        }
    }
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
    CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
    CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # The embedded default: no broker, every task runs in-process at once.
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
# A message a worker took but never acknowledged (the worker was killed, or lost Redis) goes back
# to the queue this long after it was delivered. It must exceed the longest task PLUS the longest
# countdown, or a task still running (or still waiting for its ETA) is handed out a second time:
# a class of 30 reports builds in well under a minute (benchmarks/bench_reports.py), a computer
# player's countdown is at most ~10 s, and a report retry's back-off waits up to 120 s. 300 s
# covers that with a wide margin and bounds how late a job lost with a killed worker runs.
CELERY_VISIBILITY_TIMEOUT = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # Look for such messages every 10 s (kombu's default scans only every 10th time, ~100 s):
    # one ZRANGE per worker every 10 s brings a lost message back within the timeout + 10 s.
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
    "socket_connect_timeout": 2,
    "socket_timeout": 10,
    "retry_on_timeout": True,
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
# Results are only read by /healthz-style round trips and tests: keep them an hour, not a day.
CELERY_RESULT_EXPIRES = 3600
# A publish while Redis is down fails after ~1 s instead of hanging the request; the job is
# found again from the database by the beat sweeps (games.tasks, reports.tasks).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
# Reconnect forever after the broker comes back (a worker must never give up on Redis), trying
# twice a second (kavet_site.celery.Consumer says why), and sweep the games at once when back.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CONSUMER = "kavet_site.celery:Consumer"
# What fell due is swept; what falls due soon gets its tick queued (a deadline stamped while
# Redis was down has no task of its own): issue 39, gap 5.
KAVET_SWEEPS_ON_CONNECT = ["games.tasks.sweep_due_games", "games.tasks.arm_due_games"]
# The beat schedule lives in code; exactly one beat process runs it (see README).
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "games-sweep-timers": {
        "task": "games.tasks.sweep_due_games",
        "schedule": 5.0,
    },
    "reports-sweep-jobs": {
        # Build requests whose message was lost (Redis down when they were queued) or whose
        # worker died mid-build (its heartbeat stale): queued again from the database. Every
        # 15 s, so a dead worker's build is taken over within 45 s (reports.tasks says why).
        "task": "reports.tasks.sweep_report_jobs",
        "schedule": 15.0,
    },
    "reports-weekly": {
        # Hourly: the task itself picks the schools where it is Monday morning now.
        "task": "reports.tasks.schedule_weekly_reports",
        "schedule": crontab(minute=5),
    },
    "reports-weekly-email": {
        # Hourly: parents whose children's reports of last week are built get them by email.
        "task": "reports.mail.tasks.schedule_weekly_emails",
        "schedule": crontab(minute=35),
    },
    "throttles-sweep": {
        # Hourly: rate-limit counters whose window is over are deleted (reads ignore them).
        "task": "kavet_site.throttles.tasks.sweep_counters",
        "schedule": crontab(minute=50),
    },
    "nightly-backup": {
        # Nightly: an archive of the database (and files) in KAVET_BACKUP_DIR, the newest
        # KAVET_BACKUP_KEEP kept (kavet_site/backups). Copy them elsewhere too (README).
        "task": "kavet_site.backups.tasks.nightly_backup",
        "schedule": crontab(minute=15, hour=1),
    },
    "tablets-sweep": {
        # Daily: tablet ids not seen for 90 days are forgotten (games.tablets.TABLET_DAYS).
        "task": "games.tasks.sweep_tablets",
        "schedule": crontab(minute=40, hour=2),
    },
    "demo-keep-alive": {
        # The demo school's running class game plays on (nothing to do on a site without it).
        "task": "demo.tasks.demo_keep_alive_sweep",
        "schedule": 10.0,
    },
    "retention-erase-weekly": {
        # Sunday night, no class playing: play data past KAVET_RETENTION_YEARS is erased.
        "task": "classrooms.tasks.retention_erase_weekly",
        "schedule": crontab(minute=0, hour=3, day_of_week="sun"),
    },
}

# In the database behind the cache; every cache failure falls back to the database (sessions.py).
SESSION_ENGINE = "kavet_site.sessions" if REDIS_URL else "django.contrib.sessions.backends.db"

# --- Auth -----------------------------------------------------------------------------------
AUTH_USER_MODEL = "classrooms.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Staff signing in with the school's accounts (OpenID Connect, below): answers nothing on a
    # site without a provider, and never a password sign-in.
    "classrooms.oidc.SchoolOIDCBackend",
]
# Password logins (teachers, parents, school admins, /admin/login/). A lock is keyed on the
# account *and* the client together, so a guesser locks themselves out, not the teacher at
# another computer. Many different names failing from one client (a flood) never refuse a name
# with no wrong password of its own there, as a whole school often shares one address: its
# sign-ins are slowed (at most AXES_FLOOD_DELAY_MAX_MS), and a name that failed there twice is
# paused (kavet_site/auth_throttle.py). The admins see each flood (classrooms/admin.py).
# Students never type a password (tablet sign-in calls login() directly): axes never refuses them.
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
# Different names (not tries) failing from one client before it counts as a flood.
KAVET_AXES_CLIENT_FAILURE_LIMIT = int(os.environ.get("AXES_CLIENT_FAILURE_LIMIT", "20"))
KAVET_AXES_FLOOD_DELAY_MAX = int(os.environ.get("AXES_FLOOD_DELAY_MAX_MS", "1500")) / 1000
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "kavet_site.auth_throttle.KavetAxesHandler"
# A success forgives that account's own failures from that address (never the client-wide count).
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_LOCKOUT_CALLABLE = "kavet_site.auth_throttle.lockout_response"
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "kavet_site.auth_throttle.throttle_username"
# The client's address as every rate limit reads it (kavet_site/clientip.py, KAVET_TRUSTED_PROXIES).
AXES_CLIENT_IP_CALLABLE = "kavet_site.auth_throttle.throttle_client_ip"
# Only failures are kept (and only for the cool-off): no row per successful sign-in, which
# would be a lasting trail of every child's tablet sign-in.
AXES_DISABLE_ACCESS_LOG = True
# Staff sign in with the school's accounts through OpenID Connect (classrooms/oidc.py,
# mozilla-django-oidc): Google Workspace for Education, Microsoft Entra ID, a French ENT. Set the
# issuer (its discovery document gives the endpoints), the client's id and secret as registered
# there, with the redirect URI https://<site>/oidc/callback/. An account is matched to an invited
# member of staff by a verified email; no account is ever made for a stranger.
KAVET_OIDC_ISSUER = os.environ.get("KAVET_OIDC_ISSUER", "").rstrip("/")
OIDC_RP_CLIENT_ID = os.environ.get("KAVET_OIDC_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = os.environ.get("KAVET_OIDC_CLIENT_SECRET", "")
# The provider's name on the sign-in button ("Sign in with ENT"); none: "your school account".
KAVET_OIDC_NAME = os.environ.get("KAVET_OIDC_NAME", "")
# A provider that does not send email_verified but only ever issues the school's own addresses
# (some Entra ID tenants) can be trusted with them explicitly.
KAVET_OIDC_TRUST_EMAIL = env_bool("KAVET_OIDC_TRUST_EMAIL", False)
OIDC_RP_SIGN_ALGO = os.environ.get("KAVET_OIDC_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = "openid email profile"
OIDC_USE_PKCE = True
OIDC_TIMEOUT = 10
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc_callback"
# The second factor of staff (classrooms/twofactor): the name the phone's app shows.
OTP_TOTP_ISSUER = "Kavet 'm eus"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Password reset by email (teachers and parents), with Django's own views.
# In development (DEBUG, `make demo`) with no EMAIL_BACKEND set, emails are kept in the database
# and read on the outbox page (/reports/email/outbox/, DEBUG only), their links followed there.
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "reports.mail.outbox.OutboxBackend"
    if DEBUG
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Kavet 'm eus <no-reply@localhost>")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", "")  # for the file-based backend
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_TIMEOUT", str(60 * 60 * 24)))  # one day

# --- Languages ------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fr", _("French")), ("de", _("German"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Paris")
USE_I18N = True
USE_TZ = True

# --- Static files ---------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG and env_bool("KAVET_MANIFEST_STATIC", False)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", True)

# --- Client address ---------------------------------------------------------------------
# How many reverse proxies (load balancers) sit in front of the web processes. The client's
# address is read from X-Forwarded-For that many hops from the right; with 0 it is
# REMOTE_ADDR and X-Forwarded-For is ignored (a client can write anything there).
KAVET_TRUSTED_PROXIES = int(os.environ.get("KAVET_TRUSTED_PROXIES", "0"))
# axes reads it through kavet_site.clientip too (AXES_CLIENT_IP_CALLABLE in "Auth"), not through
# django-ipware, whose proxy count took the left-most X-Forwarded-For entry: the client's own.

# --- Push streams (games/stream.py) ---------------------------------------------------------
# Streams one session (a tablet, a teacher's browser) and one client address may hold open;
# past a cap the oldest is closed (games/streamcap.py). A tablet needs one or two; the address
# cap must stay above the tablets of a school behind one NAT address.
KAVET_STREAMS_PER_SESSION = int(os.environ.get("KAVET_STREAMS_PER_SESSION", "5"))
KAVET_STREAMS_PER_ADDRESS = int(os.environ.get("KAVET_STREAMS_PER_ADDRESS", "300"))
# Under ASGI, stream requests being authorized at once per process (each may hold one pooled
# database connection for a moment: keep it well under DB_POOL_MAX_SIZE), how many more may
# wait for a turn and for how many seconds; the rest get 503 (kavet_site/admission.py).
KAVET_STREAM_OPENINGS = int(os.environ.get("KAVET_STREAM_OPENINGS", "4"))
KAVET_STREAM_OPENINGS_QUEUED = int(os.environ.get("KAVET_STREAM_OPENINGS_QUEUED", "64"))
KAVET_STREAM_OPENING_WAIT = float(os.environ.get("KAVET_STREAM_OPENING_WAIT", "2"))

# /healthz answers only ok / not ok to the public; the details go to staff or to a caller
# that sends this token (header X-Healthz-Token), for monitoring.
KAVET_HEALTHZ_TOKEN = os.environ.get("KAVET_HEALTHZ_TOKEN", "")

# --- Security (production: `manage.py check --deploy` is clean with KAVET_PRODUCTION=1) -----
if env_bool("KAVET_PRODUCTION", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
# The product's own cookies (kavet_class, kavet_tablet) follow the session cookie.
KAVET_COOKIE_SECURE = env_bool("KAVET_PRODUCTION", False)
# Content-Security-Policy (django-csp 4): no inline script, no inline event handler anywhere;
# every script is a static file of the project's own.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# --- The product's own settings -------------------------------------------------------------
# The site's address as emails link to it (no trailing slash).
KAVET_SITE_URL = os.environ.get("KAVET_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# How long a student's tablet sign-in lasts outside a game (a teacher can change it per class).
KAVET_STUDENT_IDLE_MINUTES = int(os.environ.get("KAVET_STUDENT_IDLE_MINUTES", "10"))
# A player's first turn clock starts when their tablet opens the table (R4), or after this many
# seconds when it never does, so nobody loses a turn while still signing in.
KAVET_FIRST_TURN_GRACE = int(os.environ.get("KAVET_FIRST_TURN_GRACE", "60"))
# Play data of a school year is kept until the end of the school year this many years after it
# (2: the games of 2024-2025 until 31 July 2027), then erased (classrooms/retention.py).
KAVET_RETENTION_YEARS = int(os.environ.get("KAVET_RETENTION_YEARS", "2"))
