"""The parent's report as a PDF (reportlab, no system service): words, bands, charts, tips."""

from __future__ import annotations

import copy
import io
import os
from functools import lru_cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    KeepTogether,
    ListFlowable,
    ListItem,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from svglib.svglib import svg2rlg

from classrooms.pictures import ALL_PICTURES
from games.wording import as_printed

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu",)
PICTURES_DIR = Path(__file__).resolve().parent.parent / "static" / "img" / "pictures"


@lru_cache(maxsize=64)
def _picture_master(key: str) -> Drawing | None:
    path = PICTURES_DIR / f"{key}.svg"
    if key not in ALL_PICTURES or not path.exists():
        return None
    return svg2rlg(str(path))


def picture_drawing(key: str, size: float = 12 * mm) -> Drawing | None:
    """The project's own drawing (static/img/pictures/<key>.svg, the same file the pages show),
    scaled to size × size for the PDF: no emoji font is needed to print it."""
    master = _picture_master(key)
    if master is None:
        return None
    drawing = copy.deepcopy(master)
    factor = size / max(master.width, master.height)
    drawing.scale(factor, factor)
    drawing.width, drawing.height = master.width * factor, master.height * factor
    return drawing


@lru_cache(maxsize=1)
def _fonts() -> tuple[str, str]:
    """DejaVu when installed (×, −, “ ” and every accent), else the built-in Helvetica."""
    for folder in FONT_DIRS:
        regular, bold = (
            os.path.join(folder, "DejaVuSans.ttf"),
            os.path.join(folder, "DejaVuSans-Bold.ttf"),
        )
        if os.path.exists(regular) and os.path.exists(bold):
            pdfmetrics.registerFont(TTFont("KavetSans", regular))
            pdfmetrics.registerFont(TTFont("KavetSans-Bold", bold))
            return "KavetSans", "KavetSans-Bold"
    return "Helvetica", "Helvetica-Bold"


def _styles() -> dict[str, ParagraphStyle]:
    regular, bold = _fonts()
    base = getSampleStyleSheet()
    return {
        "title": ParagraphStyle("t", parent=base["Title"], fontName=bold, fontSize=20, leading=24),
        "h2": ParagraphStyle(
            "h2",
            parent=base["Heading2"],
            fontName=bold,
            fontSize=14,
            leading=18,
            spaceBefore=10,
            keepWithNext=1,  # a heading never sits alone at the bottom of a page
        ),
        "body": ParagraphStyle(
            "b", parent=base["BodyText"], fontName=regular, fontSize=10.5, leading=14
        ),
        "small": ParagraphStyle(
            "s",
            parent=base["BodyText"],
            fontName=regular,
            fontSize=9,
            leading=12,
            textColor=colors.HexColor("#444444"),
        ),
    }


def _p(text: Any, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(str(text)), style)


def _bullets(items: list[str], style: ParagraphStyle) -> ListFlowable:
    return ListFlowable(
        [ListItem(_p(t, style), leftIndent=10) for t in items],
        bulletType="bullet",
        start="•",
        leftIndent=12,
    )


def _chart_drawing(chart, font: str) -> Drawing:
    """Bars of the share right per week with play (the page's chart, in PDF shapes)."""
    width, height, left, bottom = 160 * mm, 38 * mm, 12 * mm, 8 * mm
    drawing = Drawing(width, height)
    plot_w, plot_h = width - left - 2 * mm, height - bottom - 3 * mm
    for percent in (0, 50, 100):
        y = bottom + plot_h * percent / 100
        drawing.add(
            Line(
                left, y, width - 2 * mm, y, strokeColor=colors.HexColor("#b9b4a5"), strokeWidth=0.5
            )
        )
        drawing.add(
            String(left - 2, y - 3, f"{percent} %", fontName=font, fontSize=7, textAnchor="end")
        )
    points = chart.points[-16:]
    slot = plot_w / max(len(points), 1)
    for i, point in enumerate(points):
        x = left + i * slot + slot * 0.15
        h = plot_h * (point.percent or 0) / 100
        drawing.add(
            Rect(
                x,
                bottom,
                slot * 0.7,
                h,
                fillColor=colors.HexColor("#7fa7d4"),
                strokeColor=colors.HexColor("#333333"),
                strokeWidth=0.4,
            )
        )
        drawing.add(
            String(
                x + slot * 0.35,
                bottom - 7,
                point.label,
                fontName=font,
                fontSize=6.5,
                textAnchor="middle",
            )
        )
    return drawing


