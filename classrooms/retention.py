"""How long play data is kept, and the erase that applies it: the one home of the rule.

Play data of a school year Y is kept until the end of the school year KAVET_RETENTION_YEARS
after Y (default 2: the data of 2024-2025 is kept until the end of 2026-2027, 31 July 2027),
then erased by `retention_erase` (the `retention_erase` command and the weekly job
classrooms.tasks.retention_erase_weekly). In other words, on any day of school year C every
row dated before the first day of school year C - KAVET_RETENTION_YEARS is erased.

Play data is:

- the games (tables of class games and practice games), dated by when they ended or, never
  finished, when they were created; with them their seats, moves and plays
  (games.services.games_erase_before, which locks each game first);
- the class games (classgames.ClassSession) created before the cut-off, once none of their
  tables is left;
- the weekly reports, week tallies, report-build requests and weekly-email logs of weeks that
  lie wholly before the cut-off, and the level recommendations made before it (their evidence
  is counted from the plays) (reports.retention);
- the staff's activity log (classrooms.audit): its rows dated before the cut-off, the one
  way an audit row is ever deleted.

Each app erases its own rows, told by signals.retention_due (this module imports none of them).

Not play data, and never erased here: schools, accounts, classes, students, their levels and
level history, parent links and invites, email preferences. The
students of an archived class are erased by the existing erase flow
(classrooms.services.student_erase), not by this rule.

A running or paused game is never erased, whatever its age. Running the erase twice erases
nothing more the second time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import audit, signals
from .audit.models import Action
from .models import School
from .selectors import school_tz
from .services import school_year_check, school_year_current

# A school year runs from 1 August to 31 July: school_year_current starts a new year in
# August, and these two functions are the only others that know it (a test holds them together).
SCHOOL_YEAR_FIRST_MONTH = 8
DEFAULT_RETENTION_YEARS = 2

# What retention_erase counts, in the order it is reported: a model's label for each kind.
KINDS = (
    "games.Game",
    "games.Seat",
    "games.Move",
    "games.Play",
    "classgames.ClassSession",
    "reports.WeeklyReport",
    "reports.WeekTally",
    "reports.ReportJob",
    "reports.LevelRecommendation",
    "reports_mail.WeeklyEmail",
    "audit.AuditEvent",
)


def school_year_start(school_year: str) -> date:
    """The first day of a school year: 1 August 2025 for "2025-2026"."""
    return date(int(school_year_check(school_year)[:4]), SCHOOL_YEAR_FIRST_MONTH, 1)


def school_year_end(school_year: str) -> date:
    """The last day of a school year: 31 July 2026 for "2025-2026"."""
    end_year = int(school_year_check(school_year)[:4]) + 1
    return date.fromordinal(date(end_year, SCHOOL_YEAR_FIRST_MONTH, 1).toordinal() - 1)


def site_retention_years() -> int:
    """KAVET_RETENTION_YEARS: whole school years kept after the one the data belongs to."""
    years = int(getattr(settings, "KAVET_RETENTION_YEARS", DEFAULT_RETENTION_YEARS))
    if years < 0:
        raise ValueError("KAVET_RETENTION_YEARS cannot be negative")
    return years


def retention_years(school: School | None = None) -> int:
    """The years a school keeps: its own choice (School.retention_years) when it chose to keep
    less than the site, else the site's KAVET_RETENTION_YEARS."""
    years = site_retention_years()
    own = getattr(school, "retention_years", None)
    return years if own is None else min(own, years)


def kept_until(school_year: str, school: School | None = None) -> date:
    """The last day on which the play data of `school_year` is kept."""
    start = int(school_year_check(school_year)[:4]) + retention_years(school)
    return school_year_end(f"{start}-{start + 1}")


def cutoff_date(today: date, school: School | None = None) -> date:
    """On `today`, play data dated before this day is past its keeping and is erased.

    It is the first day of the school year KAVET_RETENTION_YEARS (or the school's own, shorter
    choice) before today's: the data of the years before it were kept until the end of a
    school year that is over.
    """
    start = int(school_year_current(today)[:4]) - retention_years(school)
    return school_year_start(f"{start}-{start + 1}")


