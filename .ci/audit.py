"""The "known vulnerabilities" step of .ci/run: pip-audit over requirements/lock.txt and npm
audit over package-lock.json; fails on a known vulnerability not accepted (dated) in
.ci/audit-exceptions.toml, and when a database could not be asked (an unaudited package is
not a clean one).

KAVET_AUDIT_UNREACHABLE_OK=1 turns "could not be asked" into a loud warning, for a machine
that cannot reach pypi.org's JSON API or registry.npmjs.org's advisories; CI never sets it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXCEPTIONS = ROOT / ".ci" / "audit-exceptions.toml"


@dataclass(frozen=True)
class Finding:
    tool: str
    package: str
    version: str
    ids: tuple[str, ...]  # the advisory's id and its aliases
    summary: str


def exceptions_read(path: Path = EXCEPTIONS, today: date | None = None) -> tuple[dict, list[str]]:
    """The exceptions still in force, by (package, id); and the problems with the file."""
    today = today or date.today()
    data = tomllib.loads(path.read_text())
    live: dict[tuple[str, str], dict] = {}
    problems = []
    for entry in data.get("exception", []):
        missing = [k for k in ("id", "package", "reason", "accepted", "until") if k not in entry]
        if missing:
            problems.append(f"exception {entry.get('id', '?')}: missing {', '.join(missing)}")
            continue
        if entry["until"] < today:
            problems.append(
                f"exception {entry['id']} ({entry['package']}) ran out on {entry['until']}: "
                "look at it again (upgrade, or accept it anew with a reason)"
            )
            continue
        live[(entry["package"].lower(), entry["id"])] = entry
    return live, problems


def pip_findings(report: dict) -> tuple[list[Finding], list[str]]:
    """pip-audit's JSON: the vulnerabilities found, and the packages it could not audit."""
    findings, unaudited = [], []
    for dep in report.get("dependencies", []):
        if "skip_reason" in dep:
            unaudited.append(f"{dep['name']}: {dep['skip_reason']}")
        for vuln in dep.get("vulns", []):
            ids = (vuln["id"], *vuln.get("aliases", []))
            fix = ", ".join(vuln.get("fix_versions", [])) or "no fixed version yet"
            findings.append(
                Finding("pip-audit", dep["name"], dep.get("version", "?"), ids, f"fixed in {fix}")
            )
    return findings, unaudited


def npm_findings(report: dict) -> tuple[list[Finding], list[str]]:
    """npm audit's JSON (npm 7+): the advisories found, or why it could not ask."""
    if "error" in report or "message" in report and "vulnerabilities" not in report:
        return [], [f"npm audit: {report.get('message') or report.get('error')}"]
    findings = []
    for name, vuln in report.get("vulnerabilities", {}).items():
        for via in vuln.get("via", []):
            if not isinstance(via, dict):  # "via" another package: reported under that one
                continue
            url = via.get("url", "")
            ids = tuple(i for i in (url.rsplit("/", 1)[-1], str(via.get("source", ""))) if i)
            findings.append(
                Finding("npm", name, vuln.get("range", "?"), ids, via.get("title", "")[:120])
            )
    return findings, []


def judge(findings: list[Finding], live: dict) -> tuple[list[Finding], list[Finding]]:
    """(not accepted, accepted)."""
    open_, accepted = [], []
    for finding in findings:
        key = finding.package.lower()
        if any((key, i) in live for i in finding.ids):
            accepted.append(finding)
        else:
            open_.append(finding)
    return open_, accepted


def _json_of(command: list[str]) -> dict:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"error": (done.stderr or done.stdout).strip()[-500:] or f"exit {done.returncode}"}


def main() -> int:
    live, problems = exceptions_read()
    pip_report = _json_of(
        [
            str(Path(sys.executable).parent / "pip-audit"),
            "--requirement=requirements/lock.txt",
            "--no-deps",
            "--disable-pip",
            "--progress-spinner=off",
            "--format=json",
        ]
    )
    if "error" in pip_report:
        pip, unaudited = [], [f"pip-audit: {pip_report['error']}"]
    else:
        pip, unaudited = pip_findings(pip_report)
    npm, npm_unaudited = npm_findings(_json_of(["npm", "audit", "--package-lock-only", "--json"]))
    open_, accepted = judge(pip + npm, live)
    for finding in accepted:
        print(f"accepted  {finding.tool} {finding.package} {finding.version}: {finding.ids[0]}")
    for finding in open_:
        print(
            f"VULNERABLE {finding.tool} {finding.package} {finding.version}: "
            f"{' / '.join(finding.ids)} ({finding.summary})"
        )
    for problem in problems:
        print(f"EXCEPTIONS {problem}")
    unaudited += npm_unaudited
    if unaudited:
        print(f"NOT AUDITED ({len(unaudited)}): the vulnerability database did not answer for")
        for line in unaudited[:10]:
            print(f"  {line}")
    failed = bool(open_ or problems)
    if unaudited and os.environ.get("KAVET_AUDIT_UNREACHABLE_OK") != "1":
        failed = True
    print("known vulnerabilities: " + ("FAILED" if failed else "none open"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
