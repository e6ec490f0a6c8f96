"""One lifecycle, two kinds (classrooms/invitations.py, issue 35): a teacher's link to join a
school and a parent's code to follow a child go through the same tests — made with only a hash
kept, opened, refused for one stated reason each, redeemed once (also when two tabs press at
once), withdrawn by whoever may manage it and nobody else, listed while pending, and wrong tries
counted on the kind's own page."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import timedelta
from itertools import count

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections
from django.urls import reverse
from django.utils import timezone, translation

from classrooms import invitations
from classrooms.models import ParentLink, User
from classrooms.services import TEACHER_LINK
from reports.services import PARENT_CODE
from tests import factories
from tests.conftest import need_service

PASSWORD = "a long enough password 42"
_names = count(1)


@dataclass
class Case:
    """One kind with the rows it needs: who makes it, for what, and what redeeming made."""

    kind: invitations.Kind
    maker: User
    target: object
    outsiders: list[User]  # may neither make nor withdraw one for this target

    def make(self):
        return invitations.create(self.kind, by=self.maker, target=self.target)

    def details(self) -> dict:
        """What one redeemer brings: a new teacher's chosen name and password, or a parent."""
        n = next(_names)
        if self.kind is TEACHER_LINK:
            return {"username": f"new-teacher-{n}", "password": PASSWORD}
        return {"parent": factories.parent(username=f"parent-{n}")}

    def redeemed(self) -> int:
        """How many things redeeming made: teachers' accounts in the school, parents' links."""
        if self.kind is TEACHER_LINK:
            return User.objects.filter(school=self.target, username__startswith="new-").count()
        return ParentLink.objects.filter(student=self.target).count()

    def try_page(self, client, secret: str) -> str:
        """The secret through the kind's own page, as a person would: the page's text."""
        if self.kind is TEACHER_LINK:
            url = reverse("classrooms:invite_accept", args=[secret])
            return client.get(url).content.decode()
        client.force_login(factories.parent(username=f"guesser-{next(_names)}"))
        response = client.post(reverse("reports:link_child"), {"code": secret}, follow=True)
        return response.content.decode()


def _case(kind_name: str) -> Case:
    school = factories.school(slug=f"s-{next(_names)}")
    other = factories.school(slug=f"o-{next(_names)}")
    if kind_name == "teacher":
        return Case(
            kind=TEACHER_LINK,
            maker=factories.school_admin(school=school),
            target=school,
            # A teacher of the school, and the admin of another school.
            outsiders=[factories.teacher(school=school), factories.school_admin(school=other)],
        )
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    stranger = factories.teacher(school=school)
    factories.classroom(school=school, teachers=[stranger])
    return Case(
        kind=PARENT_CODE,
        maker=teacher,
        target=factories.student(classroom=classroom, name="Anna"),
        # A teacher of another class of the school, another school's admin, a parent.
        outsiders=[stranger, factories.school_admin(school=other), factories.parent()],
    )


KINDS = ["teacher", "parent"]


@pytest.fixture(params=KINDS)
def case(request, db) -> Case:
    return _case(request.param)


def _refused(kind, secret, **details) -> invitations.InvitationRefused:
    with pytest.raises(invitations.InvitationRefused) as refused:
        invitations.redeem(kind, secret, **details)
    return refused.value


def test_only_a_hash_is_kept_and_the_secret_opens_its_invitation(case):
    invite, secret = case.make()
    assert secret not in invite.secret_hash and len(invite.secret_hash) == 64
    assert invitations.open_secret(case.kind, secret) == invite
    assert invite.state() == "pending" and invite.created_by == case.maker
    assert invite.expires_at - timezone.now() > timedelta(days=case.kind.days - 1)


def test_a_code_typed_sloppily_still_opens_it(db):
    """The slip's code in lower case, with spaces for dashes (the link is never typed)."""
    case = _case("parent")
    invite, code = case.make()
    assert len(code) == 14 and code.count("-") == 2  # ABCD-EFGH-JK23
    assert invitations.open_secret(PARENT_CODE, code.lower().replace("-", " ")) == invite


def test_each_reason_has_its_own_sentence_in_every_language(case):
    sentences = [case.kind.refusals[reason] for reason in invitations.REASONS]
    for language in ("en", "fr", "de"):
        with translation.override(language):
            said = [str(s) for s in sentences]
        assert len(set(said)) == len(said), (language, said)
        if language != "en":
            with translation.override("en"):
                english = [str(s) for s in sentences]
            assert not set(said) & set(english), f"untranslated in {language}"


def test_an_unknown_or_malformed_secret_is_refused_with_its_reason(case):
    case.make()
    wrong = "A" * 12 if case.kind is PARENT_CODE else "not-a-real-token"
    assert _refused(case.kind, wrong, **case.details()).reason == invitations.UNKNOWN
    garbled = "AB" if case.kind is PARENT_CODE else "x" * 101
    assert _refused(case.kind, garbled, **case.details()).reason == invitations.MALFORMED
    assert _refused(case.kind, "", **case.details()).reason == invitations.MALFORMED
    assert case.redeemed() == 0


