"""Teacher invitations take the shared invitation fields (classrooms.models.Invitation, issue 35):
the link's hash is `secret_hash`, whoever joined is `used_by`. Renames only: every hash is kept,
so a link sent before still opens (tests/classrooms/test_invitation_migration.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("classrooms", "0007_student_untimed"),
    ]

    operations = [
        migrations.RenameField(
            model_name="teacherinvite", old_name="token_hash", new_name="secret_hash"
        ),
        migrations.RenameField(model_name="teacherinvite", old_name="user", new_name="used_by"),
        migrations.AlterField(
            model_name="teacherinvite",
            name="used_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
