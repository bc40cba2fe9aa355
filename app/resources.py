"""Where LinkLab's data files live, the same way from source and from a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resource_dir() -> Path:
    """The resources/ folder: beside the package in a checkout, inside the bundle when frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"
