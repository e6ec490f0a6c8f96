"""The Django admin for school admins: every list is scoped to their own school."""
from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.http import HttpRequest

from .models import Classroom, LevelChange, ParentLink, School, Student, User


class SchoolScopedAdmin(admin.ModelAdmin):
    """Superusers see everything; a school admin sees only rows of their school."""

    school_path = "school"

    def get_queryset(self, request: HttpRequest):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        if not getattr(request.user, "school_id", None):
            return qs.none()
        return qs.filter(**{self.school_path: request.user.school_id})

    def _allowed(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff and (
            request.user.is_superuser or request.user.role == User.Role.SCHOOL_ADMIN
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

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if not request.user.is_superuser and db_field.related_model is School:
            kwargs["queryset"] = School.objects.filter(pk=request.user.school_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(School)
class SchoolAdmin(SchoolScopedAdmin):
    school_path = "pk"
    list_display = ("name", "slug", "time_zone")

    def has_add_permission(self, request) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser


@admin.register(User)
class UserAdmin(SchoolScopedAdmin, BaseUserAdmin):
    list_display = ("username", "first_name", "last_name", "role", "is_active")
    list_filter = ("role", "is_active")
    fieldsets = BaseUserAdmin.fieldsets + (("Kavet 'm eus", {"fields": ("role", "school", "language")}),)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        # A school admin never hands out superuser or arbitrary permissions.
        return [(name, {**opts, "fields": tuple(f for f in opts["fields"]
                                                if f not in {"is_superuser", "groups", "user_permissions"})})
                for name, opts in fieldsets]


@admin.register(Classroom)
class ClassroomAdmin(SchoolScopedAdmin):
    list_display = ("name", "school_year", "code", "archived_at")
    filter_horizontal = ("teachers",)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "teachers" and not request.user.is_superuser:
            kwargs["queryset"] = User.objects.filter(school_id=request.user.school_id,
                                                     role=User.Role.TEACHER)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


@admin.register(Student)
class StudentAdmin(SchoolScopedAdmin):
    school_path = "classroom__school"
    list_display = ("name", "classroom", "number_range", "tier")
    list_filter = ("number_range", "tier")
    raw_id_fields = ("user",)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "classroom" and not request.user.is_superuser:
            kwargs["queryset"] = Classroom.objects.filter(school_id=request.user.school_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(LevelChange)
class LevelChangeAdmin(SchoolScopedAdmin):
    school_path = "student__classroom__school"
    list_display = ("student", "number_range", "tier", "changed_at", "changed_by")

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # history is append-only


@admin.register(ParentLink)
class ParentLinkAdmin(SchoolScopedAdmin):
    school_path = "student__classroom__school"
    list_display = ("parent", "student", "created_at", "revoked_at")
