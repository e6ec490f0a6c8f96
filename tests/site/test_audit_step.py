"""The known-vulnerabilities step (.ci/audit.py): what fails CI and what a dated exception excuses."""

from __future__ import annotations

import importlib.util
import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ci_audit", ROOT / ".ci" / "audit.py")
audit = importlib.util.module_from_spec(spec)
sys.modules["ci_audit"] = audit  # its dataclasses look their module up
spec.loader.exec_module(audit)

PIP_REPORT = {
    "dependencies": [
        {"name": "django", "version": "5.2.1", "vulns": []},
        {
            "name": "jinja2",
            "version": "3.1.3",
            "vulns": [{"id": "PYSEC-2024-1", "aliases": ["GHSA-aaaa"], "fix_versions": ["3.1.4"]}],
        },
        {"name": "pillow", "version": "1.0", "skip_reason": "Dependency not found on PyPI"},
    ]
}
NPM_REPORT = {
    "vulnerabilities": {
        "axe-core": {
            "range": "<4.15",
            "via": [
                {"source": 1099, "url": "https://github.com/advisories/GHSA-bbbb", "title": "x"}
            ],
        },
        "wrapper": {"range": "*", "via": ["axe-core"]},
    }
}


def test_a_known_vulnerability_fails_unless_an_exception_in_force_names_it(tmp_path):
    found, unaudited = audit.pip_findings(PIP_REPORT)
    npm, _ = audit.npm_findings(NPM_REPORT)
    assert [f.package for f in found + npm] == ["jinja2", "axe-core"]
    assert unaudited == ["pillow: Dependency not found on PyPI"]  # never counted as clean
    exceptions = tmp_path / "exceptions.toml"
    exceptions.write_text(
        '[[exception]]\nid = "GHSA-aaaa"\npackage = "Jinja2"\nreason = "no templates from users"\n'
        "accepted = 2026-12-01\nuntil = 2027-01-31\n"
        '[[exception]]\nid = "GHSA-bbbb"\npackage = "axe-core"\nreason = "test tool"\n'
        "accepted = 2026-06-01\nuntil = 2026-09-30\n"
    )
    live, problems = audit.exceptions_read(exceptions, today=date(2026, 12, 6))
    open_, accepted = audit.judge(found + npm, live)
    assert [f.package for f in accepted] == ["jinja2"]  # named by an alias, still in force
    assert [f.package for f in open_] == ["axe-core"]  # its exception ran out: it fails again
    assert problems and "ran out on 2026-09-30" in problems[0]


def test_an_exception_without_a_reason_or_dates_is_refused(tmp_path):
    exceptions = tmp_path / "exceptions.toml"
    exceptions.write_text('[[exception]]\nid = "GHSA-aaaa"\npackage = "jinja2"\n')
    live, problems = audit.exceptions_read(exceptions, today=date(2026, 12, 6))
    assert live == {} and "missing reason, accepted, until" in problems[0]


def test_npm_audit_that_could_not_ask_is_not_a_clean_audit():
    found, unaudited = audit.npm_findings({"message": "405 Method Not Allowed", "error": {}})
    assert found == [] and "405" in unaudited[0]


def test_the_projects_exceptions_file_reads():
    live, problems = audit.exceptions_read()
    assert problems == []
