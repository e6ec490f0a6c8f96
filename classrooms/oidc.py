"""Staff sign in with their school's accounts, through OpenID Connect.

What Google Workspace for Education, Microsoft Entra ID and the French ENT speak. The library is
mozilla-django-oidc (the authorization-code flow with PKCE, the state and nonce kept in the
session, the id_token's signature checked against the provider's published keys); this module
adds what a school needs around it:

- the provider is found from its issuer alone (`KAVET_OIDC_ISSUER`, its discovery document read
  once an hour), so a school admin sets three values, not six;
- an account is matched to a member of staff (a teacher or a school admin) by a **verified** email
  address, or made from an open invitation sent to that address; never for a stranger, never for
  a parent or a child;
- the id_token's issuer and audience are checked too;
- every refusal (a stranger, an unverified address, a forged or replayed state, a code that came
  back too late, the provider not answering) ends on the sign-in page with a sentence saying why,
  in the user's language; nothing is written by a refused sign-in.

Password sign-in keeps working beside it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import jwt
import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.generic import View
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from . import invitations
from .models import TeacherInvite
from .services import TEACHER_LINK

logger = logging.getLogger(__name__)

DISCOVERY_SECONDS = 3600
STAFF_ROLES = ("teacher", "school_admin")


def configured() -> bool:
    """Whether this site offers sign-in with a school account at all."""
    return bool(
        getattr(settings, "KAVET_OIDC_ISSUER", "")
        and getattr(settings, "OIDC_RP_CLIENT_ID", "")
        and getattr(settings, "OIDC_RP_CLIENT_SECRET", "")
    )


def button_label() -> str:
    name = getattr(settings, "KAVET_OIDC_NAME", "")
    if name:
        return _("Sign in with %(name)s") % {"name": name}
    return _("Sign in with your school account")


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be read or does not describe the issuer."""


@dataclass(frozen=True)
class Provider:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str


def provider() -> Provider:
    """The provider's endpoints, from its discovery document (cached an hour)."""
    issuer = settings.KAVET_OIDC_ISSUER.rstrip("/")
    key = f"oidc:discovery:{issuer}"
    found = cache.get(key)
    if found is None:
        url = f"{issuer}/.well-known/openid-configuration"
        try:
            response = requests.get(url, timeout=settings.OIDC_TIMEOUT)
            response.raise_for_status()
            doc = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise ProviderUnavailable(str(exc)) from exc
        if not isinstance(doc, dict) or str(doc.get("issuer", "")).rstrip("/") != issuer:
            raise ProviderUnavailable(f"the discovery document at {url} is for another issuer")
        try:
            found = {
                name: str(doc[name])
                for name in (
                    "authorization_endpoint",
                    "token_endpoint",
                    "userinfo_endpoint",
                    "jwks_uri",
                )
            }
        except KeyError as exc:
            raise ProviderUnavailable(f"the discovery document lacks {exc}") from exc
        found["issuer"] = str(doc["issuer"])
        cache.set(key, found, DISCOVERY_SECONDS)
    return Provider(**found)


# --- why a sign-in was refused: one sentence each, shown on the sign-in page -----------------


def _refuse(request, message: str) -> None:
    """Remember why this sign-in is refused; the callback shows it on the sign-in page."""
    request._oidc_refusal = message


def _unknown(email: str) -> str:
    return _(
        "No member of staff has the address %(email)s here. Ask your school's admin to invite "
        "you with this address, then sign in again."
    ) % {"email": email}


def _unavailable() -> str:
    return _(
        "Your school's sign-in service does not answer. Try again in a moment, or sign in with "
        "your user name and password."
    )


def _too_late() -> str:
    return _("This sign-in took too long or was already used. Please sign in again.")


def _forged() -> str:
    return _("This sign-in did not start on this page (or was already used). Please sign in again.")


def _unverified() -> str:
    return _(
        "Your school account's e-mail address is not confirmed, so it can't be matched to a "
        "member of staff. Ask your school's admin."
    )


def _invalid_token() -> str:
    return _("Your school's sign-in service sent an answer that could not be checked.")


# --- the authentication backend ----------------------------------------------------------------


