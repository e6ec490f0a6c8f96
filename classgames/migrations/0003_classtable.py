"""The link between a class game and its tables moves up to classgames (ClassTable).

Every Game.session is copied to a ClassTable row; games 0007 then drops Game.session. Going
back, games 0007 brings the column back empty and this migration copies every link into it.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def links_copy_up(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    ClassTable = apps.get_model("classgames", "ClassTable")
    links = Game.objects.filter(session__isnull=False).values_list("pk", "session_id")
    ClassTable.objects.bulk_create(
        (ClassTable(game_id=game_id, session_id=session_id) for game_id, session_id in links),
        batch_size=1000,
    )


def links_copy_down(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    ClassTable = apps.get_model("classgames", "ClassTable")
    Game.objects.filter(class_table__isnull=False).update(
        session_id=Subquery(
            ClassTable.objects.filter(game_id=OuterRef("pk")).values("session_id")[:1]
        )
    )


class Migration(migrations.Migration):

    dependencies = [
        ('classgames', '0002_class_attendance'),
        ('games', '0006_tablet_registry'),
    ]

    operations = [
        migrations.CreateModel(
            name='ClassTable',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='class_table', serialize=False, to='games.game')),
                ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tables', to='classgames.classsession')),
            ],
        ),
        migrations.RunPython(links_copy_up, links_copy_down),
    ]
