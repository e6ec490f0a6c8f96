"""The Django admin for school admins: every list, form, choice and lookup is scoped to their school.

A superuser sees everything. A school admin (role SCHOOL_ADMIN, staff) sees and edits only rows of
their own school, and every foreign key or many-to-many choice they are offered — and every id they
post — is checked against the same scope: a forged id from another school is a form error, never a
saved row. Anything the scope does not know is closed (fails shut). A NUL byte in a query string is
answered 400 (PostgreSQL refuses NUL in text, which would otherwise be a 500).
"""

from __future__ import annotations

import axes.admin as axes_admin  # registers axes' models now, so they can be re-registered below
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from axes.utils import reset as axes_reset
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin as BaseGroupAdmin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponseBadRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from kavet_site import auth_throttle
from kavet_site.throttles.models import SignInFlood

from . import audit
from .audit.models import Action
from .models import Classroom, LevelChange, ParentLink, School, Student, User, programme_for
from .permissions import accounts_of_school, manageable
from .services import student_create


def _is_school_admin(user) -> bool:
    return bool(
        user.is_active
        and user.is_staff
        and not user.is_superuser
        and user.role == User.Role.SCHOOL_ADMIN
        and user.school_id
    )


def users_in_school(school_id: int) -> QuerySet:
    """The accounts a school admin may see and edit (classrooms.permissions.accounts_of_school)."""
    return accounts_of_school(school_id)


# The school's rows an admin changes here follow the site's own rules (classrooms.permissions).
MANAGED_HERE = (School, User, Classroom, Student, LevelChange, ParentLink)


def scoped(model, user) -> QuerySet:
    """Every row of `model` this admin user may see or pick; none for a model the scope does not
    know (a newly registered model is closed until it is scoped here)."""
    qs = model._default_manager.all()
    if user.is_superuser:
        return qs
    if not _is_school_admin(user):
        return qs.none()
    if model in MANAGED_HERE:
        return manageable(user, qs)
    if model in (AccessAttempt, AccessLog, AccessFailureLog):
        return qs.filter(username__in=users_in_school(user.school_id).values("username"))
    return qs.none()


def _has_nul(request: HttpRequest) -> bool:
    return any("\x00" in k or any("\x00" in v for v in request.GET.getlist(k)) for k in request.GET)


