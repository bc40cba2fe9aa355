"""Presets: plan templates kept as data under resources/presets/ (the papers' studies and the
student lab exercises), plus the user's own saved presets."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from app.domain.errors import BadOption
from app.domain.plan import Peer, Plan
from app.domain.plan_codec import plan_from_dict
from app.resources import resource_dir

PRESET_FORMAT = 1


@dataclass(frozen=True)
class Preset:
    name: str  # the file name without .json, used on the command line
    title: str
    description: str
    plan: Plan  # with a placeholder peer; use for_peer()
    user: bool = False  # saved by the user, not shipped with LinkLab

    def for_peer(self, peer: Peer) -> Plan:
        return replace(self.plan, peer=peer, name=self.plan.name or self.title)


def preset_dirs(user_dir: Path | None = None) -> list[Path]:
    dirs = [resource_dir() / "presets"]
    if user_dir is not None:
        dirs.append(user_dir)
    return dirs


def load_preset_file(path: Path) -> Preset:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise BadOption(f"The preset {path.name} cannot be read ({err}): check the file.") from None
    if not isinstance(data, dict) or not isinstance(data.get("plan"), dict):
        raise BadOption(f"The preset {path.name} has no plan in it: check the file.")
    if data.get("format", PRESET_FORMAT) != PRESET_FORMAT:
        raise BadOption(f"The preset {path.name} is from another LinkLab version.")
    plan_data = dict(data["plan"])
    plan_data.setdefault("peer", {"host": "localhost"})
    plan = plan_from_dict(plan_data)
    return Preset(
        path.stem, str(data.get("title", path.stem)), str(data.get("description", "")), plan
    )


def natural_key(text: str) -> list[tuple[int, int | str]]:
    """'Lab 10' after 'Lab 2': digit runs compare as numbers."""
    return [
        (0, int(part)) if part.isdigit() else (1, part.lower())
        for part in re.split(r"(\d+)", text)
        if part
    ]


def list_presets(user_dir: Path | None = None) -> list[Preset]:
    """LinkLab's presets, then the user's own, each in the natural order of their titles (a
    user preset of the same name replaces LinkLab's)."""
    found: dict[str, Preset] = {}
    for folder in preset_dirs(user_dir):
        for path in sorted(folder.glob("*.json")):
            preset = load_preset_file(path)
            found[path.stem] = replace(preset, user=folder == user_dir)
    return sorted(found.values(), key=lambda p: (p.user, natural_key(p.title)))


def find_preset(name: str, user_dir: Path | None = None) -> Preset:
    for preset in list_presets(user_dir):
        if preset.name == name:
            return preset
    names = ", ".join(p.name for p in list_presets(user_dir))
    raise BadOption(f"There is no preset {name!r}: choose one of {names}.")


def save_preset(plan: Plan, name: str, title: str, description: str, folder: Path) -> Path:
    """Write plan (without its peer) as a preset the user can pick later."""
    if not name or not all(ch.isalnum() or ch in "-_" for ch in name):
        raise BadOption("A preset name may use letters, digits, '-' and '_' only.")
    data = plan.to_dict()
    data.pop("peer", None)
    data.pop("format", None)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    document = {"format": PRESET_FORMAT, "title": title, "description": description, "plan": data}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path
