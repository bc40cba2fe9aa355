"""Real iperf 2 across network namespaces: a TCP+UDP × IPv4+IPv6 sweep within 3 % of the
expected-goodput model on a tc tbf link (as iperf3's test_overhead_netns), LinkLab against a
plain `iperf -s` and `iperf -s -u` started by hand (as a lab sheet says), two studies at once
against that one server, and --bounceback round trips within 2 ms of netperf's TCP_RR."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.analysis.overhead import LinkInputs, expected
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium
from app.domain.results import Sample
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineError
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.carried import carried
from tests.testbed import ROOT, TestBed, unavailable_reason

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 40.0
TC_FRAME_OVERHEAD = 14
SIZES = (256, 1408)
SECONDS = 3
PORT = 5001
#: How far apart iperf 2's --bounceback and netperf's TCP_RR round trips may be.
RTT_AGREEMENT_MS = 2.0


def _listening(bed: TestBed, udp: bool) -> bool:
    done = subprocess.run(
        ["ip", "netns", "exec", bed.b, "ss", "-lnu" if udp else "-lnt"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    return f":{PORT} " in done.stdout


class HandStarted:
    """`iperf -s` (and -u for UDP) on the second computer, started by hand as a lab sheet says.
    It is the iperf LinkLab finds (2.2.1 after the set-up). iperf 2.1.8's server now and then
    dies of a segmentation fault in the middle of a suite (the kernel logs "iperf: segfault …
    in libc"): a run that meets it fails as it should, and a technician would start the server
    again. `crashed` says whether that happened, so a test repeats its command once on a fresh
    server instead of failing on the engine's bug (any other failure still fails the test)."""

    def __init__(self, bed: TestBed) -> None:
        self.bed = bed
        self.procs: dict[bool, subprocess.Popen[str]] = {}
        for udp in (False, True):
            self.start(udp)

    def start(self, udp: bool) -> None:
        iperf = find_tool("iperf").path  # as LinkLab finds it: the 2.2.1 the set-up built
        argv = ["ip", "netns", "exec", self.bed.b, iperf, "-s", "-V", "-p", str(PORT)]
        proc = subprocess.Popen(
            [*argv, "-u"] if udp else argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.bed._procs.append(proc)
        self.procs[udp] = proc
        deadline = time.monotonic() + 10
        while not _listening(self.bed, udp) and time.monotonic() < deadline:
            time.sleep(0.1)

    def crashed(self) -> bool:
        """True when a server died of a signal (a crash, not LinkLab ending it); it is
        started again."""
        dead = [udp for udp, proc in self.procs.items() if (proc.poll() or 0) < 0]
        for udp in dead:
            print(f"iperf 2 {'UDP' if udp else 'TCP'} server crashed: starting it again")
            self.start(udp)
        return bool(dead)


class Iperf2Bed(TestBed):
    servers: HandStarted


@pytest.fixture(scope="module")
def bed() -> Iterator[Iperf2Bed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    try:
        find_tool("iperf")
    except EngineError:
        pytest.skip("iperf 2 is not installed (scripts/ensure-engines.sh builds or installs it)")
    with Iperf2Bed() as testbed:
        testbed.set_rate(RATE_MBIT)
        testbed.servers = HandStarted(testbed)
        yield testbed


def _linklab(bed: Iperf2Bed, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        bed.linklab(bed.a, *args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _study(bed: Iperf2Bed, db: Path, *args: str) -> dict[str, Any]:
    argv = ["run", "--engine", "iperf2", "--db", str(db), "--json", *args]
    proc = _linklab(bed, *argv)
    out, err = proc.communicate(timeout=240)
    if proc.returncode != 0 and bed.servers.crashed():
        db.unlink(missing_ok=True)
        proc = _linklab(bed, *argv)
        out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def test_a_sweep_lands_on_the_expected_goodput(bed: Iperf2Bed, tmp_path: Path) -> None:
    """Download (the client receives, so its count is the goodput): the shaper on B's own
    interface holds the sender back, UDP sent at twice the link rate arrives at its rate.

    On a busy computer iperf 2's sender or receiver waits for a core now and then: the link
    stands idle meanwhile, the receiver's socket overflows (1-2 % of 256-B datagrams dropped
    beside a busy suite, 4 % of a run's time idle, 14 % short in all), or datagrams reach the
    receiver after it has closed its socket (once, beside a suite of six processes, a
    receiver 40 % short of what the link carried, of which full sockets explained only 3 %).
    None is the model's concern: each UDP
    point is compared with what the link could deliver in the time it was kept busy, times
    the part of it the receiver read, both counted by the kernel (tests/carried.py); on a
    quiet computer that is the prediction itself. A TCP point's best
    second is (below). So that the counts are each point's, each point is a study of its own,
    as a sweep would run it."""
    for protocol, ip, length in itertools.product(Protocol, (IpVersion.V4, IpVersion.V6), SIZES):
        db = tmp_path / f"{protocol.value}{int(ip)}-{length}.sqlite3"
        with carried(bed.b, bed.dev_b, bed.a) as link:
            data = _study(
                bed,
                db,
                "--peer", TestBed.B4, "--peer6", TestBed.B6, "--iperf2-port", str(PORT),
                "--protocol", protocol.value, "--ip", str(int(ip)), "--direction", "down",
                "--sizes", str(length), "--runs", "1", "--duration", str(SECONDS),
                "--bitrate", f"{2 * RATE_MBIT:g}M",
                "--link-rate", f"{RATE_MBIT:g}M", "--frame-overhead", str(TC_FRAME_OVERHEAD),
                "--medium", "Ethernet",
            )  # fmt: skip
        (point,) = data["points"]
        assert (point["protocol"], point["ip_version"]) == (protocol.value, int(ip))
        spec = LinkInputs(
            RATE_MBIT * 1e6,
            Medium.ETHERNET,
            ip,
            protocol,
            point["value"],
            frame_overhead=TC_FRAME_OVERHEAD,
        )
        predicted = expected(spec).expected_bps
        measured = point["throughput_bps"]["mean"]
        share = min(1.0, link.share(RATE_MBIT, SECONDS))
        best = max(
            s.goodput_bps(protocol) or 0.0 for s in _samples(db) if s.end_s - s.start_s >= 0.5
        )
        print(
            f"iperf2 {protocol.value} IPv{int(ip)} {point['value']} B: measured "
            f"{measured / 1e6:.3f} Mbit/s, predicted {predicted / 1e6:.3f} Mbit/s "
            f"({100 * (measured / predicted - 1):+.2f} %), best second {best / 1e6:.3f}; the "
            f"link busy and read for {100 * share:.1f} % of the run"
            + (
                f" ({link.received} datagrams of {link.packets} read, {link.receiver_drops} "
                f"dropped by a full socket, {link.no_port} after the socket closed)"
                if protocol is Protocol.UDP
                else ""
            )
        )
        assert point["expected_bps"] == pytest.approx(predicted)
        assert link.shaper_drops == 0  # the full queue held the sender back
        assert measured <= predicted * 1.03  # no run carries more than the model allows
        if protocol is Protocol.UDP:
            assert share > 0.5  # most of the run was measured, not a corner of it
            assert measured == pytest.approx(predicted * share, rel=0.03)
        else:
            # TCP's link also carries, uncounted by the receiver, what is queued as the run
            # starts and ends (5-8 % of a quiet run's bytes), so its busy time cannot be
            # told from the shaper's count. A wait for a core costs the run's mean, not every
            # second: the best second, the link kept busy, carries what the model says.
            assert best == pytest.approx(predicted, rel=0.03)


def _samples(db: Path) -> list[Sample]:
    """The intervals of a one-run study's run."""
    with Database(db, readonly=True) as opened:
        store = SessionStore(opened)
        (session,) = store.list_sessions()
        (run,) = store.runs(session.id)
        return list(store.samples(run.id))


def test_two_studies_at_once_against_one_server(bed: Iperf2Bed, tmp_path: Path) -> None:
    """A class against one `iperf -s`: iperf 2 serves both at once (iperf3 would answer
    busy). TCP, as `iperf -s` serves it."""
    args = ["--peer", TestBed.B4, "--iperf2-port", str(PORT), "--sizes", "1408", "--runs", "2"]
    args += ["--duration", "3", "--protocol", "tcp"]

    def both() -> list[tuple[subprocess.Popen[str], tuple[str, str]]]:
        procs = [
            _linklab(bed, "run", "--engine", "iperf2", "--db", str(tmp_path / f"{n}.db"), *args)
            for n in ("a", "b")
        ]
        # Both are read to their end, whatever one of them says.
        return [(proc, proc.communicate(timeout=240)) for proc in procs]

    ended = both()
    if any(proc.returncode != 0 for proc, _ in ended) and bed.servers.crashed():
        ended = both()
    for proc, (_, err) in ended:
        assert proc.returncode == 0, err
        assert "Session" in err and "completed" in err


def test_bounceback_rtt_agrees_with_netperf_tcp_rr(bed: Iperf2Bed, tmp_path: Path) -> None:
    if shutil.which("netserver") is None:
        pytest.skip("netperf is not installed: nothing to compare with")
    server = subprocess.Popen(
        ["ip", "netns", "exec", bed.b, "netserver", "-D", "-p", "12865"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    bed._procs.append(server)
    time.sleep(0.5)
    # 68 bytes: the smallest request iperf 2.2's server answers (2.1's took 64).
    common = ["--peer", TestBed.B4, "--metric", "rtt", "--sizes", "68", "--runs", "3"]
    common += ["--duration", "2", "--protocol", "tcp", "--ip", "4"]
    iperf2 = _study(bed, tmp_path / "i2.db", *common, "--iperf2-port", str(PORT))
    # The netperf study, as the same flags say it.
    proc = subprocess.run(
        [
            *bed.linklab(bed.a, "run", "--engine", "netperf", "--json"),
            *common,
            *("--db", str(tmp_path / "np.db"), "--netserver-port", "12865"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    netperf = json.loads(proc.stdout)
    rtt2 = iperf2["points"][0]["rtt_ms"]["mean"]
    rtt_np = netperf["points"][0]["rtt_ms"]["mean"]
    fastest2, fastest_np = _fastest_trip(tmp_path / "i2.db"), _fastest_trip(tmp_path / "np.db")
    print(
        f"round trip: iperf 2 --bounceback {rtt2:.3f} ms (fastest {fastest2:.3f}), "
        f"netperf TCP_RR {rtt_np:.3f} ms (fastest {fastest_np:.3f})"
    )
    assert 0 < fastest2 <= rtt2 and 0 < fastest_np <= rtt_np
    # Both are round trips of one veth pair: 0.08 and 0.03 ms on a quiet computer. On a busy
    # one iperf 2's threads wait for a core on most trips (0.8-0.9 ms seen beside the suite,
    # 3.5 ms beside more, against netperf's 0.03-0.2 ms), and the mean says how busy the
    # computer was. Each engine's fastest trip is one no thread waited on: the link's own
    # round trip, on which they agree; a slip of units would be a thousand times off.
    assert abs(fastest2 - fastest_np) <= RTT_AGREEMENT_MS


def _fastest_trip(db: Path) -> float:
    """The fastest round trip of a study's runs (each run's minimum, as its engine said it)."""
    with Database(db, readonly=True) as opened:
        store = SessionStore(opened)
        (session,) = store.list_sessions()
        fastest = [r.metrics.rtt_min_ms for r in store.runs(session.id) if r.ok]
    assert fastest and all(rtt is not None for rtt in fastest), fastest
    return min(rtt for rtt in fastest if rtt is not None)


def test_live_intervals_arrive_from_iperf2(bed: Iperf2Bed) -> None:
    """`linklab measure` prints each interval as iperf 2 reports it, not only at the end."""
    argv = bed.linklab(bed.a, "measure", "--engine", "iperf2", "--peer", TestBed.B4)
    argv += ["--iperf2-port", str(PORT), "--duration", "4"]

    def measure() -> tuple[int, bool | None]:
        running_at_first_interval = None
        with subprocess.Popen(
            argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:
                if " s ↑ " in line and running_at_first_interval is None:
                    running_at_first_interval = proc.poll() is None
            proc.wait(timeout=30)
        return proc.returncode, running_at_first_interval

    returncode, running_at_first_interval = measure()
    if returncode != 0 and bed.servers.crashed():
        returncode, running_at_first_interval = measure()
    assert returncode == 0
    # Read while iperf 2 was still measuring: its intervals arrive live, not at the end.
    assert running_at_first_interval is True


def test_a_udp_sweep_against_linklabs_own_iperf2_server_loses_no_run(
    bed: Iperf2Bed, tmp_path: Path
) -> None:
    """`linklab serve --iperf2` on the second computer, then many short UDP tests in a row, both
    ways, IPv4 and IPv6: every run completes (Debian 12's iperf 2.1.8 UDP server died of a
    segmentation fault after the first one; 2.2.1 keeps serving). No retry on a crash here."""
    port = PORT + 1
    server = bed.start_server(
        5202, "--iperf2", "--iperf2-port", str(port), "--no-echo",
        ready="iperf 2 UDP server listening on port",
    )  # fmt: skip
    data = _study(
        bed,
        tmp_path / "udp.sqlite3",
        "--peer", TestBed.B4, "--peer6", TestBed.B6, "--iperf2-port", str(port),
        "--protocol", "udp", "--ip", "4,6", "--direction", "up",
        "--sizes", "256,512,1024,1408", "--runs", "2", "--duration", "1",
        "--bitrate", f"{RATE_MBIT / 2:g}M",
    )  # fmt: skip
    assert server.poll() is None, "LinkLab's iperf 2 server must still be running"
    assert data["status"] == "completed", data["status_reason"]
    assert data["runs_failed"] == 0 and data["runs_done"] == data["total_runs"] == 16
    points = data["points"]
    assert len(points) == 8
    for point in points:
        # Sent at half the link rate: the link drops nothing (a run that failed has no
        # figures). On a busy computer the receiver's socket may overflow while LinkLab's
        # server waits for a core (1-2 % of small datagrams seen): those the run counts lost.
        sent, lost = RATE_MBIT / 2 * 1e6, point["loss_pct"]["mean"]
        assert point["throughput_bps"]["mean"] == pytest.approx(sent * (1 - lost / 100), rel=0.05)
    down = _study(
        bed,
        tmp_path / "udp-down.sqlite3",
        "--peer", TestBed.B4, "--iperf2-port", str(port), "--protocol", "udp", "--ip", "4",
        "--direction", "down", "--sizes", "512,1408", "--runs", "3", "--duration", "1",
        "--bitrate", f"{RATE_MBIT / 2:g}M",
    )  # fmt: skip
    assert down["runs_failed"] == 0 and down["runs_done"] == down["total_runs"] == 6
    assert server.poll() is None
