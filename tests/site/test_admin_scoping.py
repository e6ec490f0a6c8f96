"""Every page of the Django admin, walked as another school's admin (issue 9, finding 1).

The walk is generic: it iterates `admin.site._registry`, so a newly registered model is walked
too. The rows of "the other school" are found by difference: every row that appears while the
other school's world is built (its school, accounts, class, child, links, level history, sign-in
attempts, a group, a superuser, a parent who also follows the other school's child) is a row the
school admin of the first school must never see, pick, post or change.
"""

from __future__ import annotations

import itertools
import os
from urllib.parse import urlencode

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from classrooms.models import LevelChange, ParentLink, Student, User
from tests import factories
from tests.conftest import need_service

# Django's admin is for superusers only (classrooms/admin.py); these tests walk the scoping
# behind that gate, with a school admin let through it (admin_second_wall).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("admin_second_wall")]

MARK = "ZZOTHER"  # in the name of every other-school row that has a name
PASSWORD = "a long and Unusual passphrase 42"
_tokens = itertools.count(1)


def _rows() -> dict:
    return {
        model: set(model._default_manager.values_list("pk", flat=True))
        for model in admin.site._registry
    }


def _axes_rows(username: str) -> None:
    common = dict(
        username=username,
        ip_address="10.0.0.9",
        user_agent="tablet",
        http_accept="*/*",
        path_info="/accounts/login/",
    )
    AccessAttempt.objects.create(get_data="", post_data="", failures_since_start=9, **common)
    AccessFailureLog.objects.create(locked_out=True, **common)
    AccessLog.objects.create(**common)


@pytest.fixture
def world(db):
    """Rows of both schools; returns (my admin, mine by model, the other school's by model)."""
    before = _rows()
    school = factories.school()
    me = factories.school_admin(school=school, username="admin-mine")
    teacher = factories.teacher(school=school, username="teacher-mine")
    parent = factories.parent(school=school, username="parent-mine")
    factories.parent(school=school, username="parent-mine-2")
    klass = factories.classroom(school=school, teachers=[teacher], name="Ours")
    factories.student(classroom=klass, name="Anna")
    mael = factories.student(classroom=klass, name="Mael")
    ParentLink.objects.create(parent=parent, student=mael)
    LevelChange.objects.create(student=mael, number_range=20, tier=2, changed_by=teacher)
    _axes_rows(teacher.username)
    mine = {m: pks - before[m] for m, pks in _rows().items()}

    between = _rows()
    other_school = factories.school(slug="other", name=f"{MARK} school")
    factories.school_admin(school=other_school, username=f"{MARK}-admin")
    their_teacher = factories.teacher(school=other_school, username=f"{MARK}-teacher")
    their_parent = factories.parent(school=other_school, username=f"{MARK}-parent")
    their_class = factories.classroom(
        school=other_school, teachers=[their_teacher], name=f"{MARK} class"
    )
    kid = factories.student(classroom=their_class, name=f"{MARK} kid")
    ParentLink.objects.create(parent=their_parent, student=kid)
    # A parent without a school, following only the other school's child.
    ParentLink.objects.create(parent=factories.parent(username=f"{MARK}-free"), student=kid)
    # A parent "of my school" who also follows the other school's child: their password opens
    # that child's reports, so my admin must not edit them nor hand them out.
    ParentLink.objects.create(
        parent=factories.parent(school=school, username=f"{MARK}-multi"), student=kid
    )
    # A superuser who happens to be in my school: never editable by a school admin.
    factories.user(
        role=User.Role.SCHOOL_ADMIN,
        school=school,
        username=f"{MARK}-root",
        is_staff=True,
        is_superuser=True,
    )
    LevelChange.objects.create(student=kid, number_range=20, tier=3, changed_by=their_teacher)
    _axes_rows(their_teacher.username)
    _axes_rows(f"{MARK}-nobody")  # a user name of nobody: not my school's
    Group.objects.create(name=f"{MARK} group")
    other = {m: pks - between[m] for m, pks in _rows().items()}
    return me, mine, other


class Walk:
    """A client that counts the URL × role cells it walks and never accepts a 500."""

    cells = 0

    def __init__(self, client, role: str):
        self.client, self.role = client, role

    def get(self, url, **kw):
        Walk.cells += 1
        response = self.client.get(url, **kw)
        assert response.status_code < 500, (self.role, url)
        return response

    def post(self, url, data, **kw):
        Walk.cells += 1
        response = self.client.post(url, data, **kw)
        assert response.status_code < 500, (self.role, url)
        return response