def operations_right_sentence(right: int, n: int) -> str:
    return ngettext(
        "%(right)d of %(n)d operation was right.", "%(right)d of %(n)d operations were right.", n
    ) % {"right": right, "n": n}


def challenges_sentence(right: int, false: int) -> str:
    """Two counts, each with its own plural: two sentences, so each language can agree."""
    spotted = ngettext(
        "“Kavet 'm eus!”: spotted %(n)d mistake of other players.",
        "“Kavet 'm eus!”: spotted %(n)d mistakes of other players.",
        right,
    ) % {"n": right}
    if not false:
        return spotted
    # %(n)s, as in the page's template: the same singular must carry the same plural.
    return (
        spotted
        + " "
        + ngettext(
            "Once there was no mistake after all.",
            "%(n)s times there was no mistake after all.",
            false,
        )
        % {"n": false}
    )


def year_sentence(games: int, minutes: int) -> str:
    return ngettext(
        "Since the start of the school year: %(games)d game, about %(minutes)d min.",
        "Since the start of the school year: %(games)d games, about %(minutes)d min.",
        games,
    ) % {"games": games, "minutes": minutes}


def labelled(label: Any, text: Any) -> str:
    """ "Label: text", with the punctuation of the reader's language (French puts a space before ":")."""
    # Translators: a label and its explanation, e.g. "Confident: right most of the time".
    return _("%(label)s: %(text)s") % {"label": label, "text": text}


def _programme_items(programme: dict[str, Any]) -> list[str]:
    """One line per expectation: the skill, the code and the text in the programme's language,
    the English gloss when the reader reads another (reports/_programme.html, in print)."""
    items = []
    for item in programme["skills"]:
        for e in item.expectations:
            where = f"{e.code} · {e.level}" if e.level else e.code
            text = labelled(where, e.text)
            if programme.get("show_gloss") and e.gloss:
                text += " — " + _("In English:") + " " + e.gloss
            items.append(labelled(item.label, text))
    return items


