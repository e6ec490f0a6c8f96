"""The school programmes each skill trains: the French programme (cycles 2 and 3), the German
KMK Bildungsstandards for the Primarbereich and the US Common Core (K-5).

The mapping is data, one TOML file per programme beside this module (fr.toml, de.toml,
us.toml), each naming its sources (title, publisher, year, address). An expectation's text stays
in the programme's own language, with an English gloss where that is another; the report's
labels are in the reader's language. The skill keys are the engine's (games.engine.skills.ALL_SKILLS):
`programme_problems` says what is missing or unknown, and the tests hold it empty.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from games.engine.skills import ALL_SKILLS

HERE = Path(__file__).resolve().parent
PROGRAMME_KEYS = ("fr", "de", "us")  # classrooms.models.School.Programme's values
# Every skill a report shows, in the engine's order, then the game's two.
REPORT_SKILLS = ALL_SKILLS
_EXPECTATION_FIELDS = {"code", "level", "text", "gloss", "source", "beyond", "wording"}
# An expectation's text is the programme's own words ("quote", checked against the published
# text) or, where a verbatim quotation could not be checked, "paraphrase", shown as such.
WORDINGS = ("quote", "paraphrase")


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    publisher: str
    year: int
    url: str


@dataclass(frozen=True)
class Expectation:
    code: str  # the official code, or the section where the programme numbers nothing
    level: str  # the grade, cycle or years, in the programme's words
    text: str  # in the programme's language
    gloss: str  # in English; "" when the programme is in English
    source: Source
    beyond: bool  # the skill is met after the primary years: says where
    paraphrase: bool = False  # the text says the expectation's sense, not its words


@dataclass(frozen=True)
class Programme:
    key: str
    language: str
    name: str
    short: str
    sources: tuple[Source, ...]
    skills: dict[str, tuple[Expectation, ...]]

    def expectations(self, skill: str) -> tuple[Expectation, ...]:
        return self.skills.get(skill, ())


def _read(key: str) -> Programme:
    data = tomllib.loads((HERE / f"{key}.toml").read_text(encoding="utf-8"))
    sources = {
        name: Source(name, s["title"], s["publisher"], int(s["year"]), s["url"])
        for name, s in data.get("sources", {}).items()
    }
    skills = {}
    for skill, entries in data.get("skills", {}).items():
        skills[skill] = tuple(
            Expectation(
                code=e["code"],
                level=e.get("level", ""),
                text=e["text"],
                gloss=e.get("gloss", ""),
                source=sources[e["source"]],
                beyond=bool(e.get("beyond", False)),
                paraphrase=e.get("wording", "quote") == "paraphrase",
            )
            for e in entries
        )
    return Programme(
        key=data["key"],
        language=data["language"],
        name=data["name"],
        short=data.get("short", data["name"]),
        sources=tuple(sources.values()),
        skills=skills,
    )


@cache
def programme(key: str) -> Programme:
    """The programme of that key (a School.programme value); ValueError for another."""
    if key not in PROGRAMME_KEYS:
        raise ValueError(f"no programme {key!r}")
    return _read(key)


def programme_problems(key: str) -> list[str]:
    """What is wrong with a programme's file, in words; [] when every report skill has at
    least one expectation, no entry names an unknown skill or source, and each names its source
    in full. Read afresh (not the cached copy), so a test sees the file as it is."""
    problems: list[str] = []
    data = tomllib.loads((HERE / f"{key}.toml").read_text(encoding="utf-8"))
    if data.get("key") != key:
        problems.append(f"{key}.toml: key is {data.get('key')!r}")
    sources = data.get("sources", {})
    for name, source in sources.items():
        for field in ("title", "publisher", "year", "url"):
            if not source.get(field):
                problems.append(f"{key}.toml: source {name} has no {field}")
    skills = data.get("skills", {})
    for skill in REPORT_SKILLS:
        if not skills.get(skill):
            problems.append(f"{key}.toml: no expectation for skill {skill}")
    glossed = data.get("language") != "en"
    current = data.get("current", {})
    if not current.get("sources") or not current.get("headings"):
        problems.append(f"{key}.toml: no [current] sources and headings (the text in force)")
    for skill, entries in skills.items():
        if skill not in REPORT_SKILLS:
            problems.append(f"{key}.toml: unknown skill {skill}")
        for entry in entries:
            problems += [
                f"{key}.toml: {skill}: {problem}"
                for problem in _entry_problems(entry, sources, glossed=glossed)
                + _current_problems(entry, current)
            ]
    return problems


def _entry_problems(entry: dict, sources: dict, *, glossed: bool) -> list[str]:
    """What is wrong with one expectation of a programme's file (programme_problems)."""
    problems = []
    unknown = set(entry) - _EXPECTATION_FIELDS
    if unknown:
        problems.append(f"unknown fields {sorted(unknown)}")
    for field in ("code", "text", "source"):
        if not entry.get(field):
            problems.append(f"an entry has no {field}")
    if entry.get("source") and entry["source"] not in sources:
        problems.append(f"unknown source {entry['source']}")
    if glossed and not entry.get("gloss"):
        problems.append(f"{entry.get('code')} has no English gloss")
    return problems


def _current_problems(entry: dict, current: dict) -> list[str]:
    """An expectation must come from the text in force and name a heading (or code) it has."""
    problems = []
    if entry.get("source") not in current.get("sources", ()):
        problems.append(f"{entry.get('code')}: source {entry.get('source')} is not a current text")
    if entry.get("code") not in current.get("headings", ()):
        problems.append(f"{entry.get('code')}: not a heading of the current text")
    if entry.get("wording", "quote") not in WORDINGS:
        problems.append(f"{entry.get('code')}: wording is {entry.get('wording')!r}")
    return problems


@dataclass(frozen=True)
class SkillExpectations:
    skill: str
    label: str  # the skill's name in the reader's language
    expectations: tuple[Expectation, ...]


def expectations_for(
    key: str, skills: Iterable[str], labels: dict[str, object]
) -> list[SkillExpectations]:
    """For each skill (in the order given) the expectations it trains in that programme."""
    prog = programme(key)
    return [
        SkillExpectations(skill, str(labels.get(skill, skill)), prog.expectations(skill))
        for skill in skills
        if prog.expectations(skill)
    ]


def school_programme(school, skills: Iterable[str]) -> dict[str, object]:
    """What a report shows of its school's programme (the partial reports/_programme.html):
    the programme, each skill's expectations (skills in the order given, names in the reader's
    language), and whether to add the English gloss (the reader's language is not the
    programme's)."""
    from django.utils import translation

    from ..progress import SKILL_LABELS

    key = getattr(school, "programme", "") or ""
    if key not in PROGRAMME_KEYS:
        return {}
    prog = programme(key)
    reader = (translation.get_language() or "en").split("-")[0]
    return {
        "programme": prog,
        "skills": expectations_for(key, skills, SKILL_LABELS),
        "show_gloss": reader != prog.language,
    }


def programme_codes(key: str, skill: str) -> str:
    """A skill's expectation codes in one line ("; " between them), for the class CSV."""
    if key not in PROGRAMME_KEYS:
        return ""
    return "; ".join(e.code for e in programme(key).expectations(skill))
