"""Where LinkLab keeps its files: the user-data folder, or beside the database LINKLAB_DB
names (so that a test's own database keeps its own records too)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DB_ENV = "LINKLAB_DB"


def data_folder() -> Path:
    """The folder of LinkLab's database and of its records of running servers."""
    override = os.environ.get(DB_ENV)
    if override:
        return Path(override).absolute().parent
    return platformdirs.user_data_path("LinkLab", appauthor=False)
