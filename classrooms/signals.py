"""Hooks the classrooms app offers the apps above it, so it never imports them."""

from django.dispatch import Signal

# A student is being erased (services.student_erase), inside its transaction and before the
# student row is locked: the apps above scrub the student from their rows first, in the lock
# order of every move (games: the games they played, each game row locked first). Sent with
# student, by.
student_erasing = Signal()

# The retention rule (classrooms.retention) erases the play data past its keeping: the apps above
# erase their rows and answer the rows erased (or, with dry_run, that would be) per model label.
# Sent once per school with school, day (the cut-off day at the school), moment (its first
# moment in the school's time zone) and dry_run; then once with school=None and day the
# earliest cut-off of all, for the rows that belong to no one school (the parents' emails).
retention_due = Signal()