def _name(model, what: str) -> str:
    return f"admin:{model._meta.app_label}_{model._meta.model_name}_{what}"


def _object_urls(model_admin, pk) -> list[str]:
    """Every URL of this ModelAdmin that names one object (change, delete, history, password…)."""
    urls = []
    for pattern in model_admin.get_urls():
        params = list(getattr(pattern.pattern, "converters", {}))
        if not params:
            continue
        if pattern.name:
            urls.append(reverse(f"admin:{pattern.name}", kwargs={params[0]: pk}))
        else:  # the bare "<id>/" redirect
            urls.append(reverse(_name(model_admin.model, "changelist")) + f"{pk}/")
    return urls


def _snapshot(model, pk):
    row = list(model._default_manager.filter(pk=pk).values())
    m2m = {
        f.name: sorted(getattr(obj, f.name).values_list("pk", flat=True))
        for obj in model._default_manager.filter(pk=pk)
        for f in model._meta.many_to_many
    }
    return row, m2m


def _relation_fields(form):
    return {
        name: f
        for name, f in form.fields.items()
        if isinstance(f, forms.ModelChoiceField) and not f.disabled
    }


def _encode(name, field, value) -> dict:
    widget = field.widget
    if isinstance(widget, forms.MultiWidget):
        parts = value if isinstance(value, (list, tuple)) else widget.decompress(value)
        return {
            f"{name}{suffix}": (sub.format_value(part) or "")
            for suffix, sub, part in zip(widget.widgets_names, widget.widgets, parts, strict=True)
        }
    if isinstance(field, forms.BooleanField):
        return {name: "on"} if value else {}
    if isinstance(value, (list, tuple)):
        return {name: [str(getattr(v, "pk", v)) for v in value]}
    return {name: "" if value is None else str(value)}


def _fresh_value(name, field):
    """A valid value for an empty add form, using only rows the form itself offers."""
    if isinstance(field, forms.ModelMultipleChoiceField):
        return list(field.queryset.values_list("pk", flat=True)[:1])
    if isinstance(field, forms.ModelChoiceField):
        return field.queryset.values_list("pk", flat=True).first()
    if isinstance(field, forms.BooleanField):
        return False
    if isinstance(field, forms.ChoiceField):
        return next((v for v, _label in field.choices if v not in ("", None)), "")
    if isinstance(field, forms.IntegerField):
        return 10
    if isinstance(field, (forms.DateTimeField, forms.SplitDateTimeField, forms.DateField)):
        return timezone.now() if field.required else None
    if isinstance(field, forms.EmailField):
        return f"t{next(_tokens)}@example.org"
    if name.startswith("password"):
        return PASSWORD
    if isinstance(field, forms.CharField):
        return f"t{next(_tokens)}"[: field.max_length or 20]
    return field.initial


def _form_data(form, values) -> dict:
    data = {}
    for name, field in form.fields.items():
        if not field.disabled:
            data.update(_encode(name, field, values(name, field)))
    return data


def _assert_no_other_rows(response, model, other, where):
    text = response.content.decode()
    assert MARK not in text, f"{where}: another school's row is shown"
    cl = (response.context or {}).get("cl") if response.context else None
    if cl is not None:
        shown = {obj.pk for obj in cl.result_list}
        assert not shown & other[model], where


def _changelists(walk, model, model_admin, other):
    base = reverse(_name(model, "changelist"))
    response = walk.get(base)
    if response.status_code != 200:
        assert response.status_code in (302, 403), base
        return
    _assert_no_other_rows(response, model, other, base)
    if model_admin.search_fields:
        # Lower case: the box echoes it, the rows (upper case) must not be there.
        found = walk.get(base + "?" + urlencode({"q": MARK.lower()}))
        _assert_no_other_rows(found, model, other, f"{base} search")
    cl = response.context["cl"]
    for spec in cl.filter_specs:
        for choice in spec.choices(cl):
            filtered = walk.get(base + choice["query_string"])
            assert filtered.status_code in (200, 302), choice["query_string"]
            if filtered.status_code == 200:
                _assert_no_other_rows(filtered, model, other, f"{base} {choice['query_string']}")


