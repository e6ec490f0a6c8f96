"""The client's address, read only from what the client cannot write.

Behind ``KAVET_TRUSTED_PROXIES`` reverse proxies (load balancers), each proxy appends the
address it received the request from to X-Forwarded-For, so the client's address is the entry
that many hops from the right; anything further left was written by the client and is ignored.
With 0 proxies (the default) X-Forwarded-For is ignored altogether and REMOTE_ADDR is the client.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "unknown"


def _parse(value: str) -> str | None:
    """A normalised IP address, or None when the text is not one (ports and brackets allowed)."""
    text = (value or "").strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "192.0.2.1:443"
        text = text.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str:
    """The address of the client that sent this request, as the trusted proxies saw it."""
    remote = _parse(request.META.get("REMOTE_ADDR", "")) or UNKNOWN
    proxies = max(0, int(getattr(settings, "KAVET_TRUSTED_PROXIES", 0) or 0))
    if proxies == 0:
        return remote
    hops = [
        hop for hop in (request.META.get("HTTP_X_FORWARDED_FOR") or "").split(",") if hop.strip()
    ]
    if not hops:
        return remote  # reached us without going through the proxies
    # Fewer entries than proxies: every entry was written by a trusted proxy; the leftmost is
    # the furthest one, and the client sits just before it.
    hop = hops[-proxies] if len(hops) >= proxies else hops[0]
    return _parse(hop) or remote


def client_bucket(request: HttpRequest) -> str:
    """The client's address for rate limits: an IPv6 client owns its whole /64, so it counts once."""
    address = client_address(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return address
