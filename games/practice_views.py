"""The teacher's practice goals for a class (issue 12): set them, see who did them, remove them.

Every row is reached from the class the teacher may see (classrooms.permissions): another
teacher's class is a 404, and a child from another class can't be picked, even in a forged post.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from classrooms import permissions
from classrooms.models import Student

from . import practice
from .models import PracticeGoal


class PracticeGoalForm(forms.Form):
    student = forms.ModelChoiceField(
        queryset=Student.objects.none(),
        required=False,
        empty_label=gettext_lazy("The whole class"),
        label=gettext_lazy("For"),
    )
    kind = forms.ChoiceField(choices=PracticeGoal.Kind.choices, label=gettext_lazy("Goal"))
    operator = forms.ChoiceField(
        choices=PracticeGoal.Operator.choices, required=False, label=gettext_lazy("With")
    )
    target = forms.IntegerField(
        min_value=1, max_value=PracticeGoal.MAX_TARGET, label=gettext_lazy("How many")
    )
    due_on = forms.DateField(
        label=gettext_lazy("By"), widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, *args, students, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["student"].queryset = students

    def clean_due_on(self):
        due_on = self.cleaned_data["due_on"]
        if due_on < timezone.localdate():
            raise forms.ValidationError(_("Choose a date from today on."))
        return due_on

    def clean(self):
        data = super().clean()
        if data.get("kind") == PracticeGoal.Kind.GAMES and data.get("operator"):
            self.add_error("operator", _("Choose a sign only for operations."))
        return data


@permissions.staff_required
def practice_goals(request: HttpRequest, pk: int) -> HttpResponse:
    """The class's goals with each child's count; a new goal from the form below them."""
    classroom = permissions.classroom_get(request.user, pk)
    students = permissions.manageable(request.user, Student).filter(classroom=classroom)
    form = PracticeGoalForm(request.POST or None, students=students.order_by("name"))
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            practice.practice_goal_create(
                classroom=classroom,
                student=d["student"],
                kind=d["kind"],
                operator=d.get("operator") or "",
                target=d["target"],
                due_on=d["due_on"],
                created_by=request.user,
            )
        except practice.GoalError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Goal saved."))
            return redirect("games:practice_goals", pk=classroom.pk)
    ctx = {
        "classroom": classroom,
        "tab": "practice",
        "form": form,
        "goals": practice.goals_of_classroom(classroom),
        "today": timezone.localdate(),
    }
    return render(request, "games/practice_goals.html", ctx, status=400 if form.errors else 200)


@permissions.staff_required
@require_POST
def practice_goal_delete(request: HttpRequest, pk: int, goal_id: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    goal = get_object_or_404(PracticeGoal, classroom=classroom, pk=goal_id)
    practice.practice_goal_delete(goal=goal)
    messages.success(request, _("Goal removed."))
    return redirect("games:practice_goals", pk=classroom.pk)
