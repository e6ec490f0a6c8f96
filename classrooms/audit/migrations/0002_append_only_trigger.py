"""On PostgreSQL, the database itself refuses to change or delete an audit row: a trigger raises
on UPDATE and DELETE unless the transaction set kavet.audit_maintenance (the retention erase,
AuditEventQuerySet.erase_before). SQLite (the embedded setup) relies on the model's guard."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION audit_append_only() RETURNS trigger AS $$
BEGIN
    IF current_setting('kavet.audit_maintenance', true) = 'on' THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit rows are append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_append_only ON audit_auditevent;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit_auditevent
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS audit_append_only ON audit_auditevent;
DROP FUNCTION IF EXISTS audit_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