def report_pdf(context: dict[str, Any]) -> bytes:
    """The PDF of the parent's page, from the same context the page is drawn from."""
    styles = _styles()
    regular, bold = _fonts()
    student, report, data = context["student"], context["report"], context["data"]
    week, year = data.get("week", {}), data.get("year", {})
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=18 * mm,
        rightMargin=18 * mm,
        topMargin=16 * mm,
        bottomMargin=16 * mm,
        title=_("%(name)s's progress") % {"name": student.name},
        author="Kavet 'm eus!",
    )
    title = _p(_("%(name)s's progress") % {"name": student.name}, styles["title"])
    star = picture_drawing("star", 12 * mm)
    if star is not None:
        title = Table(
            [[star, title]],
            colWidths=[16 * mm, None],
            style=TableStyle(
                [("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]
            ),
        )
    story: list = [
        title,
        _p(
            _("Week of %(day)s") % {"day": date_format(report.week_start, _("j F Y"))}
            + f" · {student.classroom.name}",
            styles["body"],
        ),
        _p(_("This week in a few words"), styles["h2"]),
    ]
    words = []
    if week.get("games") or week.get("announcements"):
        if week.get("games"):
            words.append(
                ngettext(
                    "%(n)d game played, about %(m)d min (an estimate).",
                    "%(n)d games played, about %(m)d min (an estimate).",
                    week["games"],
                )
                % {"n": week["games"], "m": week.get("minutes", 0)}
            )
        if week.get("announcements"):
            words.append(operations_right_sentence(week.get("right", 0), week["announcements"]))
        else:  # said in words, as on the page and in the weekly email, never "0 of 0"
            words.append(_("No operation announced this week."))
        words.append(
            ngettext(
                "%(n)d card won in tricks.", "%(n)d cards won in tricks.", week.get("cards_won", 0)
            )
            % {"n": week.get("cards_won", 0)}
        )
        if week.get("right_challenges") or week.get("false_challenges"):
            words.append(
                challenges_sentence(
                    week.get("right_challenges", 0), week.get("false_challenges", 0)
                )
            )
        if week.get("overlooked"):
            words.append(
                ngettext(
                    "Said “nothing to do” once when an operation was possible.",
                    "Said “nothing to do” %(n)s times when an operation was possible.",
                    week["overlooked"],
                )
                % {"n": week["overlooked"]}
            )
    else:
        words.append(_("No games this week."))
    words.append(year_sentence(year.get("games", 0), year.get("minutes", 0)))
    words.append(_("Plays at: %(level)s.") % {"level": context["level"]})
    story.append(_bullets(words, styles["body"]))

    story.append(_p(_("What your child can do"), styles["h2"]))
    if context["lines"]:
        rows = [
            [
                _p(_("Skill"), styles["small"]),
                _p(_("Band"), styles["small"]),
                _p(_("Recent tries"), styles["small"]),
            ]
        ]
        style_cmds = [
            ("FONTNAME", (0, 0), (-1, -1), regular),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#cccccc")),
        ]
        for i, line in enumerate(context["lines"], start=1):
            rows.append(
                [
                    _p(line.label, styles["body"]),
                    _p(line.band_label, styles["body"]),
                    _p(
                        ngettext("%(right)d of %(n)d right", "%(right)d of %(n)d right", line.n)
                        % {"right": line.right, "n": line.n},
                        styles["body"],
                    ),
                ]
            )
            style_cmds.append(("BACKGROUND", (1, i), (1, i), colors.HexColor(line.colour)))
        table = Table(rows, colWidths=[80 * mm, 40 * mm, 40 * mm])
        table.setStyle(TableStyle(style_cmds))
        story.append(table)
    else:
        story.append(_p(_("Not enough play yet to say."), styles["body"]))
    story.append(Spacer(1, 4 * mm))
    story.append(
        _bullets(
            [labelled(band.label, band.explanation) for band in context["bands"]], styles["small"]
        )
    )

    story.append(_p(_("What to practise at home"), styles["h2"]))
    story.append(
        _bullets([labelled(t["skill"], t["tip"]) for t in context["tips"]], styles["body"])
    )
    if week.get("overlooked_examples"):
        story.append(
            _p(
                _("Operations your child did not see this week; try them together with cards:")
                + " "
                + ", ".join(as_printed(text) for text in week["overlooked_examples"]),
                styles["body"],
            )
        )

    if context["charts"]:
        # The heading goes with the first chart: both on the next page if they don't fit.
        blocks = [
            [
                _p(chart.title, styles["body"]),
                _chart_drawing(chart, regular),
                _p(chart.summary, styles["small"]),
                Spacer(1, 3 * mm),
            ]
            for chart in context["charts"]
        ]
        blocks[0].insert(0, _p(_("Week by week"), styles["h2"]))
        story.extend(KeepTogether(block) for block in blocks)
    programme = context.get("programme") or {}
    if programme.get("skills"):
        # Last, as a reference: the expectations of the school's programme the skills train.
        story.append(
            KeepTogether(
                [
                    _p(_("At school: what the programme expects"), styles["h2"]),
                    _p(programme["programme"].name, styles["small"]),
                    _bullets(_programme_items(programme), styles["small"]),
                ]
            )
        )
    doc.build(story)
    return buffer.getvalue()
