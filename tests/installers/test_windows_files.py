"""The Windows installer script and workflow stay in step with the app: the association's
name ending, the version, the windowed program, and what the workflow builds and checks."""

from __future__ import annotations

import re

from app import __version__
from app.domain.exercise import EXERCISE_SUFFIX
from app.study.exchange import EXCHANGE_SUFFIX
from tests.conftest import ROOT_DIR

ISS = ROOT_DIR / "installers" / "windows" / "linklab.iss"
WORKFLOW = ROOT_DIR / ".github" / "workflows" / "windows.yml"


def _iss() -> tuple[str, dict[str, str]]:
    """The script with its {#Name} constants expanded, and the #define values."""
    text = ISS.read_text(encoding="utf-8")
    defines = dict(re.findall(r'^\s*#define\s+(\w+)\s+"([^"]*)"', text, re.MULTILINE))
    return re.sub(r"\{#(\w+)\}", lambda m: defines[m.group(1)], text), defines


def _lines(text: str, *needles: str) -> list[str]:
    return [line for line in text.splitlines() if all(n in line for n in needles)]


def test_the_version_fallback_is_the_apps_version() -> None:
    _, defines = _iss()
    assert defines["AppVersion"] == __version__


def test_the_association_is_the_exchange_suffix_and_opens_the_windowed_program() -> None:
    text, _ = _iss()
    assert _lines(text, "Root: HKCU", rf'Subkey: "Software\Classes\{EXCHANGE_SUFFIX}"')
    assert _lines(text, "Root: HKCU", rf'Subkey: "Software\Classes\{EXERCISE_SUFFIX}"')
    commands = _lines(text, "Root: HKCU", r"\shell\open\command")
    assert len(commands) == 2  # session files and exercises
    for command in commands:
        assert r'ValueData: """{app}\linklabw.exe"" ""%1"""' in command
    assert "ChangesAssociations=yes" in text


def test_the_start_menu_entry_starts_the_windowed_program() -> None:
    text, _ = _iss()
    entry = _lines(text, r'Name: "{autoprograms}\LinkLab"')
    assert len(entry) == 1
    assert r'Filename: "{app}\linklabw.exe"' in entry[0]
    assert "PrivilegesRequired=lowest" in text


def test_the_icon_and_licence_it_names_exist() -> None:
    text, _ = _iss()
    for directive in ("SetupIconFile", "LicenseFile"):
        (path,) = re.findall(rf"^{directive}=(.+)$", text, re.MULTILINE)
        assert (ISS.parent / path.replace("\\", "/")).is_file(), directive


def test_the_workflow_builds_installs_and_checks_the_bundled_engine() -> None:
    text = WORKFLOW.read_text(encoding="utf-8").replace("\\", "/")
    assert "python installers/build.py" in text
    assert "installers/windows/linklab.iss" in text
    assert "doctor --json" in text
    assert '"bundled"' in text