def _other_objects(walk, model, model_admin, other):
    for pk in sorted(other[model]):
        before = _snapshot(model, pk)
        for url in _object_urls(model_admin, pk):
            response = walk.get(url)
            assert response.status_code in (302, 403, 404), url
            assert MARK not in response.content.decode(), url
            forged = {
                "post": "yes",
                "name": "taken",
                "username": "taken",
                "password1": PASSWORD,
                "password2": PASSWORD,
                "is_superuser": "on",
                "is_staff": "on",
            }
            response = walk.post(url, forged)
            assert response.status_code in (302, 403, 404), url
            assert _snapshot(model, pk) == before, f"{url}: another school's row was written"


def _add_forms(walk, model, other):
    url = reverse(_name(model, "add"))
    response = walk.get(url)
    if response.status_code != 200:
        assert response.status_code in (302, 403), url
        return
    form = response.context["adminform"].form
    relations = _relation_fields(form)
    for name, field in relations.items():
        offered = set(field.queryset.values_list("pk", flat=True))
        assert not offered & other[field.queryset.model], (
            f"{url}: {name} offers another school's row"
        )
    # The same form with my school's rows is accepted: a refusal below is the foreign id's.
    count = model._default_manager.count()
    ok = walk.post(url, _form_data(form, _fresh_value))
    errors = ok.context["adminform"].form.errors if ok.status_code == 200 else {}
    assert ok.status_code == 302 and not errors, f"{url}: a valid add was refused: {errors}"
    assert model._default_manager.count() == count + 1
    for name, field in relations.items():
        target = field.queryset.model
        for pk in sorted(other[target]):
            count = model._default_manager.count()
            value = [pk] if isinstance(field, forms.ModelMultipleChoiceField) else pk
            data = _form_data(
                form,
                lambda n, f, name=name, value=value: value if n == name else _fresh_value(n, f),
            )
            refused = walk.post(url, data)
            assert refused.status_code == 200, f"{url}: {name}={pk} was not refused"
            assert name in refused.context["adminform"].form.errors
            assert model._default_manager.count() == count, f"{url}: {name}={pk} saved a row"


def _my_objects(walk, model, model_admin, mine, other):
    pk = min(mine[model], default=None)
    if pk is None:
        return
    url = reverse(_name(model, "change"), args=[pk])
    response = walk.get(url)
    if response.status_code != 200 or "adminform" not in response.context:
        return
    form = response.context["adminform"].form
    for name, field in _relation_fields(form).items():
        offered = set(field.queryset.values_list("pk", flat=True))
        assert not offered & other[field.queryset.model], (
            f"{url}: {name} offers another school's row"
        )
    if not model_admin.has_change_permission(
        response.wsgi_request, model_admin.get_object(response.wsgi_request, str(pk))
    ):
        return
    initial = {name: form[name].value() for name in form.fields}
    before = _snapshot(model, pk)
    ok = walk.post(url, _form_data(form, lambda n, f: initial[n]))
    errors = ok.context["adminform"].form.errors if ok.status_code == 200 else {}
    assert ok.status_code == 302 and not errors, f"{url}: an unchanged save was refused: {errors}"
    before = _snapshot(model, pk)
    for name, field in _relation_fields(form).items():
        for other_pk in sorted(other[field.queryset.model]):
            value = [other_pk] if isinstance(field, forms.ModelMultipleChoiceField) else other_pk
            refused = walk.post(
                url,
                _form_data(
                    form, lambda n, f, name=name, value=value: value if n == name else initial[n]
                ),
            )
            assert refused.status_code == 200, f"{url}: {name}={other_pk} was not refused"
            assert name in refused.context["adminform"].form.errors
            assert _snapshot(model, pk) == before, f"{url}: {name}={other_pk} was written"