class ScopeGuardMixin:
    """Refuses a NUL byte in the query string, and scopes the queryset and every relation field."""

    def _nul_guard(self, request):
        if _has_nul(request):
            return HttpResponseBadRequest(_("Bad request."))
        return None

    def changelist_view(self, request, extra_context=None):
        return self._nul_guard(request) or super().changelist_view(request, extra_context)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return self._nul_guard(request) or super().changeform_view(
            request, object_id, form_url, extra_context
        )

    def delete_view(self, request, object_id, extra_context=None):
        return self._nul_guard(request) or super().delete_view(request, object_id, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        return self._nul_guard(request) or super().history_view(request, object_id, extra_context)

    def get_queryset(self, request: HttpRequest):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(pk__in=scoped(self.model, request.user).values("pk"))

    # Every edit made here is in the school's activity log too (classrooms.audit), beside
    # Django's own LogEntry: a row added, changed (with the fields) or deleted.
    audit_changes = True

    def log_addition(self, request, obj, message):
        audit.record(request, Action.ADMIN_EDIT, obj, change="added")
        return super().log_addition(request, obj, message)

    def log_change(self, request, obj, message):
        if self.audit_changes:
            fields = [
                str(field)
                for part in (message if isinstance(message, list) else [])
                for field in part.get("changed", {}).get("fields", [])
            ]
            audit.record(request, Action.ADMIN_EDIT, obj, change="changed", changed=fields)
        return super().log_change(request, obj, message)

    def log_deletions(self, request, queryset):
        for obj in queryset:
            audit.record(request, Action.ADMIN_EDIT, obj, change="deleted")
        return super().log_deletions(request, queryset)

    def relation_choices(self, db_field, request: HttpRequest) -> QuerySet:
        """The rows a relation field may point at; override for a narrower choice."""
        return scoped(db_field.related_model, request.user)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if not request.user.is_superuser:
            kwargs["queryset"] = self.relation_choices(db_field, request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if not request.user.is_superuser:
            kwargs["queryset"] = self.relation_choices(db_field, request)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


class SchoolScopedAdmin(ScopeGuardMixin, admin.ModelAdmin):
    """Superusers see everything; a school admin sees only rows of their school."""

    def _allowed(self, request: HttpRequest) -> bool:
        return (
            request.user.is_active
            and request.user.is_staff
            and (request.user.is_superuser or _is_school_admin(request.user))
        )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self._allowed(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return self._allowed(request)

    def has_add_permission(self, request) -> bool:
        return self._allowed(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._allowed(request)


@admin.register(School)
class SchoolAdmin(SchoolScopedAdmin):
    list_display = ("name", "slug", "time_zone", "programme")

    def get_changeform_initial_data(self, request):
        # A new school starts with the programme of the language its admin works in.
        initial = super().get_changeform_initial_data(request)
        initial.setdefault(
            "programme", programme_for(language=getattr(request, "LANGUAGE_CODE", "") or "")
        )
        return initial

    def has_add_permission(self, request) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser

    audit_changes = False  # save_model names what changed, the programme apart

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            return
        if "programme" in form.changed_data:
            old = form.initial.get("programme")
            audit.record(request, Action.PROGRAMME_CHANGED, obj, old=old, new=obj.programme)
        others = [f for f in form.changed_data if f != "programme"]
        if others:
            audit.record(request, Action.SCHOOL_CHANGED, obj, changed=others)


def _paused(username) -> QuerySet:
    """The addresses `username` (a value or an OuterRef) is refused from now (auth_throttle)."""
    return auth_throttle.paused_attempts().filter(username=username)


def signin_floods(request: HttpRequest) -> QuerySet:
    """The sign-in floods this admin user is told of: every one for a superuser; for a school
    admin, those from an address their staff signed in from or their accounts were tried from.
    A flood's names are not kept, so no other school's account is ever named."""
    if request.user.is_superuser:
        return auth_throttle.floods_from()
    if not _is_school_admin(request.user):
        return SignInFlood.objects.none()
    school_id = request.user.school_id
    tried_from = scoped(AccessAttempt, request.user).values_list("ip_address", flat=True)
    addresses = {*auth_throttle.staff_addresses(school_id), *tried_from}
    return auth_throttle.floods_from(addresses)


class SignInNotesMixin:
    """Lists that show, above the rows, the sign-in floods this admin should know of."""

    change_list_template = "admin/signin_change_list.html"

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "signin_floods": list(signin_floods(request)[:10]),
            "signin_floods_all": request.user.is_superuser,
            "signin_names_limit": auth_throttle.client_limit(),
            "signin_own_failures": auth_throttle.FLOOD_OWN_FAILURES,
        }
        return super().changelist_view(request, extra_context)


@admin.register(User)
class UserAdmin(SignInNotesMixin, SchoolScopedAdmin, BaseUserAdmin):
    list_display = ("username", "first_name", "last_name", "role", "is_active", "signin_locked")
    list_filter = ("role", "is_active")
    fieldsets = BaseUserAdmin.fieldsets + (
        ("Kavet 'm eus", {"fields": ("role", "school", "language")}),
    )
    add_fieldsets = BaseUserAdmin.add_fieldsets + (
        ("Kavet 'm eus", {"fields": ("role", "school", "first_name", "last_name")}),
    )
    actions = ["unlock_signin"]

    # Fields a school admin never sets: rights beyond their school, and the school itself.
    _superuser_only = {"is_superuser", "is_staff", "groups", "user_permissions", "school"}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_locked=Exists(_paused(OuterRef("username"))))

    @admin.display(boolean=True, description=_("locked out"))
    def signin_locked(self, obj) -> bool:
        locked = getattr(obj, "_locked", None)
        if locked is None:
            locked = _paused(obj.username).exists()
        return locked

    @admin.action(description=_("Unlock sign-in"))
    def unlock_signin(self, request, queryset):
        # The queryset is the admin's own (scoped): another school's account is never reset.
        count = sum(
            1
            for username in queryset.values_list("username", flat=True)
            if axes_reset(username=username)
        )
        self.message_user(
            request,
            ngettext("%(count)d account unlocked.", "%(count)d accounts unlocked.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        hidden = self._superuser_only - {"school"}  # the school is shown, read-only
        if obj is None:
            hidden = hidden | {"school"}
        return [
            (name, {**opts, "fields": tuple(f for f in opts["fields"] if f not in hidden)})
            for name, opts in fieldsets
        ]

    def get_readonly_fields(self, request, obj=None):
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser:
            return fields
        fields += ("school",)
        if obj is not None and obj.role == User.Role.STUDENT:
            fields += ("role",)  # a student's account belongs to their student row
        return fields

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "role" and not request.user.is_superuser:
            # Student accounts are made with their student row, never by hand.
            kwargs["choices"] = [c for c in User.Role.choices if c[0] != User.Role.STUDENT]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if not request.user.is_superuser:
            # Whatever was posted: the admin's own school, never superuser, staff only as admin.
            obj.school_id = request.user.school_id
            obj.is_superuser = False
            obj.is_staff = obj.role == User.Role.SCHOOL_ADMIN
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not request.user.is_superuser:
            form.instance.groups.clear()
            form.instance.user_permissions.clear()


@admin.register(Classroom)
class ClassroomAdmin(SchoolScopedAdmin):
    list_display = ("name", "school_year", "code", "archived_at")
    filter_horizontal = ("teachers",)

    def relation_choices(self, db_field, request):
        qs = super().relation_choices(db_field, request)
        if db_field.name == "teachers":
            qs = qs.filter(role=User.Role.TEACHER)
        return qs


@admin.register(Student)
class StudentAdmin(SchoolScopedAdmin):
    list_display = ("name", "classroom", "number_range", "tier")
    list_filter = ("number_range", "tier", ("classroom", admin.RelatedOnlyFieldListFilter))
    # The sign-in account is made by the service with the student; nobody picks it by hand.
    readonly_fields = ("user",)

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        return [f for f in fields if f != "user"] if obj is None else fields

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and "picture_code" in form.base_fields:
            form.base_fields["picture_code"].required = False
            form.base_fields["picture_code"].help_text = _("Leave empty to draw three pictures.")
        return form

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        made = student_create(
            classroom=obj.classroom,
            name=obj.name,
            number_range=obj.number_range,
            tier=obj.tier,
            changed_by=request.user,
            picture_code=obj.picture_code or None,
        )
        obj.pk, obj.user, obj.picture_code, obj.created_at = (
            made.pk,
            made.user,
            made.picture_code,
            made.created_at,
        )
        obj._state.adding = False


@admin.register(LevelChange)
class LevelChangeAdmin(SchoolScopedAdmin):
    list_display = ("student", "number_range", "tier", "changed_at", "changed_by")

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # history is append-only

    def relation_choices(self, db_field, request):
        qs = super().relation_choices(db_field, request)
        if db_field.name == "changed_by":
            qs = qs.exclude(role__in=[User.Role.STUDENT, User.Role.PARENT])
        return qs


@admin.register(ParentLink)
class ParentLinkAdmin(SchoolScopedAdmin):
    list_display = ("parent", "student", "created_at", "revoked_at")

    def relation_choices(self, db_field, request):
        if db_field.name == "parent" and not request.user.is_superuser:
            # Parents may have no school of their own: those of this school, or already
            # following one of its children — and none who also follows another school's child
            # (that one links through the parents' page, with the child's code).
            sid = request.user.school_id
            if not _is_school_admin(request.user):
                return User.objects.none()
            elsewhere = ParentLink.objects.filter(parent=OuterRef("pk")).exclude(
                student__classroom__school_id=sid
            )
            return (
                User.objects.filter(role=User.Role.PARENT, is_superuser=False, is_staff=False)
                .filter(Q(school_id=sid) | Q(parent_links__student__classroom__school_id=sid))
                .exclude(Exists(elsewhere))
                .distinct()
            )
        return super().relation_choices(db_field, request)


# django-axes' own admin pages, scoped: a school admin reads the attempts for their school's
# accounts (and may delete an attempt, which unlocks); everything else stays superuser-only.
class AxesScopedMixin(ScopeGuardMixin):
    def has_module_permission(self, request):
        return request.user.is_superuser or _is_school_admin(request.user)

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser or _is_school_admin(request.user)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_add_permission(self, request):
        return False


class AccessAttemptAdmin(SignInNotesMixin, AxesScopedMixin, axes_admin.AccessAttemptAdmin):
    """The failed sign-ins still counted (the cool-off): whose, from where, how many, when."""

    list_display = (
        "username",
        "ip_address",
        "failures_since_start",
        "attempt_time",
        "signin_paused",
        "path_info",
    )

    @admin.display(boolean=True, description=_("refused now"))
    def signin_paused(self, obj) -> bool:
        return _paused(obj.username).filter(ip_address=obj.ip_address).exists()

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser or _is_school_admin(request.user)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not request.user.is_superuser:
            actions.pop("cleanup_expired_attempts", None)  # it cleans every school's rows
        return actions


class AccessLogAdmin(AxesScopedMixin, axes_admin.AccessLogAdmin):
    pass


class AccessFailureLogAdmin(AxesScopedMixin, axes_admin.AccessFailureLogAdmin):
    pass


class SignInFloodAdmin(AxesScopedMixin, admin.ModelAdmin):
    """Every sign-in flood, by address: the site's administrators only (a school admin reads
    those from their own addresses above the users and attempts lists)."""

    list_display = ("address", "started_at", "last_at", "names", "failures", "longest_delay_ms")
    search_fields = ("address",)

    def has_module_permission(self, request):
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser


class GroupAdmin(ScopeGuardMixin, BaseGroupAdmin):
    """Groups hand out permissions: superusers only (the default permission checks)."""


for _model, _admin_class in (
    (AccessAttempt, AccessAttemptAdmin),
    (AccessLog, AccessLogAdmin),
    (AccessFailureLog, AccessFailureLogAdmin),
    (SignInFlood, SignInFloodAdmin),
    (Group, GroupAdmin),
):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)
    admin.site.register(_model, _admin_class)


# Django's admin is the site team's tool, for superusers only. A school admin manages their
# school on its own pages (classrooms/schooladmin: staff, classes, roster, settings, data), in
# the school's words; the scoping above stays as a second wall should an admin ever be let in.
def _superusers_only(request: HttpRequest) -> bool:
    return bool(request.user.is_active and request.user.is_superuser)


admin.site.has_permission = _superusers_only
