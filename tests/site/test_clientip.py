"""The client's address comes from REMOTE_ADDR or from the trusted proxies, never from the client."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from kavet_site.clientip import UNKNOWN, client_address, client_bucket


def request(remote="10.0.0.1", xff=None):
    extra = {"REMOTE_ADDR": remote}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return RequestFactory().get("/", **extra)


def test_with_no_proxy_x_forwarded_for_is_ignored(settings):
    settings.KAVET_TRUSTED_PROXIES = 0
    assert client_address(request("192.0.2.10", "203.0.113.7")) == "192.0.2.10"
    assert client_address(request("192.0.2.10", "203.0.113.7, 198.51.100.1")) == "192.0.2.10"
    assert client_address(request("192.0.2.10")) == "192.0.2.10"


def test_with_one_proxy_the_last_entry_is_the_client(settings):
    settings.KAVET_TRUSTED_PROXIES = 1
    # The client wrote "1.2.3.4" itself; the load balancer appended what it saw.
    assert client_address(request("10.0.0.1", "1.2.3.4, 203.0.113.7")) == "203.0.113.7"
    assert client_address(request("10.0.0.1", "203.0.113.7")) == "203.0.113.7"


def test_with_two_proxies_the_second_entry_from_the_right_is_the_client(settings):
    settings.KAVET_TRUSTED_PROXIES = 2
    assert client_address(request("10.0.0.2", "1.2.3.4, 203.0.113.7, 10.0.0.1")) == "203.0.113.7"
    assert client_address(request("10.0.0.2", "203.0.113.7,10.0.0.1")) == "203.0.113.7"
    # Fewer entries than proxies: only the proxies wrote there, the leftmost is the furthest.
    assert client_address(request("10.0.0.2", "203.0.113.7")) == "203.0.113.7"


def test_with_proxies_but_no_header_remote_addr_is_the_client(settings):
    settings.KAVET_TRUSTED_PROXIES = 1
    assert client_address(request("192.0.2.10")) == "192.0.2.10"
    assert client_address(request("192.0.2.10", "")) == "192.0.2.10"
    assert client_address(request("192.0.2.10", " , ")) == "192.0.2.10"


@pytest.mark.parametrize(
    "junk", ["not-an-ip", "\x00", "999.1.1.1", "1.2.3.4\x00", "<script>", "unknown"]
)
def test_junk_in_the_trusted_entry_falls_back_to_remote_addr(settings, junk):
    settings.KAVET_TRUSTED_PROXIES = 1
    assert client_address(request("192.0.2.10", f"203.0.113.7, {junk}")) == "192.0.2.10"


def test_ports_and_brackets_are_dropped_and_ipv6_is_normalised(settings):
    settings.KAVET_TRUSTED_PROXIES = 1
    assert client_address(request("10.0.0.1", "203.0.113.7:51234")) == "203.0.113.7"
    assert client_address(request("10.0.0.1", "[2001:DB8::0001]:443")) == "2001:db8::1"
    assert client_address(request("10.0.0.1", "2001:db8:0:0::1")) == "2001:db8::1"


def test_a_missing_remote_addr_is_unknown_not_an_error(settings):
    settings.KAVET_TRUSTED_PROXIES = 0
    req = RequestFactory().get("/")
    req.META.pop("REMOTE_ADDR", None)
    assert client_address(req) == UNKNOWN


def test_an_ipv6_client_counts_once_for_its_whole_64(settings):
    settings.KAVET_TRUSTED_PROXIES = 0
    a = client_bucket(request("2001:db8:1:2::1"))
    b = client_bucket(request("2001:db8:1:2:ffff::9"))
    c = client_bucket(request("2001:db8:1:3::1"))
    assert a == b == "2001:db8:1:2::/64" and c != a
    assert client_bucket(request("192.0.2.10")) == "192.0.2.10"
    assert client_bucket(request("::ffff:192.0.2.10")) == "192.0.2.10"


def test_nothing_else_reads_remote_addr_directly():
    """Every client address goes through client_address (settings only configure axes)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(path.relative_to(root))
        for app in ("games", "classrooms", "kavet_site")
        for path in (root / app).rglob("*.py")
        if "REMOTE_ADDR" in path.read_text(encoding="utf-8")
        and path.name not in ("clientip.py", "settings.py")
    ]
    assert offenders == []
