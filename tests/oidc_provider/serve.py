"""Start the test OpenID Connect provider in a process of its own, on a spare port."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from benchmarks.serve import free_port, serving

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID = "kavet-test-client"
CLIENT_SECRET = "kavet-test-secret-0123456789"
PASSWORD = "provider-pass-5521"


@dataclass
class Provider:
    port: int
    db: Path

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}/o"

    def expire_codes(self) -> int:
        """Make every authorization code the provider handed out expire now (a slow sign-in)."""
        with contextlib.closing(sqlite3.connect(self.db)) as con, con:
            return con.execute(
                "UPDATE oauth2_provider_grant SET expires = '2000-01-01 00:00:00'"
            ).rowcount


def _key(path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


@contextlib.contextmanager
def provider(*, redirect_uri: str, users: list[tuple[str, str]]) -> Iterator[Provider]:
    """A running provider whose users are `(user name, email)`, all with PASSWORD, and one
    confidential client that may come back to `redirect_uri`."""
    with tempfile.TemporaryDirectory(prefix="oidc-provider-") as tmp:
        tmp = Path(tmp)
        _key(tmp / "key.pem")
        env = dict(os.environ)
        for name in ("DATABASE_URL", "REDIS_URL"):
            env.pop(name, None)
        env.update(
            DJANGO_SETTINGS_MODULE="tests.oidc_provider.settings",
            OIDC_PROVIDER_DB=str(tmp / "provider.sqlite3"),
            OIDC_PROVIDER_KEY=str(tmp / "key.pem"),
            PYTHONPATH=str(ROOT),
        )
        python = [sys.executable, "-m", "django"]
        subprocess.run([*python, "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
        script = (
            "from django.contrib.auth.models import User\n"
            "from oauth2_provider.models import Application\n"
            f"for name, email in {users!r}:\n"
            f"    User.objects.create_user(name, email=email, password={PASSWORD!r},"
            " first_name=name.split('.')[0].title())\n"
            "Application.objects.create(\n"
            f"    name='Kavet', client_id={CLIENT_ID!r}, client_secret={CLIENT_SECRET!r},\n"
            "    client_type=Application.CLIENT_CONFIDENTIAL,\n"
            "    authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,\n"
            f"    redirect_uris={redirect_uri!r}, skip_authorization=True,\n"
            "    algorithm=Application.RS256_ALGORITHM)\n"
        )
        subprocess.run([*python, "shell", "-c", script], env=env, cwd=ROOT, check=True)
        port = free_port()
        cmd = [*python, "runserver", f"127.0.0.1:{port}", "--noreload"]
        with serving(
            cmd,
            env=env,
            port=port,
            start_timeout=30,
            stop_timeout=10,
            what="the OIDC provider",
            cwd=ROOT,
            ready="/o/.well-known/openid-configuration",
        ):
            yield Provider(port=port, db=tmp / "provider.sqlite3")
