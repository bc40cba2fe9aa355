"""Where LinkLab keeps its files: the user-data folder, or beside the database LINKLAB_DB
names (so that a test's own database keeps its own records too)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

DB_ENV = "LINKLAB_DB"


def data_folder(database: str | None) -> Path:
    """The folder of LinkLab's database and of its records of running servers; database: the
    value of LINKLAB_DB, read by the entry point (the command line's environment, the
    window's process)."""
    if database:
        return Path(database).absolute().parent
    return platformdirs.user_data_path("LinkLab", appauthor=False)
