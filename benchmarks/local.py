"""This machine's PostgreSQL and Redis, as the benchmarks reach them from a URL."""

from __future__ import annotations

import socket
from urllib.parse import urlparse, urlunparse


def answers(url: str, default_port: int) -> bool:
    """Something listens at the URL's host and port (the benchmark itself checks the rest)."""
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=2
        ):
            return True
    except OSError:
        return False


def with_path(url: str, path: str) -> str:
    """The URL with another path: another database, or another Redis db."""
    return urlunparse(urlparse(url)._replace(path=path))


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database the URL names, if it does not exist yet."""
    import psycopg

    name = urlparse(url).path.lstrip("/")
    with psycopg.connect(with_path(url, "/postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
