"""Game.session goes: the link to the class game is classgames.ClassTable now (its 0003 copied
every link there first; going back, it copies them into this column again)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_tablet_registry'),
        ('classgames', '0003_classtable'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='game',
            name='session',
        ),
    ]