def test_every_admin_page_is_closed_to_another_school(client, world, record_property):
    me, mine, other = world
    assert set(admin.site._registry) == set(other), "the walk covers every registered model"
    walk = Walk(client, "school admin")
    client.force_login(me)
    walked = Walk.cells
    for model, model_admin in admin.site._registry.items():
        _changelists(walk, model, model_admin, other)
        _other_objects(walk, model, model_admin, other)
        _add_forms(walk, model, other)
        _my_objects(walk, model, model_admin, mine, other)
        if model_admin.has_module_permission(_request(me)):
            # A model a school admin opens must have rows in the other school's world, or the
            # walk proves nothing for it: extend the `world` fixture when registering a model.
            assert other[model], f"{model._meta.label}: add another school's rows to the fixture"
    admin_cells = Walk.cells - walked

    # Teachers, parents and students of the same school get the sign-in page everywhere.
    kid = Student.objects.filter(pk__in=mine[Student]).first().user
    others = [
        User.objects.get(username="teacher-mine"),
        User.objects.get(username="parent-mine"),
        kid,
    ]
    walked = Walk.cells
    for user in others:
        client.force_login(user)
        walk = Walk(client, user.role)
        for model, model_admin in admin.site._registry.items():
            urls = [reverse(_name(model, "changelist")), reverse(_name(model, "add"))]
            for pk in sorted(mine[model] | other[model]):
                urls += _object_urls(model_admin, pk)
            for url in urls:
                response = walk.get(url)
                assert response.status_code == 302 and "/admin/login/" in response["Location"], url
    other_cells = Walk.cells - walked
    record_property("admin_cells_walked", admin_cells + other_cells)
    print(
        f"\nadmin scoping walk: {admin_cells} cells as the other school's admin, "
        f"{other_cells} as teacher/parent/student, {admin_cells + other_cells} in all"
    )
    assert admin_cells > 100 and other_cells > 100


def _request(user):
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def _nul_walk(client, users):
    answered = 0
    for user in users:
        client.force_login(user)
        for model in admin.site._registry:
            base = reverse(_name(model, "changelist"))
            response = client.get(base)
            params = [{"q": "a\x00b"}]
            if response.status_code == 200:
                for spec in response.context["cl"].filter_specs:
                    params += [{p: "\x00"} for p in spec.expected_parameters()]
            for query in params:
                response = client.get(base, query)
                assert response.status_code in (400, 403, 302), (user.username, base, query)
                answered += 1
            for what in ("change", "delete", "history"):
                response = client.get(reverse(_name(model, what), args=["1\x00"]), {"q": "\x00"})
                assert response.status_code in (400, 403, 302, 404), (base, what)
                answered += 1
    return answered


def _nul_users(school):
    return [
        factories.school_admin(school=school),
        factories.user(
            role=User.Role.SCHOOL_ADMIN,
            school=None,
            username="root",
            is_staff=True,
            is_superuser=True,
        ),
    ]


def test_a_nul_byte_in_a_search_or_a_filter_is_a_bad_request(client, world):
    assert _nul_walk(client, _nul_users(world[0].school)) > 20


def test_a_nul_byte_is_a_bad_request_on_postgresql(client, world):
    need_service(
        connection.vendor == "postgresql" and bool(os.environ.get("DATABASE_URL")),
        "PostgreSQL (DATABASE_URL), where a NUL in a query is an error",
    )
    assert _nul_walk(client, _nul_users(world[0].school)) > 20


# --- The account takeover of the issue, step by step -----------------------------------------


def test_a_student_account_cannot_be_swapped_for_another_account(client, world):
    me, mine, other = world
    student = Student.objects.filter(pk__in=mine[Student]).first()
    victim = User.objects.get(username=f"{MARK}-admin")
    client.force_login(me)
    url = reverse("admin:classrooms_student_change", args=[student.pk])
    page = client.get(url).content.decode()
    assert 'name="user"' not in page  # shown read-only, never an input
    client.post(
        url,
        {
            "user": victim.pk,
            "classroom": student.classroom_id,
            "name": student.name,
            "number_range": 10,
            "tier": 1,
            "picture_code": "1-2-3",
        },
    )
    student.refresh_from_db()
    assert student.user.role == User.Role.STUDENT and student.user_id != victim.pk


def test_a_student_added_in_the_admin_gets_a_new_account_of_their_own(client, world):
    me, mine, other = world
    klass = Student.objects.filter(pk__in=mine[Student]).first().classroom
    victim = User.objects.get(username="teacher-mine")
    client.force_login(me)
    response = client.post(
        reverse("admin:classrooms_student_add"),
        {
            "user": victim.pk,
            "classroom": klass.pk,
            "name": "Yann",
            "number_range": 10,
            "tier": 1,
            "picture_code": "",
        },
    )
    assert response.status_code == 302
    yann = Student.objects.get(name="Yann")
    assert yann.user_id != victim.pk and yann.user.role == User.Role.STUDENT
    assert yann.user.school_id == me.school_id and not yann.user.has_usable_password()
    assert len(yann.picture_code.split("-")) == 3 and yann.level_changes.count() == 1


