"""Forms of the teachers' pages: they parse and check input; services do the writing."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from .models import Classroom, NumberRange, Tier, User
from .names import NameFormField
from .pictures import CODE_LENGTH, PICTURES
from .services import MAX_BULK_NAMES, school_year_check

KEEP = ""
RANGE_CHOICES = [(str(v), label) for v, label in NumberRange.choices]
TIER_CHOICES = [(str(v), label) for v, label in Tier.choices]


class SchoolYearField(forms.CharField):
    """A school year like 2026-2027, checked by services.school_year_check."""

    def __init__(self, **kwargs):
        super().__init__(max_length=9, **kwargs)

    def clean(self, value) -> str:
        try:
            return school_year_check(super().clean(value))
        except ValidationError as exc:
            raise forms.ValidationError(exc.messages) from None


def _level_field(label, choices, *, keep: bool, **kwargs) -> forms.TypedChoiceField:
    if keep:  # a first choice that leaves each student's own level as it is
        choices = [(KEEP, _("keep as it is")), *choices]
        kwargs.update(empty_value=None, required=False)
    return forms.TypedChoiceField(label=label, choices=choices, coerce=int, **kwargs)


def number_range_field(*, keep: bool = False, **kwargs) -> forms.TypedChoiceField:
    """The menu of a student's number range; keep=True adds "keep as it is" (cleaned to None)."""
    return _level_field(_("Number range"), RANGE_CHOICES, keep=keep, **kwargs)


def tier_field(*, keep: bool = False, **kwargs) -> forms.TypedChoiceField:
    """The menu of a student's operations tier; keep=True adds "keep as it is" (cleaned to None)."""
    return _level_field(_("Operations"), TIER_CHOICES, keep=keep, **kwargs)


class RowsFromViewForm(forms.Form):
    """A form whose model-choice fields list the rows the view passes in, by keyword.

    `querysets` maps each keyword argument to its field: with {"students_qs": "students"},
    Form(data, students_qs=qs) offers the rows of qs in the field "students".
    """

    querysets: dict[str, str] = {}

    def __init__(self, *args, **kwargs):
        given = {field: kwargs.pop(keyword, None) for keyword, field in self.querysets.items()}
        super().__init__(*args, **kwargs)
        for field, queryset in given.items():
            self.fields[field].queryset = queryset


