"""School.programme: the official expectations the reports show for each skill.

An existing school gets the programme of the language most of its staff chose, else of its time
zone (German-speaking zones: de; America: us; elsewhere in Europe: fr). The rule is written out
here rather than imported, so this migration does the same thing whatever the code becomes.
"""

from collections import Counter

from django.db import migrations, models

import classrooms.models

GERMAN_ZONES = ("Europe/Berlin", "Europe/Busingen", "Europe/Vienna", "Europe/Zurich")


def _programme(language: str, time_zone: str) -> str:
    if language in ("fr", "de"):
        return language
    if language == "en" or time_zone.startswith(("America/", "US/", "Pacific/Honolulu")):
        return "us"
    if time_zone in GERMAN_ZONES:
        return "de"
    return "fr" if time_zone.startswith("Europe/") else "us"


def set_programmes(apps, schema_editor):
    School = apps.get_model("classrooms", "School")
    User = apps.get_model("classrooms", "User")
    for school in School.objects.all():
        spoken = Counter(
            (lang or "").split("-")[0].lower()
            for lang in User.objects.filter(
                school=school, role__in=("teacher", "school_admin")
            ).values_list("language", flat=True)
            if lang
        )
        language = spoken.most_common(1)[0][0] if spoken else ""
        school.programme = _programme(language, school.time_zone or "")
        school.save(update_fields=["programme"])


class Migration(migrations.Migration):
    dependencies = [("classrooms", "0003_classroom_read_aloud")]

    operations = [
        migrations.AddField(
            model_name="school",
            name="programme",
            field=models.CharField(
                choices=[
                    ("fr", "France: programme of cycles 2 and 3"),
                    ("de", "Germany: KMK Bildungsstandards, Primarbereich"),
                    ("us", "United States: Common Core State Standards, K–5"),
                ],
                default=classrooms.models.default_programme,
                help_text="The official expectations the progress reports show for each skill.",
                max_length=2,
                verbose_name="school programme",
            ),
        ),
        migrations.RunPython(set_programmes, migrations.RunPython.noop),
    ]
