"""Parents' codes take the shared invitation fields (classrooms.models.Invitation, issue 35): the
code's hash is `secret_hash`. A rename only: every hash is kept, so a slip printed before still
links its child (tests/classrooms/test_invitation_migration.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0004_weeklyreport_mark"),
    ]

    operations = [
        migrations.RenameField(
            model_name="parentinvite", old_name="code_hash", new_name="secret_hash"
        ),
    ]
