"""The running test provider and the site's settings pointing at it, as pytest fixtures."""

from __future__ import annotations

import pytest

from . import serve

TEACHER = ("anna.teacher", "anna@school.example")
INVITED = ("bleuenn.new", "bleuenn@school.example")
STRANGER = ("mallory.outside", "mallory@elsewhere.example")
UNVERIFIED = ("unverified.anna", "anna@school.example")
PARENT = ("paul.parent", "paul@home.example")


@pytest.fixture(scope="module")
def provider(live_server):
    with serve.provider(
        redirect_uri=f"{live_server.url}/oidc/callback/",
        users=[TEACHER, INVITED, STRANGER, UNVERIFIED, PARENT],
    ) as running:
        yield running


@pytest.fixture
def oidc(settings, provider):
    settings.KAVET_OIDC_ISSUER = provider.issuer
    settings.OIDC_RP_CLIENT_ID = serve.CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = serve.CLIENT_SECRET
    settings.KAVET_OIDC_NAME = "ENT"
    return provider
