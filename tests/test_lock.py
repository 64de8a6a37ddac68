"""The environment the tests run in is the lock's (requirements.lock, `make lock`): what passed here is
what `make setup` installs on every machine, Babel's extraction included."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _locked() -> list[tuple[Requirement, list[str]]]:
    """Each locked requirement (with its marker) and its hashes."""
    text = re.sub(r"\\\n\s*", " ", LOCK.read_text(encoding="utf-8"))
    entries = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        spec, *options = line.split(" --hash=")
        entries.append((Requirement(spec.strip()), options))
    return entries


def test_every_locked_package_has_an_exact_version_and_hashes():
    entries = _locked()
    assert len(entries) > 20
    for requirement, hashes in entries:
        assert re.fullmatch(r"==[^,*]+", str(requirement.specifier)), requirement
        assert hashes and all(h.startswith("sha256:") for h in hashes), requirement


def test_every_dependency_in_pyproject_is_locked():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["dev"],
        *project["build-system"]["requires"],
    ]
    locked = {canonicalize_name(r.name): r for r, _ in _locked()}
    for line in declared:
        wanted = Requirement(line)
        name = canonicalize_name(wanted.name)
        assert name in locked, f"{wanted.name} is not in requirements.lock: run make lock"
        version = str(locked[name].specifier).removeprefix("==")
        assert wanted.specifier.contains(version), f"{line}: the lock has {version}: run make lock"


def test_the_installed_packages_are_the_locked_versions():
    for requirement, _ in _locked():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        version = str(requirement.specifier).removeprefix("==")
        assert metadata.version(requirement.name) == version, f"{requirement.name}: run make setup"
