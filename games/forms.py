"""Forms of the students' pages."""
from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Seat


class PracticeForm(forms.Form):
    """A practice game: how many computer players, and how strong."""

    computers = forms.TypedChoiceField(
        label=_("Computer players"), choices=[(1, "1"), (2, "2"), (3, "3")], coerce=int, initial=2,
        widget=forms.RadioSelect,
    )
    strength = forms.ChoiceField(label=_("How strong?"), choices=Seat.Bot.choices, initial="easy",
                                 widget=forms.RadioSelect)
