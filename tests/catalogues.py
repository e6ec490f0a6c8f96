"""Reading gettext catalogues (.po, .pot) in the tests: the entries by (context, message)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    refs: list[str] = field(default_factory=list)
    obsolete: bool = False


def read_po(path: Path) -> dict[tuple[str | None, str], Entry]:
    """The entries of a .po or .pot file, (context, message) -> Entry; the header left out.
    An entry starts at its first comment or keyword after the last msgstr, blank line or not."""
    entries: dict[tuple[str | None, str], Entry] = {}
    fields: dict[str, str] = {}
    entry = Entry()
    key = None

    def close():
        nonlocal entry, fields, key
        if fields.get("msgid"):
            entry.plural = fields.get("msgid_plural")
            entry.msgstr = [v for k, v in sorted(fields.items()) if k.startswith("msgstr")]
            entries[(fields.get("msgctxt"), fields["msgid"])] = entry
        entry, fields, key = Entry(), {}, None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line, obsolete = raw, False
        if line.startswith("#~"):
            line, obsolete = line[2:].lstrip(), True
            if line.startswith("|"):
                continue  # #~| a previous message
        starts = line.startswith(("#", "msgctxt ", "msgid ")) or not line.strip()
        if starts and any(k.startswith("msgstr") for k in fields):
            close()
        if not line.strip() or line.startswith("#|"):
            key = None
        elif line.startswith("#:"):
            entry.refs += line[2:].split()
        elif line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            key = None
        elif line.startswith('"') and key:
            fields[key] += ast.literal_eval(line)
        else:
            key, _, value = line.partition(" ")
            fields[key] = ast.literal_eval(value)
            entry.obsolete = entry.obsolete or obsolete
    close()
    return entries