class SchoolOIDCBackend(OIDCAuthenticationBackend):
    """Signs in a member of staff whose verified email the provider vouches for.

    Listed in AUTHENTICATION_BACKENDS on every site: where no provider is configured it answers
    nothing, and it never answers a password sign-in (there is no `code` in that request).
    """

    def __init__(self, *args, **kwargs):
        # The library reads its endpoints from settings here; ours come from discovery, at the
        # time of a sign-in, so a site without a provider never fails to build its backends.
        self.UserModel = get_user_model()

    def authenticate(self, request, **kwargs):
        if request is None or not configured() or "code" not in request.GET:
            return None
        if "nonce" not in kwargs:  # not the callback's own call (a password sign-in, say)
            return None
        try:
            found = provider()
        except ProviderUnavailable as exc:
            logger.warning("OIDC discovery failed: %s", exc)
            _refuse(request, _unavailable())
            return None
        self.provider = found
        self.OIDC_OP_TOKEN_ENDPOINT = found.token_endpoint
        self.OIDC_OP_USER_ENDPOINT = found.userinfo_endpoint
        self.OIDC_OP_JWKS_ENDPOINT = found.jwks_uri
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None
        try:
            return super().authenticate(request, **kwargs)
        except requests.HTTPError as exc:
            status = getattr(exc.response, "status_code", None)
            logger.warning("OIDC token or userinfo request refused (%s): %s", status, exc)
            # 400 from the token endpoint: the code expired, was used already, or is not ours.
            _refuse(request, _too_late() if status == 400 else _unavailable())
            return None
        except requests.RequestException as exc:
            logger.warning("OIDC provider did not answer: %s", exc)
            _refuse(request, _unavailable())
            return None
        except (SuspiciousOperation, jwt.PyJWTError, ValueError, KeyError) as exc:
            logger.warning("OIDC answer refused: %s", exc)
            if not hasattr(request, "_oidc_refusal"):
                _refuse(request, _invalid_token())
            return None

    def get_payload_data(self, token, key):
        """The id_token's claims, its signature, issuer, audience and expiry all checked."""
        header = jwt.get_unverified_header(token)
        if header.get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation("the id_token is not signed with the expected algorithm")
        return jwt.decode(
            token,
            key,
            algorithms=[self.OIDC_RP_SIGN_ALGO],
            audience=self.OIDC_RP_CLIENT_ID,
            issuer=self.provider.issuer,
            options={"require": ["exp", "iat", "iss", "aud"]},
        )

    def verify_claims(self, claims) -> bool:
        email = str(claims.get("email") or "").strip()
        if not email:
            _refuse(self.request, _unverified())
            return False
        verified = claims.get("email_verified") in (True, "true")
        if not verified and not getattr(settings, "KAVET_OIDC_TRUST_EMAIL", False):
            _refuse(self.request, _unverified())
            return False
        return True

    def filter_users_by_claims(self, claims):
        email = str(claims.get("email") or "").strip()
        staff = self.UserModel.objects.filter(email__iexact=email, role__in=STAFF_ROLES)
        if staff.filter(is_active=False).exists() and not staff.filter(is_active=True).exists():
            _refuse(
                self.request,
                _("This account is switched off. Ask your school's admin."),
            )
            raise SuspiciousOperation("the staff account of this email is inactive")
        found = list(staff.filter(is_active=True)[:2])
        if len(found) > 1:
            _refuse(
                self.request,
                _(
                    "Two accounts here have the address %(email)s, so it can't be told which is "
                    "yours. Sign in with your user name, or ask your school's admin."
                )
                % {"email": email},
            )
        return found

    def update_user(self, user, claims):
        return user

    def create_user(self, claims):
        """Only an invited teacher gets an account here: from the open invitation to this address."""
        email = str(claims.get("email") or "").strip()
        invite = (
            invitations.pending(TeacherInvite.objects.filter(email__iexact=email))
            .order_by("-created_at")
            .first()
        )
        if invite is None:
            _refuse(self.request, _unknown(email))
            return None
        return invite_accept_by_email(
            invite=invite,
            email=email,
            first_name=str(claims.get("given_name") or ""),
            last_name=str(claims.get("family_name") or ""),
        )