def test_a_school_admin_cannot_raise_rights_or_move_an_account(client, world):
    me, mine, other = world
    other_school = User.objects.get(username=f"{MARK}-admin").school
    teacher = User.objects.get(username="teacher-mine")
    client.force_login(me)
    url = reverse("admin:classrooms_user_change", args=[teacher.pk])
    form = client.get(url).context["adminform"].form
    assert not {"is_superuser", "is_staff", "groups", "user_permissions", "school"} & set(
        form.fields
    )
    data = _form_data(form, lambda n, f: form[n].value())
    data.update(
        is_superuser="on",
        is_staff="on",
        school=other_school.pk,
        groups=[Group.objects.get().pk],
        role=User.Role.TEACHER,
    )
    assert client.post(url, data).status_code == 302
    teacher.refresh_from_db()
    assert (teacher.is_superuser, teacher.is_staff, teacher.school_id) == (
        False,
        False,
        me.school_id,
    )
    assert not teacher.groups.exists()
    # Made a school admin of the same school, they get staff: no further than the school.
    data["role"] = User.Role.SCHOOL_ADMIN
    assert client.post(url, data).status_code == 302
    teacher.refresh_from_db()
    assert teacher.is_staff and not teacher.is_superuser and teacher.school_id == me.school_id
    # Nobody is made a student by hand: student accounts come with their student row.
    data["role"] = User.Role.STUDENT
    assert client.post(url, data).status_code == 200
    teacher.refresh_from_db()
    assert teacher.role == User.Role.SCHOOL_ADMIN


def test_a_user_added_by_a_school_admin_lands_in_their_school(client, world):
    me, mine, other = world
    client.force_login(me)
    response = client.post(
        reverse("admin:classrooms_user_add"),
        {
            "username": "newteacher",
            "usable_password": "true",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "role": User.Role.TEACHER,
            "is_superuser": "on",
            "is_staff": "on",
            "school": User.objects.get(username=f"{MARK}-admin").school_id,
        },
    )
    assert response.status_code == 302
    new = User.objects.get(username="newteacher")
    assert (new.school_id, new.is_staff, new.is_superuser) == (me.school_id, False, False)


def test_the_other_schools_parent_cannot_be_linked_to_my_child(client, world):
    me, mine, other = world
    child = Student.objects.get(pk__in=mine[Student], name="Anna")
    client.force_login(me)
    url = reverse("admin:classrooms_parentlink_add")
    for name in (f"{MARK}-parent", f"{MARK}-free", f"{MARK}-multi"):
        response = client.post(
            url, {"parent": User.objects.get(username=name).pk, "student": child.pk}
        )
        assert response.status_code == 200 and "parent" in response.context["adminform"].form.errors
    assert not ParentLink.objects.filter(student=child).exists()
    mine_parent = User.objects.get(username="parent-mine-2")
    assert client.post(url, {"parent": mine_parent.pk, "student": child.pk}).status_code == 302
    assert ParentLink.objects.filter(student=child, parent=mine_parent).exists()


def test_a_locked_out_account_of_my_school_is_shown_and_unlocked(client, world):
    me, mine, other = world
    client.force_login(me)
    changelist = reverse("admin:classrooms_user_changelist")
    page = client.get(changelist)
    locked = {
        u.username: page.context["cl"].model_admin.signin_locked(u)
        for u in page.context["cl"].result_list
    }
    assert locked["teacher-mine"] is True and locked["admin-mine"] is False
    teacher = User.objects.get(username="teacher-mine")
    foreign = User.objects.get(username=f"{MARK}-teacher")
    response = client.post(
        changelist,
        {"action": "unlock_signin", "_selected_action": [teacher.pk, foreign.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert not AccessAttempt.objects.filter(username="teacher-mine").exists()
    assert AccessAttempt.objects.filter(username=f"{MARK}-teacher").exists()
    # The attempts page shows my school's attempts only.
    attempts = client.get(reverse("admin:axes_accessattempt_changelist"))
    assert attempts.status_code == 200 and MARK not in attempts.content.decode()
