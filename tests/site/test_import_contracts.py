"""The floors, checked by a tool: import-linter's contracts in pyproject.toml (issue 35).

`lint-imports` reads [tool.importlinter] in pyproject.toml: the engine imports nothing of Django
nor of the project outside itself, and the top-level packages import only downward (today's
upward imports are listed there, each with the floor it belongs to). This test runs it in the
test command, shows that it fails on an import the wrong way, and that no top-level package of
the project escapes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What is not production code: the tests and the benchmarks may import any floor.
NOT_PRODUCTION = {"tests", "benchmarks"}


def config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the packages under `root`, with the contracts of pyproject.toml."""
    command = Path(sys.executable).with_name("lint-imports")
    if not command.exists():
        command = Path(shutil.which("lint-imports") or "lint-imports")
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(
        [str(command), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_contracts_are_kept():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 kept, 0 broken" in run.stdout


def test_every_top_level_package_is_under_the_contracts():
    """A new top-level package is checked from its first commit: it must be a root package of
    import-linter and stand in the layers (a package the layers do not name has no floor)."""
    packages = sorted(
        p.name
        for p in ROOT.iterdir()
        if (p / "__init__.py").exists() and p.name not in NOT_PRODUCTION
    )
    assert packages, "no package found at the top of the repository"
    options = config()
    assert sorted(options["root_packages"]) == packages
    (floors,) = [c for c in options["contracts"] if c["type"] == "layers"]
    layered = {name.strip() for layer in floors["layers"] for name in layer.split("|")}
    assert layered == set(packages)


@pytest.mark.parametrize(
    ("path", "line", "said"),
    [
        # the infrastructure reaching up into the games (a service of a floor above)
        ("kavet_site/health.py", "from games import services", "kavet_site is not allowed"),
        # the engine reaching for Django
        ("games/engine/cards.py", "import django", "games.engine is not allowed to import django"),
        # the engine reaching into the rest of games (a lazy import counts the same)
        (
            "games/engine/rules.py",
            "def _late():\n    from games import models\n",
            "games.engine is not allowed to import games.models",
        ),
    ],
)
def test_an_import_the_wrong_way_breaks_a_contract(tmp_path, path, line, said):
    """A check that cannot fail is a defect: a copy of the code with one import the wrong way
    added breaks the contract that guards that floor."""
    for package in config()["root_packages"]:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    target = tmp_path / path
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    run = lint_imports(tmp_path)
    assert run.returncode != 0
    assert said in run.stdout, run.stdout
    assert "BROKEN" in run.stdout