def _username_from(email: str) -> str:
    User = get_user_model()
    base = re.sub(r"[^\w.@+-]", "", email.split("@")[0])[:140] or "teacher"
    name, n = base, 1
    while User.objects.filter(username__iexact=name).exists():
        n += 1
        name = f"{base}{n}"
    return name


@transaction.atomic
def invite_accept_by_email(*, invite: TeacherInvite, email: str, first_name: str, last_name: str):
    """The teacher's account from an invitation, vouched for by the school's sign-in service.

    The same as following the invitation's link, without a password of its own: the account
    signs in with the school's account (a password can be set later through "Forgot your
    password?"). The invitation is spent.
    """
    from .names import name_check

    User = get_user_model()

    def clean(name: str, fallback: str) -> str:
        try:
            return name_check(name) if name else fallback
        except Exception:  # a provider's name the name check refuses: the invitation's stands
            return fallback

    def join(invite: TeacherInvite) -> tuple:
        user = User(
            username=_username_from(email),
            role=User.Role.TEACHER,
            school=invite.school,
            email=invite.email or email,
            first_name=clean(first_name, invite.first_name),
            last_name=clean(last_name, invite.last_name),
        )
        user.set_unusable_password()
        user.save()
        return user, user

    try:
        return invitations.spend(TEACHER_LINK, invite, join)
    except invitations.InvitationRefused:  # used or withdrawn meanwhile: no account
        return None


# --- the two views: start at the provider, come back from it ------------------------------------


class OIDCStart(OIDCAuthenticationRequestView):
    """ "Sign in with your school account": off to the provider, with state, nonce and PKCE."""

    def __init__(self, **kwargs):
        View.__init__(self, **kwargs)  # the endpoints are read at the request, not here

    def get(self, request):
        if not configured():
            raise Http404
        try:
            found = provider()
        except ProviderUnavailable as exc:
            logger.warning("OIDC discovery failed: %s", exc)
            messages.error(request, _unavailable())
            return HttpResponseRedirect(reverse("login"))
        self.OIDC_OP_AUTH_ENDPOINT = found.authorization_endpoint
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        return super().get(request)


class OIDCCallback(OIDCAuthenticationCallbackView):
    """Back from the provider: signed in, or on the sign-in page with the reason."""

    @property
    def failure_url(self):
        return reverse("login")

    def get(self, request):
        if not configured():
            raise Http404
        states = request.session.get("oidc_states") or {}
        state = request.GET.get("state", "")
        if request.GET.get("error"):
            # The person cancelled at the provider, or the provider refused them.
            if state in states:
                del states[state]
                request.session["oidc_states"] = states
            _refuse(request, _("Sign-in with your school account was cancelled."))
            return self.login_failure()
        code = request.GET.get("code", "")
        if not code or state not in states:
            # A forged, replayed or foreign state: refused before anything is asked of the
            # provider (the library would answer 400).
            _refuse(request, _forged())
            return self.login_failure()
        # The state, its nonce and PKCE verifier are spent whatever happens next.
        entry = states.pop(state)
        request.session["oidc_states"] = states
        request.session.save()
        # Read the session again after the (slow) exchange with the provider, as the library
        # does: another tab may have changed it meanwhile.
        request.session = request.session.__class__(request.session.session_key)
        # The backend is asked directly rather than through django.contrib.auth.authenticate():
        # a refusal here is not a wrong password (the provider checked the person), so it must
        # not count towards the password locks of everyone at the school's address.
        user = SchoolOIDCBackend().authenticate(
            request, nonce=entry.get("nonce"), code_verifier=entry.get("code_verifier")
        )
        if user is None or not user.is_active:
            return self.login_failure()
        user.backend = f"{SchoolOIDCBackend.__module__}.{SchoolOIDCBackend.__qualname__}"
        self.user = user
        return self.login_success()

    def login_failure(self):
        request = self.request
        reason = getattr(request, "_oidc_refusal", None) or _(
            "Sign-in with your school account did not work. Please try again."
        )
        messages.error(request, reason)
        return HttpResponseRedirect(self.failure_url)
