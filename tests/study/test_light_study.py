"""A study loads no SciPy or NumPy (each costs the command line a second and tens of MB before
its first point): the runner, the store, the point summaries with their confidence intervals
and what `linklab run` prints, in a fresh interpreter with the fake engine driver."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT_DIR

STUDY = """
import sys, tempfile
from pathlib import Path
from app.cli.output import print_points
from app.domain.plan import Peer, Plan
from app.engine.drivers.fake import FakeDriver
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.runner import StudyRunner

plan = Plan(peer=Peer("lab-peer"), values=(128, 1408), repetitions=4, duration_s=2)
with tempfile.TemporaryDirectory() as folder, Database(Path(folder) / "s.sqlite3") as db:
    store = SessionStore(db)
    outcome = StudyRunner(store, plan, drivers={plan.engine: FakeDriver()}).run()
    print_points(store.get(outcome.session_id), store.runs(outcome.session_id), sys.stdout)
print("loaded:", sorted(m for m in ("scipy", "numpy") if m in sys.modules))
"""


def test_a_study_and_its_summary_load_neither_scipy_nor_numpy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", STUDY], cwd=ROOT_DIR, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "95 % CI" in done.stdout  # the table with the intervals was printed
    assert done.stdout.rstrip().endswith("loaded: []"), done.stdout