def test_an_expired_invitation_is_refused_and_nothing_is_made(case):
    invite, secret = case.make()
    type(invite).objects.filter(pk=invite.pk).update(expires_at=timezone.now())
    refused = _refused(case.kind, secret, **case.details())
    assert refused.reason == invitations.EXPIRED and refused.code == "invite_expired"
    assert str(refused.message) == str(case.kind.refusals[invitations.EXPIRED])
    invite.refresh_from_db()
    assert case.redeemed() == 0 and invite.used_at is None


def test_an_invitation_works_once(case):
    invite, secret = case.make()
    first = case.details()
    result = invitations.redeem(case.kind, secret, **first)
    invite.refresh_from_db()
    used_at, used_by = invite.used_at, invite.used_by
    assert used_at is not None and used_by == first.get("parent", result)
    assert case.redeemed() == 1
    refused = _refused(case.kind, secret, **case.details())
    assert refused.reason == invitations.USED
    invite.refresh_from_db()
    assert (invite.used_at, invite.used_by) == (used_at, used_by)  # nothing changed twice
    assert case.redeemed() == 1
    # A used one cannot be withdrawn after the fact: it stays used.
    assert invitations.withdraw(case.kind, invite, by=case.maker) is False
    invite.refresh_from_db()
    assert invite.state() == "used" and invite.revoked_at is None


def test_a_withdrawn_invitation_is_refused_and_withdrawing_twice_changes_nothing(case):
    invite, secret = case.make()
    assert invitations.withdraw(case.kind, invite, by=case.maker) is True
    invite.refresh_from_db()
    revoked_at = invite.revoked_at
    assert revoked_at is not None and invite.state() == "withdrawn"
    assert _refused(case.kind, secret, **case.details()).reason == invitations.WITHDRAWN
    assert invitations.withdraw(case.kind, invite, by=case.maker) is False
    invite.refresh_from_db()
    assert invite.revoked_at == revoked_at and case.redeemed() == 0


def test_only_who_manages_the_target_makes_or_withdraws(case):
    invite, secret = case.make()
    kind_model = type(invite)
    for outsider in case.outsiders:
        with pytest.raises(ValidationError) as refused:
            invitations.create(case.kind, by=outsider, target=case.target)
        assert refused.value.code == "forbidden"
        with pytest.raises(ValidationError) as refused:
            invitations.withdraw(case.kind, invite, by=outsider)
        assert refused.value.code == "forbidden"
    assert kind_model.objects.count() == 1
    invite.refresh_from_db()
    assert invite.state() == "pending"
    assert invitations.open_secret(case.kind, secret) == invite


def test_pending_lists_only_the_invitations_that_still_work(case):
    used, used_secret = case.make()
    invitations.redeem(case.kind, used_secret, **case.details())
    withdrawn, _s = case.make()
    invitations.withdraw(case.kind, withdrawn, by=case.maker)
    expired, _s = case.make()
    type(expired).objects.filter(pk=expired.pk).update(expires_at=timezone.now())
    waiting, _s = case.make()
    rows = type(waiting).objects.all()
    assert list(invitations.pending(rows)) == [waiting]
    states = {row.pk: row.state() for row in rows}
    assert states == {
        used.pk: "used",
        withdrawn.pk: "withdrawn",
        expired.pk: "expired",
        waiting.pk: "pending",
    }


def test_wrong_tries_are_counted_on_the_kinds_page_until_even_the_right_secret_waits(case, client):
    invite, secret = case.make()
    wrong = "WRNG-WRNG-WRNG" if case.kind is PARENT_CODE else "wrong-token"
    unknown = str(case.kind.refusals[invitations.UNKNOWN])
    throttled = str(case.kind.refusals[invitations.THROTTLED])
    for _i in range(invitations.GUESSES):
        page = case.try_page(client, wrong)
        assert unknown.split(".")[0] in page
    # The same client, even with the right secret, is now told to wait, and nothing is done.
    page = case.try_page(client, secret)
    assert throttled.split(".")[0] in page
    invite.refresh_from_db()
    assert invite.state() == "pending" and case.redeemed() == 0
    # Another client with the right secret is not held back by the guesser.
    other = client.__class__(REMOTE_ADDR="192.0.2.77")
    assert throttled.split(".")[0] not in case.try_page(other, secret)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind_name", KINDS)
def test_two_tabs_pressing_at_once_redeem_once(kind_name):
    """The same secret redeemed by two tablets at the same moment: the row lock lets one
    through; the other reads "already used"; one account or link is made."""
    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for row locks")
    case = _case(kind_name)
    invite, secret = case.make()
    details = [case.details(), case.details()]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def press(mine: dict) -> None:
        try:
            barrier.wait()
            invitations.redeem(case.kind, secret, **mine)
            outcomes.append("redeemed")
        except invitations.InvitationRefused as refused:
            outcomes.append(refused.reason)
        finally:
            connections.close_all()

    tabs = [threading.Thread(target=press, args=(mine,)) for mine in details]
    for tab in tabs:
        tab.start()
    for tab in tabs:
        tab.join(timeout=60)
    assert sorted(outcomes) == ["redeemed", invitations.USED]
    invite.refresh_from_db()
    assert invite.used_at is not None and case.redeemed() == 1
