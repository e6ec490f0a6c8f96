"""ClassSession now belongs to classgames: Game.session points there; state only, no table changes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0002_game_phase_started_at'),
        ('classgames', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='game',
                    name='session',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='games', to='classgames.classsession'),
                ),
                migrations.DeleteModel(name='ClassSession'),
            ],
            database_operations=[],
        ),
    ]