def school_today(school: School, now: datetime | None = None) -> date:
    """Today's date at the school (each school has its own time zone)."""
    return (now or timezone.now()).astimezone(school_tz(school)).date()


def school_cutoff(school: School, day: date) -> datetime:
    """The first moment of `day` at the school: games are compared with it."""
    return datetime.combine(day, time(), tzinfo=school_tz(school))


@dataclass
class Erased:
    """What retention_erase erased (or, for a dry run, would erase): rows per kind."""

    dry_run: bool
    cutoffs: list[date] = field(default_factory=list)  # the cut-off days used (one per school)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def add(self, counts: dict[str, int]) -> None:
        for label, n in counts.items():
            self.counts[label] = self.counts.get(label, 0) + n

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> list[str]:
        """What was erased (or would be), in plain words: a heading, then one line per kind."""
        day = ", ".join(d.isoformat() for d in self.cutoffs)
        if not self.total:
            return [_("Nothing is dated before %(date)s: nothing to erase.") % {"date": day}]
        if self.dry_run:
            heading = _(
                "Dry run, nothing was erased. Play data dated before %(date)s that would be erased:"
            ) % {"date": day}
        else:
            heading = _("Erased the play data dated before %(date)s:") % {"date": day}
        return [heading] + ["  " + _kind_words(label, n) for label, n in self.counts.items() if n]


def _kind_words(label: str, n: int) -> str:
    words = {
        "games.Game": ngettext("%(count)d game", "%(count)d games", n),
        "games.Seat": ngettext("%(count)d seat at a table", "%(count)d seats at tables", n),
        "games.Move": ngettext("%(count)d move", "%(count)d moves", n),
        "games.Play": ngettext(
            "%(count)d play of a student (what the reports count)",
            "%(count)d plays of students (what the reports count)",
            n,
        ),
        "classgames.ClassSession": ngettext("%(count)d class game", "%(count)d class games", n),
        "reports.WeeklyReport": ngettext("%(count)d weekly report", "%(count)d weekly reports", n),
        "reports.WeekTally": ngettext("%(count)d week tally", "%(count)d week tallies", n),
        "reports.ReportJob": ngettext(
            "%(count)d report-build request", "%(count)d report-build requests", n
        ),
        "reports.LevelRecommendation": ngettext(
            "%(count)d level recommendation", "%(count)d level recommendations", n
        ),
        "reports_mail.WeeklyEmail": ngettext(
            "%(count)d weekly-email record", "%(count)d weekly-email records", n
        ),
        "audit.AuditEvent": ngettext(
            "%(count)d entry of the staff's activity log",
            "%(count)d entries of the staff's activity log",
            n,
        ),
    }
    return words.get(label, f"{label}: %(count)d") % {"count": n}


def retention_erase(
    *, before: date | None = None, dry_run: bool = False, now: datetime | None = None
) -> Erased:
    """Erase the play data past its keeping in every school; `before` overrides the cut-off.

    Each school's cut-off day is cutoff_date of today at that school, and its games are
    compared with the first moment of that day in the school's time zone. The weekly-email
    logs belong to parents rather than to one school: they use the earliest cut-off of all,
    which never erases anything early. Runs in short transactions of its own (each batch of
    games locked first): do not call it inside a transaction.
    """
    erased = Erased(dry_run=dry_run)
    cutoffs = set()
    for school in School.objects.order_by("pk"):
        day = before or cutoff_date(school_today(school, now), school)
        cutoffs.add(day)
        moment = school_cutoff(school, day)
        rows = _erase(erased, school=school, day=day, moment=moment, dry_run=dry_run)
        if rows and not dry_run:  # in the school's activity log, by nobody: the rule did it
            audit.record(None, Action.RETENTION_ERASED, school, actor=None, count=rows, before=day)
    if not cutoffs:
        cutoffs.add(before or cutoff_date(timezone.localdate(now)))
    _erase(erased, school=None, day=min(cutoffs), moment=None, dry_run=dry_run)
    erased.cutoffs = sorted(cutoffs)
    return erased


def _erase(erased: Erased, **due) -> int:
    """The apps above erase their rows past the cut-off (signals.retention_due); how many."""
    rows = 0
    for _receiver, counts in signals.retention_due.send(sender=School, **due):
        erased.add(counts or {})
        rows += sum((counts or {}).values())
    return rows
