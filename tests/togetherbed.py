"""A class measuring together on its bed (tests.testbed.ClassBed), for the tests that drive it
from the command line and from the window: the server pool and the stations started in their
namespaces, the goodput the overhead model gives for a shaped link, and each iperf3 server's
own report of what it received, read from `linklab serve`'s log."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from app.analysis.overhead import LinkInputs, expected
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium
from app.store.class_backends import open_class_store
from tests.testbed import ClassBed

__all__ = [
    "PYTHON",
    "goodput",
    "server_reports",
    "start_pool",
    "start_stations",
    "wait_for_line",
    "wait_for_stations",
]

PYTHON = [sys.executable, "-m", "app"]
#: Bytes a Linux shaper counts per frame beyond the IP packet: the Ethernet header.
TC_FRAME_OVERHEAD = 14
FIRST_PORT = 5301
_RECEIVER = re.compile(
    r"port (\d+): \[\s*\d+\]\s+0\.00-\S+\s+sec\s+\S+ \S+\s+([\d.]+) ([KMG]?)bits/sec\s+receiver"
)
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def goodput(mbit: float) -> float:
    """What TCP can deliver over a link of mbit as tc counts it (the overhead model's)."""
    spec = LinkInputs(
        mbit * 1e6,
        Medium.ETHERNET,
        IpVersion.V4,
        Protocol.TCP,
        131072,
        frame_overhead=TC_FRAME_OVERHEAD,
    )
    return expected(spec).expected_bps


def size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def wait_for_line(
    log: Path,
    words: str,
    since: int = 0,
    proc: subprocess.Popen[str] | None = None,
    timeout: float = 60,
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        text = log.read_text(encoding="utf-8")[since:] if log.exists() else ""
        if words in text:
            return
        if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
            raise AssertionError(f"no {words!r} in {log.name}:\n{text[-3000:]}")
        time.sleep(0.1)


def start_pool(bed: ClassBed, url: str, instructor_file: Path, log: Path) -> subprocess.Popen[str]:
    """`linklab serve --count N` in the server's namespace, registered with the collector."""
    serve = [
        *PYTHON, "serve", "--no-netserver", "--no-echo", "--count", str(bed.count),
        "--port", str(FIRST_PORT), "--bind", bed.SERVER4, "--collector", url,
        "--instructor-token-file", str(instructor_file),
    ]  # fmt: skip
    server = bed.start(bed.v, serve, log)
    wait_for_line(log, "Press Ctrl+C to stop.", 0, server)
    return server


def start_stations(bed: ClassBed, exercise: Path, root: Path) -> list[subprocess.Popen[str]]:
    """`linklab run --exercise FILE --wait-for-start` on every station, each in its
    namespace with a database of its own; the exercise names the collector."""
    found = []
    for number, ns in enumerate(bed.stations, 1):
        station = [
            *PYTHON, "run", "--exercise", str(exercise), "--student", f"Station {number}",
            "--wait-for-start", "--db", str(root / f"station{number}.sqlite3"),
        ]  # fmt: skip
        found.append(bed.start(ns, station, root / f"station{number}.log"))
    return found


def wait_for_stations(store_url: str, count: int, root: Path, timeout: float = 90) -> None:
    """Until count stations have checked in and are asking for their schedule."""
    deadline = time.monotonic() + timeout
    while True:
        store = open_class_store(store_url)
        try:
            seen = [r for r in store.checkins() if time.time() - r["seen_at"] < 3]
        finally:
            store.close()
        if len(seen) >= count:
            return
        logs = [(root / f"station{n}.log") for n in (1, 2)]
        assert time.monotonic() < deadline, [p.read_text() for p in logs if p.exists()]
        time.sleep(0.3)


def server_reports(log: Path, since: int) -> dict[int, list[float]]:
    """Each iperf3 server's own report of what it received, per port, in order."""
    text = log.read_text(encoding="utf-8")[since:]
    found: dict[int, list[float]] = {}
    for port, value, unit in _RECEIVER.findall(text):
        found.setdefault(int(port), []).append(float(value) * _SCALE[unit])
    return found


def station_ports(store_url: str) -> dict[str, int]:
    """Each station's server port, as it checked in."""
    store = open_class_store(store_url)
    try:
        return {r["student"]: int(r["port"]) for r in store.checkins()}
    finally:
        store.close()


def agree_with_servers(
    slots: list[tuple[str, list[tuple[str, float]]]], ports: dict[str, int], log: Path, since: int
) -> None:
    """Each station's figure of each slot (in the order the slots ran) is what its own iperf3
    server says it received: the server's report has three significant digits, the station's
    is the same receiver's count over the client's clock."""
    reports = server_reports(log, since)
    taken: dict[int, int] = {}
    for label, stations in slots:
        for student, mean_bps in stations:
            port = ports[student]
            index = taken.get(port, 0)
            taken[port] = index + 1
            server = reports[port][index]
            print(
                f"{label}: {student} {mean_bps / 1e6:.3f} Mbit/s, its server on port {port}: "
                f"{server / 1e6:.3f} Mbit/s"
            )
            assert abs(mean_bps - server) <= 0.03 * server


def total_within(total_bps: float, link_mbit: float, seconds: float, spread_s: float) -> bool:
    """Whether a round's total is the shared link's: its goodput (the link's rate less the
    frame overhead) within the frame overhead's size. Each station counts its bytes over its
    own `seconds` from its own start: with starts spread_s apart their windows span seconds +
    spread_s, over which the link carries that much more, so the total may exceed the goodput
    by that share of it too."""
    link, best = link_mbit * 1e6, goodput(link_mbit)
    return abs(total_bps - best) <= (link - best) + best * spread_s / seconds