class ClassroomForm(forms.Form):
    name = NameFormField(label=_("Class name"), max_length=100)
    school_year = SchoolYearField(label=_("School year"), help_text=_("For example 2026-2027"))
    student_idle_minutes = forms.IntegerField(
        label=_("Sign a tablet out after (minutes without use)"),
        min_value=1,
        max_value=240,
        initial=10,
    )
    read_aloud = forms.ChoiceField(
        label=_("Read the game aloud on the tablets"),
        choices=Classroom.ReadAloud.choices,
        initial=Classroom.ReadAloud.AUTO,
        required=False,
        help_text=_(
            "The table reads what was said and the referee's ruling aloud. Never needed to play."
        ),
    )
    teachers = forms.ModelMultipleChoiceField(
        label=_("Teachers"),
        queryset=User.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, teachers_qs=None, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if teachers_qs is None:
            del self.fields["teachers"]  # a teacher does not choose colleagues
        else:
            self.fields["teachers"].queryset = teachers_qs
            self.fields["teachers"].label_from_instance = lambda u: (
                u.get_full_name() or u.get_username()
            )
        if editing:
            del self.fields["school_year"]

    def clean_read_aloud(self) -> str:
        return self.cleaned_data.get("read_aloud") or Classroom.ReadAloud.AUTO


class ClassroomCopyForm(RowsFromViewForm):
    querysets = {"students_qs": "students"}

    name = NameFormField(label=_("Name of next year's class"), max_length=100)
    school_year = SchoolYearField(label=_("School year"))
    students = forms.ModelMultipleChoiceField(
        label=_("Students who go on to this class"),
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    archive_old = forms.BooleanField(
        label=_("Archive this year's class"), required=False, initial=True
    )


class StudentsPasteForm(forms.Form):
    names = forms.CharField(
        label=_("First names or pseudonyms, one per line"),
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
        # Lazy all the way: formatted when the page is drawn, in the reader's language.
        help_text=format_lazy(
            _(
                "No surname or birth date is needed. Empty lines are skipped. "
                "At most {max} names at once."
            ),
            max=MAX_BULK_NAMES,
        ),
        # A generous cap: 500 names of 40 characters with line breaks, and then some.
        max_length=MAX_BULK_NAMES * 60,
    )
    number_range = number_range_field(initial="10")
    tier = tier_field(initial="1")


class StudentForm(forms.Form):
    name = NameFormField(label=_("First name or pseudonym"), max_length=40)
    number_range = number_range_field()
    tier = tier_field()
    untimed = forms.BooleanField(
        label=_("Untimed games"),
        help_text=_("No turn clock for this child: the table waits for them."),
        required=False,
    )


class StudentMoveForm(RowsFromViewForm):
    querysets = {"classrooms_qs": "to_classroom"}

    to_classroom = forms.ModelChoiceField(
        label=_("Move to the class"), queryset=None, empty_label=None
    )


class LevelsBulkForm(RowsFromViewForm):
    """Set many students' levels at once; a blank axis is left as it is."""

    querysets = {"students_qs": "students"}

    students = forms.ModelMultipleChoiceField(
        label=_("Students"),
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Tick the students whose level you want to set.")},
    )
    bulk_range = number_range_field(keep=True)
    bulk_tier = tier_field(keep=True)

    def clean(self):
        data = super().clean()
        if data.get("bulk_range") is None and data.get("bulk_tier") is None:
            raise forms.ValidationError(_("Choose a number range or an operations tier to set."))
        return data


def picture_choices() -> list[tuple[str, str]]:
    """The pictures as menu choices, named in the language active now (call it per form)."""
    return [("", "—")] + [(str(i), str(name)) for i, _key, name in PICTURES]


class CodeLookupForm(forms.Form):
    first = forms.TypedChoiceField(label=_("First picture"), coerce=int)
    second = forms.TypedChoiceField(label=_("Second picture"), coerce=int)
    third = forms.TypedChoiceField(label=_("Third picture"), coerce=int)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key in ("first", "second", "third"):
            self.fields[key].choices = picture_choices()

    def pictures(self) -> list[int]:
        return [self.cleaned_data[k] for k in ("first", "second", "third")][:CODE_LENGTH]


class InviteForm(forms.Form):
    first_name = NameFormField(label=_("First name"), max_length=150, required=False)
    last_name = NameFormField(label=_("Last name"), max_length=150, required=False)
    email = forms.EmailField(label=_("E-mail (to remember who it is for)"), required=False)


class InviteAcceptForm(forms.Form):
    username = forms.CharField(label=_("User name"), max_length=150)
    first_name = NameFormField(label=_("First name"), max_length=150, required=False)
    last_name = NameFormField(label=_("Last name"), max_length=150, required=False)
    password1 = forms.CharField(label=_("Password"), widget=forms.PasswordInput, strip=False)
    password2 = forms.CharField(label=_("Password again"), widget=forms.PasswordInput, strip=False)

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", _("The two passwords are not the same."))
        return data


# --- class games ---------------------------------------------------------------------------

STARTER_CHOICES = [
    ("first", _("the first player at each table")),
    ("random", _("a player drawn at random")),
]
LESSON_CHOICES = [("auto", _("on at tier 1 only")), ("on", _("always on")), ("off", _("off"))]


class ClassGameSettingsForm(forms.Form):
    """The game settings of RULES.md a teacher chooses for every table of a class game."""

    challenge_window = forms.IntegerField(
        label=_("Time to call “Kavet 'm eus!” (seconds, 0 = no challenges)"),
        min_value=0,
        max_value=60,
        initial=10,
    )
    challenge_time = forms.IntegerField(
        label=_("Time for a challenger to announce (seconds)"),
        min_value=10,
        max_value=300,
        initial=60,
    )
    turn_time = forms.IntegerField(
        label=_("Time limit for a turn (seconds, 0 = no limit)"),
        min_value=0,
        max_value=600,
        initial=120,
    )
    untimed = forms.BooleanField(
        label=_("Untimed game: no clock on anyone's turn (the tables wait for every child)"),
        required=False,
        initial=False,
    )
    starter = forms.ChoiceField(label=_("Who starts"), choices=STARTER_CHOICES, initial="first")
    nothing_true_penalty = forms.TypedChoiceField(
        label=_("A false challenge of a true “nothing to do” costs"),
        coerce=int,
        initial="3",
        choices=[("3", _("3 cards")), ("4", _("4 cards (German edition)"))],
    )
    lesson = forms.ChoiceField(
        label=_("After a missed operation, show one that was possible"),
        choices=LESSON_CHOICES,
        initial="auto",
    )
    copies = forms.IntegerField(
        label=_("Copies of each number card"), min_value=1, max_value=4, initial=2
    )
    x_cards = forms.IntegerField(label=_("X cards (jokers)"), min_value=0, max_value=8, initial=4)
    events = forms.BooleanField(
        label=_("Event cards (UNAN … C'HWEC'H)"), required=False, initial=True
    )
    cap_range = forms.TypedChoiceField(
        label=_("Lower the number range for every table"),
        coerce=int,
        empty_value=None,
        required=False,
        choices=[("", _("no: each table's weakest player sets it")), ("10", _("up to 10"))],
    )
    cap_tier = forms.TypedChoiceField(
        label=_("Lower the operations for every table"),
        coerce=int,
        empty_value=None,
        required=False,
        choices=[
            ("", _("no: each table's weakest player sets it")),
            ("1", _("1 – add & subtract")),
            ("2", _("2 – four operations")),
        ],
    )

    def settings(self) -> dict:
        """The settings dict for games.services.game_create (without the per-table parts)."""
        d = self.cleaned_data
        lesson = {"auto": None, "on": True, "off": False}[d["lesson"]]
        return {
            "challenge_window": d["challenge_window"],
            "challenge_time": d["challenge_time"],
            "turn_time": d["turn_time"],
            "untimed": bool(d.get("untimed")),
            "nothing_true_penalty": d["nothing_true_penalty"],
            "lesson": lesson,
            "copies": d["copies"],
            "x_cards": d["x_cards"],
            "events": bool(d["events"]),
        }


def _table_numbers(raws, max_tables: int) -> set[int]:
    """The tables a student was sent to: the numbers posted that name a table (0: not playing)."""
    numbers = set()
    for raw in raws:
        try:
            number = int(raw)
        except (TypeError, ValueError):
            continue
        if 1 <= number <= max_tables:
            numbers.add(number)
    return numbers


def tables_from_post(data, students) -> tuple[list, dict]:
    """The tables as the teacher arranged them on the page.

    Each present student has a field `table_<id>` (0: not playing); each table `bots_<n>` and
    `strength_<n>`. A student sent with two different tables is returned in `doubles`, so
    the page can say so instead of silently picking one.
    """
    from .grouping import BOT_STRENGTHS, MAX_PLAYERS, PlannedTable

    by_number: dict[int, PlannedTable] = {}
    doubles: dict = {}
    max_tables = max(1, len(students))

    def table(number: int) -> PlannedTable:
        if number not in by_number:
            by_number[number] = PlannedTable(number=number)
        return by_number[number]

    for student in students:
        numbers = _table_numbers(data.getlist(f"table_{student.pk}"), max_tables)
        if len(numbers) > 1:
            doubles[student] = sorted(numbers)
        for number in sorted(numbers)[:1]:
            table(number).students.append(student)
    for key in data:
        if not key.startswith("bots_"):
            continue
        try:
            number = int(key.removeprefix("bots_"))
            bots = int(data.get(key) or 0)
        except ValueError:
            continue
        if not 1 <= number <= max_tables or bots == 0:
            continue
        t = table(number)
        t.bots = max(-1, min(bots, MAX_PLAYERS + 1))
        strength = data.get(f"strength_{number}", "medium")
        t.bot_strength = strength if strength in BOT_STRENGTHS else ""
    return [by_number[n] for n in sorted(by_number)], doubles
