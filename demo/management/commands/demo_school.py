"""Create the demo school, with weeks of play and a running class game; running it again changes nothing."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand
from django.urls import reverse

from classrooms.models import Student
from demo.school import DEMO_PASSWORD, DemoSummary, demo_school_build, pictures_words
from games.models import Game, Play
from reports.models import WeeklyReport


class Command(BaseCommand):
    help = (
        "Create (or complete) the demo school: accounts, two classes, five weeks of games "
        "played through the platform, weekly reports and a running class game. "
        "Running it again changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--no-history",
            action="store_true",
            help="Only the school, accounts, classes and students: no games, no reports.",
        )

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        summary = demo_school_build(history=not options["no_history"])
        seconds = time.perf_counter() - started
        self.stdout.write(self.style.SUCCESS(f"Demo school ready ({seconds:.1f} s)."))
        self.stdout.write(self._describe(summary))

    def _describe(self, summary: DemoSummary) -> str:
        child = summary.child
        lines = [
            f"  Logins (password {DEMO_PASSWORD} for all):",
            "    teacher  – Yann Kerjean, teaches both classes",
            "    admin    – Morgane Le Gall, school admin (also /admin/)",
            f"    parent   – Soazig Le Bihan, parent of {child.name} ({summary.classes[0].code})",
            "  Classes (students sign in on a tablet at /tablet/ with the class code, then three pictures):",
        ]
        for classroom in summary.classes:
            students = Student.objects.filter(classroom=classroom).order_by("name")
            games = Game.objects.filter(classroom=classroom, status=Game.Status.FINISHED).count()
            plays = Play.objects.filter(student__classroom=classroom).count()
            lines.append(
                f"    {classroom.code}  {classroom.name}: "
                + ", ".join(f"{s.name} ({s.number_range}/{s.tier})" for s in students)
            )
            lines.append(f"           {games} finished games, {plays} recorded plays")
        lines.append(f"  {child.name}'s pictures: {pictures_words(child)}")
        weeks = list(
            WeeklyReport.objects.filter(student__classroom__school=summary.school)
            .values_list("week_start", flat=True)
            .distinct()
            .order_by("week_start")
        )
        if weeks:
            lines.append(
                f"  Weekly reports: {len(weeks)} weeks, {weeks[0]:%d %b} to {weeks[-1]:%d %b}"
            )
        if not weeks:
            lines.append(
                "  No games or reports yet: run the command again without --no-history to add them."
            )
            return "\n".join(lines)
        lines.append("  What to try:")
        first = summary.classes[0]
        lines.append(
            f"    as parent:  {reverse('reports:child', args=[child.pk])} – {child.name}'s report "
            "with a chart per skill"
        )
        lines.append(
            f"    as teacher: {reverse('reports:class', args=[first.pk])} – the class grid; "
            "click a student for the drill-down"
        )
        lines.append(
            f"                {reverse('classrooms:history', args=[first.pk])} – past games, "
            "each one replayable"
        )
        lines.append(
            f"                {reverse('classrooms:classroom_detail', args=[first.pk])} – "
            "Play now: one tap starts a class game; the class board shows tablets a QR code"
        )
        if summary.live is not None:
            live_class = summary.live.classroom
            lines.append(
                f"                {reverse('classrooms:session_live', args=[summary.live.pk])} – "
                f"the class game running now in {live_class.code} (it plays on by itself)"
            )
            waiting = []
            for game in summary.live.games.order_by("pk"):
                state = game.state or {}
                seat = (
                    game.seats.filter(position=state.get("active"))
                    .select_related("student")
                    .first()
                )
                if seat is not None and seat.student is not None:
                    waiting.append(f"{seat.student.name} ({pictures_words(seat.student)})")
            if waiting:
                lines.append(
                    f"    on a tablet: class code {live_class.code}, then "
                    + " or ".join(waiting)
                    + " – it is their turn"
                )
        return "\n".join(lines)
