"""Stations of a class as real processes: `python -m tests.stations URL TOKEN FOLDER...` forks
one process per folder (after importing LinkLab's outbox once, so that 60 of them start in a
moment), and each pushes the documents in its folder's pushes.jsonl through its own outbox,
as a student's LinkLab does, until the collector has acknowledged them all. The exit status is
the number of stations that gave up (0: every push acknowledged)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from app.store.outbox import Outbox
from app.study.lab.sender import Sender

#: A station keeps trying this long (a collector killed and restarted comes back in seconds).
GIVE_UP_S = float(os.environ.get("STATION_GIVE_UP_S", "90"))
#: Backoff capped low: the tests wait for seconds, not for a lab's minutes.
CAP_S = 2.0


def station(url: str, token: str, folder: Path) -> int:
    outbox = Outbox(folder / "outbox.sqlite3")
    for line in (folder / "pushes.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        body = json.dumps(item["document"]).encode("utf-8")
        outbox.add(url, item["item_id"], body, item["digest"], item["once"])
    sender = Sender(outbox, url, token, cap_s=CAP_S).start()
    status = sender.flush(GIVE_UP_S)
    sender.stop()
    (folder / "status.json").write_text(
        json.dumps(
            {
                "sent": status.sent,
                "waiting": status.waiting,
                "refused": status.refused,
                "problem": status.problem,
            }
        ),
        encoding="utf-8",
    )
    outbox.close()
    return 0 if status.waiting == 0 and status.refused == 0 else 1


def main(argv: list[str]) -> int:
    url, token, *folders = argv
    children = []
    for folder in folders:
        pid = os.fork()
        if pid == 0:  # the station
            code = 1
            try:
                code = station(url, token, Path(folder))
            finally:
                os._exit(code)
        children.append(pid)
    failed = 0
    deadline = time.monotonic() + GIVE_UP_S + 30
    for pid in children:
        _, status = os.waitpid(pid, 0)
        failed += os.waitstatus_to_exitcode(status) != 0
        if time.monotonic() > deadline:
            break
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
