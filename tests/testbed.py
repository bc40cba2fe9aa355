"""Test beds in network namespaces: two hosts on a veth pair (IPv4 + IPv6, tc tbf rate limits,
optional nftables random loss), or client, router and server with a shaped queue in the router.
Needs root; everything they create is removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parent.parent


def unavailable_reason() -> str | None:
    """Why the test bed cannot be built here, or None when it can."""
    if sys.platform != "linux":
        return "network namespaces exist only on Linux"
    if os.geteuid() != 0:
        return "building network namespaces needs root (CI runs as root and runs these tests)"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} (iproute2) is not installed"
    return None


def worker_index() -> int:
    """This pytest-xdist worker's number (gw0 is 0), 0 outside xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name[2:]) if name[2:].isdigit() else 0


def _tag() -> str:
    """Part of every name a test bed gives: this process's id, unique among the processes
    running side by side (pytest-xdist workers, helpers), short enough for an interface name."""
    return f"{os.getpid() % 100000}"


def _run(argv: Sequence[str]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


def _end(procs: list[subprocess.Popen[str]]) -> None:
    """Terminate (then kill) the processes still running, and close their pipes."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    procs.clear()


def shape(ns: str | None, dev: str, mbit: float) -> None:
    """Limit what leaves dev (in namespace ns; None: the test's own) with tc tbf to mbit
    Mbit/s, counted on the wire (L2), in place of whatever shaped it before."""
    where = ["-n", ns] if ns else []
    subprocess.run(
        ["tc", *where, "qdisc", "del", "dev", dev, "root"], capture_output=True, timeout=10
    )
    tbf = ["tbf", "rate", f"{mbit}mbit", "burst", "32kb", "latency", "100ms"]
    _run(["tc", *where, "qdisc", "add", "dev", dev, "root", *tbf])


class TestBed:
    """Host A (client side) and host B (server side) joined by one veth link."""

    __test__ = False  # not a pytest test class

    A4, B4 = "198.18.0.1", "198.18.0.2"  # RFC 2544 benchmarking range, inside our namespaces
    A6, B6 = "fd00:4c4c::1", "fd00:4c4c::2"

    def __init__(self) -> None:
        tag = _tag()
        self.a, self.b = f"llab-a-{tag}", f"llab-b-{tag}"
        self.dev_a, self.dev_b = f"lla{tag}", f"llb{tag}"
        self._procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Self:
        self.close()
        _run(["ip", "netns", "add", self.a])
        _run(["ip", "netns", "add", self.b])
        _run(["ip", "link", "add", self.dev_a, "type", "veth", "peer", "name", self.dev_b])
        _run(["ip", "link", "set", self.dev_a, "netns", self.a])
        _run(["ip", "link", "set", self.dev_b, "netns", self.b])
        for ns, dev, v4, v6 in (
            (self.a, self.dev_a, self.A4, self.A6),
            (self.b, self.dev_b, self.B4, self.B6),
        ):
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
            # A broadcast address, as DHCP gives a real network (discovery asks there).
            _run(["ip", "-n", ns, "addr", "add", f"{v4}/24", "brd", "+", "dev", dev])
            _run(["ip", "-n", ns, "-6", "addr", "add", f"{v6}/64", "dev", dev, "nodad"])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        _end(self._procs)
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)

    def set_rate(self, mbit: float) -> None:
        """Limit both directions with tc tbf to mbit Mbit/s (counted on the wire, L2)."""
        for ns, dev in ((self.a, self.dev_a), (self.b, self.dev_b)):
            shape(ns, dev, mbit)

    def set_loss(self, percent: int) -> None:
        """Drop percent % of the UDP data packets arriving at B, at random (nftables numgen)."""
        if shutil.which("nft") is None:
            raise RuntimeError("nft (nftables) is not installed")
        exec_b = ["ip", "netns", "exec", self.b, "nft"]
        subprocess.run([*exec_b, "delete", "table", "inet", "llab"], capture_output=True)
        _run([*exec_b, "add", "table", "inet", "llab"])
        _run(
            [
                *exec_b,
                "add",
                "chain",
                "inet",
                "llab",
                "input",
                "{ type filter hook input priority 0 ; }",
            ]
        )
        _run(
            [
                *exec_b,
                "add",
                "rule",
                "inet",
                "llab",
                "input",
                "meta",
                "l4proto",
                "udp",
                # Data only: iperf3's 4-byte UDP hello has no retry, and losing it fails the
                # whole test instead of measuring loss.
                "meta",
                "length",
                "gt",
                "100",
                "numgen",
                "random",
                "mod",
                "100",
                "<",
                str(percent),
                "drop",
            ]
        )

    def set_reorder(self, percent: int, slow_mbit: float = 8) -> None:
        """Reorder UDP data both ways: percent % of it, at random, leaves through a slower htb
        class (nftables sets its priority), so the datagrams sent after it overtake it. (This
        kernel has no netem.) 0 takes the classes and the rule away."""
        table = ("inet", "llabooo")
        for ns, dev in ((self.a, self.dev_a), (self.b, self.dev_b)):
            tc = ["tc", "-n", ns]
            nft = ["ip", "netns", "exec", ns, "nft"]
            for undo in (
                [*tc, "qdisc", "del", "dev", dev, "root"],
                [*nft, "delete", "table", *table],
            ):
                subprocess.run(undo, capture_output=True, timeout=20)
            if not percent:
                continue
            _run([*tc, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])
            for classid, rate in (("1:10", "10gbit"), ("1:20", f"{slow_mbit}mbit")):
                add = [*tc, "class", "add", "dev", dev, "parent", "1:", "classid", classid]
                _run([*add, "htb", "rate", rate])
            _run([*nft, "add", "table", *table])
            hook = "{ type filter hook output priority 0 ; }"
            _run([*nft, "add", "chain", *table, "out", hook])
            # Data only, as set_loss: the engines' small control datagrams keep their order.
            data = ["meta", "l4proto", "udp", "meta", "length", "gt", "100"]
            share = ["numgen", "random", "mod", "100", "<", str(percent)]
            slow = ["meta", "priority", "set", "1:20"]
            _run([*nft, "add", "rule", *table, "out", *data, *share, *slow])

    def linklab(self, ns: str, *args: str) -> list[str]:
        """argv that runs LinkLab's CLI inside a namespace."""
        return ["ip", "netns", "exec", ns, sys.executable, "-m", "app", *args]

    def start_server(
        self, port: int = 5201, *args: str, ready: str = "listening on port"
    ) -> subprocess.Popen[str]:
        """`linklab serve` in host B (with args), returned once a line of its says ready."""
        proc = subprocess.Popen(
            self.linklab(self.b, "serve", "--no-netserver", "--port", str(port), *args),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._procs.append(proc)
        assert proc.stdout is not None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if ready in line:
                return proc
        proc.terminate()
        raise RuntimeError(
            f"linklab serve did not start: {proc.stderr.read() if proc.stderr else ''}"
        )

    def measure(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """`linklab measure --json` from host A. The server in B may still be finishing the
        previous test (iperf3 serves one at a time): a busy answer is retried once."""
        for attempt in (1, 2):
            done = subprocess.run(
                self.linklab(self.a, "measure", "--json", *args),
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            if done.returncode == 0 or "busy" not in done.stderr or attempt == 2:
                return done
            time.sleep(2)
        raise AssertionError("unreachable")


class RoutedTestBed:
    """Client C, router R and server S on two veth links (IPv4), C and S routed through R.

    The shaped queue (tc tbf) sits on R's interface toward S: on a sender's own interface,
    TCP's small-queue limit would keep it nearly empty, whatever its size. Every namespace
    uses Reno, so that one TCP upload fills a deep queue within seconds."""

    __test__ = False  # not a pytest test class

    C4, RC4 = "198.18.1.2", "198.18.1.1"  # RFC 2544 benchmarking range, inside our namespaces
    RS4, S4 = "198.18.2.1", "198.18.2.2"

    def __init__(self) -> None:
        tag = _tag()
        self.c, self.r, self.s = f"llab-c-{tag}", f"llab-r-{tag}", f"llab-s-{tag}"
        self.dev_c, self.dev_rc = f"llc{tag}", f"llrc{tag}"
        self.dev_rs, self.dev_s = f"llrs{tag}", f"lls{tag}"
        self._procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> RoutedTestBed:
        self.close()
        for ns in (self.c, self.r, self.s):
            _run(["ip", "netns", "add", ns])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
            self.sysctl(ns, "net.ipv4.tcp_congestion_control=reno")
        self.sysctl(self.r, "net.ipv4.ip_forward=1")
        for (ns1, dev1, ip1), (ns2, dev2, ip2) in (
            ((self.c, self.dev_c, self.C4), (self.r, self.dev_rc, self.RC4)),
            ((self.r, self.dev_rs, self.RS4), (self.s, self.dev_s, self.S4)),
        ):
            _run(["ip", "link", "add", dev1, "type", "veth", "peer", "name", dev2])
            for ns, dev, ip in ((ns1, dev1, ip1), (ns2, dev2, ip2)):
                _run(["ip", "link", "set", dev, "netns", ns])
                _run(["ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev])
                _run(["ip", "-n", ns, "link", "set", dev, "up"])
        _run(["ip", "-n", self.c, "route", "add", "default", "via", self.RC4])
        _run(["ip", "-n", self.s, "route", "add", "default", "via", self.RS4])
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        _end(self._procs)
        for ns in (self.c, self.r, self.s):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)

    def sysctl(self, ns: str, setting: str) -> None:
        _run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", setting])

    def set_queue(self, mbit: float, limit_bytes: int) -> None:
        """Rate-limit R toward S with tc tbf, its queue holding at most limit_bytes."""
        dev = ["dev", self.dev_rs]
        subprocess.run(["tc", "-n", self.r, "qdisc", "del", *dev, "root"], capture_output=True)
        tbf = ["tbf", "rate", f"{mbit}mbit", "burst", "16kb", "limit", str(limit_bytes)]
        _run(["tc", "-n", self.r, "qdisc", "add", *dev, "root", *tbf])

    def start(self, ns: str, argv: Sequence[str]) -> subprocess.Popen[str]:
        """A process in a namespace, ended with the test bed."""
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *argv],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._procs.append(proc)
        return proc

    def start_server(self, port: int, echo_port: int) -> subprocess.Popen[str]:
        """`linklab serve` in S (iperf3 and the latency responder), once both listen."""
        ports = ["--port", str(port), "--echo-port", str(echo_port)]
        proc = self.start(self.s, [sys.executable, "-m", "app", "serve", "--no-netserver", *ports])
        assert proc.stdout is not None
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if "responder listening" in line:
                return proc
        raise RuntimeError(
            f"linklab serve did not start: {proc.stderr.read() if proc.stderr else ''}"
        )

    def linklab(
        self, ns: str, *args: str, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """A `linklab` command in a namespace, run to its end."""
        return subprocess.run(
            ["ip", "netns", "exec", ns, sys.executable, "-m", "app", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def shape_both_ways(bed: RoutedTestBed, mbit: float, limit_bytes: int) -> None:
    """Rate-limit R toward S and toward C alike, each queue holding at most limit_bytes: a
    download fills the queue toward C as an upload fills the one toward S."""
    bed.set_queue(mbit, limit_bytes)
    dev = ["dev", bed.dev_rc]
    subprocess.run(["tc", "-n", bed.r, "qdisc", "del", *dev, "root"], capture_output=True)
    tbf = ["tbf", "rate", f"{mbit}mbit", "burst", "16kb", "limit", str(limit_bytes)]
    _run(["tc", "-n", bed.r, "qdisc", "add", *dev, "root", *tbf])


#: The rate the second computer's link is held to unless a test sets its own (set_rate).
NEIGHBOUR_MBIT = 300


class NeighbourBed:
    """A second computer beside this one: namespace N on a veth link to the test's own network
    namespace (IPv4 with a broadcast address, IPv6), so that a window in this process reaches
    it. Only the link's own interface is ever asked anything."""

    __test__ = False  # not a pytest test class

    # RFC 2544 benchmarking range, on this link only. This end is in the test's own namespace,
    # which the pytest-xdist workers share: each worker has a subnet of its own.
    NET = 7 + 16 * worker_index()
    HERE4, THERE4 = f"198.18.{NET}.1", f"198.18.{NET}.2"
    HERE6, THERE6 = f"fd00:4c4c:{NET:x}::1", f"fd00:4c4c:{NET:x}::2"

    def __init__(self, point_to_point: bool = False) -> None:
        tag = f"{os.getpid() % 100000}"
        # Point to point: IPv4 without a broadcast address (a /32 with a peer, as on a VPN or
        # a VM's host-only link), so a search reaches N only by IPv6 link-local multicast.
        self.point_to_point = point_to_point
        self.ns = f"llab-n-{tag}"
        self.here, self.there = f"lln{tag}", f"llm{tag}"
        self._procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> NeighbourBed:
        self.close()
        point_to_point = self.point_to_point
        _run(["ip", "netns", "add", self.ns])
        _run(["ip", "link", "add", self.here, "type", "veth", "peer", "name", self.there])
        _run(["ip", "link", "set", self.there, "netns", self.ns])
        _run(["ip", "-n", self.ns, "link", "set", "lo", "up"])
        for prefix, dev, v4, v6 in (
            ([], self.here, self.HERE4, self.HERE6),
            (["-n", self.ns], self.there, self.THERE4, self.THERE6),
        ):
            other = self.THERE4 if v4 == self.HERE4 else self.HERE4
            four = ["peer", f"{other}/32"] if point_to_point else ["brd", "+"]
            _run(
                [
                    "ip",
                    *prefix,
                    "addr",
                    "add",
                    v4 if point_to_point else f"{v4}/24",
                    *four,
                    "dev",
                    dev,
                ]
            )
            _run(["ip", *prefix, "-6", "addr", "add", f"{v6}/64", "dev", dev, "nodad"])
            _run(["ip", *prefix, "link", "set", dev, "up"])
        # Unshaped, a veth carries what the CPUs can copy, several Gbit/s at every core's
        # cost; the suite's processes share two. A lab's link rate is plenty.
        self.set_rate(NEIGHBOUR_MBIT)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        _end(self._procs)
        # Deleting the namespace deletes its end of the veth pair, and with it this end.
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "del", self.here], capture_output=True, timeout=20)

    def set_rate(self, mbit: float) -> None:
        """Limit both directions of the link with tc tbf to mbit Mbit/s (its adapters still
        report a veth's nominal 10000 Mbit/s)."""
        shape(None, self.here, mbit)
        shape(self.ns, self.there, mbit)

    def serve(self, *args: str) -> subprocess.Popen[str]:
        """`linklab serve` in N, once its latency responder (and so discovery) listens."""
        proc = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, sys.executable, "-m", "app", "serve", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._procs.append(proc)
        assert proc.stdout is not None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if "responder listening" in line:
                return proc
        raise RuntimeError(
            f"linklab serve did not start: {proc.stderr.read() if proc.stderr else ''}"
        )


@dataclass(frozen=True)
class Bed:
    """What a test module's network test bed holds (the module's BED; the `bed` fixture in
    tests/conftest.py builds it once per module): two hosts (TestBed) or client, router and
    server (RoutedTestBed, routed=True); a rate (tc tbf: both ways between two hosts, R toward
    S with queue_bytes when routed, toward C too with both_ways); `linklab serve` listening."""

    routed: bool = False
    rate_mbit: float | None = None
    queue_bytes: int | None = None
    both_ways: bool = False
    server_port: int | None = None
    echo_port: int = 5200
    needs: tuple[str, ...] = ()  # other programs the module runs (nft, iperf)
    #: A class's stations behind one shared link (ClassBed): how many; rate_mbit its rate.
    stations: int = 0

    def unavailable(self) -> str | None:
        """Why this test bed cannot be built here, or None."""
        reason = unavailable_reason()
        if reason:
            return reason
        for tool in self.needs:
            if shutil.which(tool) is None:
                return f"{tool} is not installed (scripts/ensure-engines.sh installs it)"
        return None

    @contextmanager
    def build(self) -> Iterator[TestBed | RoutedTestBed | ClassBed]:
        if self.stations:
            with ClassBed(self.stations) as lab:
                if self.rate_mbit is not None:
                    lab.set_bottleneck(self.rate_mbit)
                yield lab
            return
        if not self.routed:
            with TestBed() as pair:
                if self.rate_mbit is not None:
                    pair.set_rate(self.rate_mbit)
                if self.server_port is not None:
                    pair.start_server(self.server_port)
                yield pair
            return
        with RoutedTestBed() as routed:
            if self.rate_mbit is not None and self.queue_bytes is not None:
                if self.both_ways:
                    shape_both_ways(routed, self.rate_mbit, self.queue_bytes)
                else:
                    routed.set_queue(self.rate_mbit, self.queue_bytes)
            if self.server_port is not None:
                routed.start_server(self.server_port, self.echo_port)
            yield routed


class ClassBed:
    """A lab's stations sharing one link: station namespaces Q1…Qn on a bridge (namespace BR),
    the server namespace V behind the bridge's one port toward it, and the instructor's side
    (this test's own network namespace, where the collector listens) on the bridge too. The
    shared bottleneck is tc tbf on the bridge's port toward V (uploads) and on V's own
    interface (downloads); a station's own access link can be shaped lower (its interface,
    and the bridge's port toward it)."""

    __test__ = False  # not a pytest test class

    # RFC 2544 benchmarking range, on this bed only. The instructor's end is in the test's own
    # namespace, which the pytest-xdist workers share: each worker has a subnet of its own.
    NET = 9 + 16 * worker_index()
    HERE4 = f"198.18.{NET}.1"  # the instructor's side (the collector)
    SERVER4 = f"198.18.{NET}.2"

    def __init__(self, stations: int = 6) -> None:
        tag = _tag()
        self.tag = tag
        self.count = stations
        self.br, self.v = f"llab-br-{tag}", f"llab-v-{tag}"
        self.stations = [f"llab-q{n}-{tag}" for n in range(1, stations + 1)]
        self.here, self.here_port = f"lli{tag}", f"llbi{tag}"
        self.dev_v, self.port_v = f"llv{tag}", f"llbv{tag}"
        self._procs: list[subprocess.Popen[str]] = []

    def station_address(self, number: int) -> str:
        """Station number's IPv4 address (1-based)."""
        return f"198.18.{self.NET}.{10 + number}"

    def station_devices(self, number: int) -> tuple[str, str]:
        """(the station's own interface, the bridge's port toward it)."""
        return f"llq{number}-{self.tag}", f"llbq{number}-{self.tag}"

    def __enter__(self) -> ClassBed:
        self.close()
        for ns in (self.br, self.v, *self.stations):
            _run(["ip", "netns", "add", ns])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        _run(["ip", "-n", self.br, "link", "add", "br0", "type", "bridge"])
        _run(["ip", "-n", self.br, "link", "set", "br0", "up"])
        ends = [(self.v, self.dev_v, self.port_v, self.SERVER4)]
        ends += [
            (ns, *self.station_devices(n), self.station_address(n))
            for n, ns in enumerate(self.stations, 1)
        ]
        for ns, dev, port, address in ends:
            _run(["ip", "link", "add", dev, "type", "veth", "peer", "name", port])
            _run(["ip", "link", "set", dev, "netns", ns])
            _run(["ip", "-n", ns, "addr", "add", f"{address}/24", "dev", dev])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
            self._bridge(port)
        # The instructor's side: this namespace's end stays here.
        _run(["ip", "link", "add", self.here, "type", "veth", "peer", "name", self.here_port])
        _run(["ip", "addr", "add", f"{self.HERE4}/24", "dev", self.here])
        _run(["ip", "link", "set", self.here, "up"])
        self._bridge(self.here_port)
        return self

    def _bridge(self, port: str) -> None:
        """Move a veth end made in this namespace onto the bridge."""
        _run(["ip", "link", "set", port, "netns", self.br])
        _run(["ip", "-n", self.br, "link", "set", port, "master", "br0"])
        _run(["ip", "-n", self.br, "link", "set", port, "up"])

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        _end(self._procs)
        for ns in (self.br, self.v, *self.stations):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "del", self.here], capture_output=True, timeout=20)

    @staticmethod
    def _tbf(ns: str, dev: str, mbit: float | None) -> None:
        subprocess.run(
            ["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"], capture_output=True, timeout=10
        )
        if mbit is not None:
            # A queue as large as the burst: larger, a slow link's queue (a second at
            # 1 Mbit/s) still holds data when a short test ends, and what it delivers varies.
            tbf = ["tbf", "rate", f"{mbit}mbit", "burst", "16kb", "limit", "16kb"]
            _run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", *tbf])

    def _shared(self, ns: str, dev: str, mbit: float, match: str, hook: str) -> None:
        """htb at mbit on dev with a class per station (an equal rate each, borrowing up to
        the whole link): the link is shared station by station, as an access point's
        per-station queues share it, not left to TCP's luck over one queue. nftables gives
        each station's packets their class (meta priority); the rest share a class of their
        own."""
        tc = ["tc", "-n", ns]
        subprocess.run([*tc, "qdisc", "del", "dev", dev, "root"], capture_output=True)
        _run([*tc, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "99"])
        add = [*tc, "class", "add", "dev", dev]
        link = ["rate", f"{mbit}mbit", "burst", "16kb"]
        _run([*add, "parent", "1:", "classid", "1:1", "htb", *link])
        each = [
            "rate",
            f"{mbit / (self.count + 1):.3f}mbit",
            "ceil",
            f"{mbit}mbit",
            "burst",
            "16kb",
        ]
        for n in (*range(1, self.count + 1), 99):
            _run([*add, "parent", "1:1", "classid", f"1:{n + 10 if n != 99 else 99}", "htb", *each])
        family = "bridge" if ns == self.br else "inet"
        nft = ["ip", "netns", "exec", ns, "nft"]
        subprocess.run([*nft, "delete", "table", family, "llabclass"], capture_output=True)
        _run([*nft, "add", "table", family, "llabclass"])
        _run([*nft, "add", "chain", family, "llabclass", "out",
              f"{{ type filter hook {hook} priority 0 ; }}"])  # fmt: skip
        for n in range(1, self.count + 1):
            rule = ["ip", match, self.station_address(n), "meta", "priority", "set", f"1:{n + 10}"]
            _run([*nft, "add", "rule", family, "llabclass", "out", *rule])

    def set_bottleneck(self, mbit: float) -> None:
        """The shared link's rate both ways (counted on the wire, L2), shared per station."""
        self._shared(self.br, self.port_v, mbit, "saddr", "forward")  # the uploads
        self._shared(self.v, self.dev_v, mbit, "daddr", "output")  # the downloads

    #: The access links' bucket: a station's first 16 KB go at the veth's own speed.
    ACCESS_BURST_BYTES = 16 * 1024

    def set_access(self, number: int, mbit: float | None) -> None:
        """Station number's own access link, both ways (tc tbf); None: unshaped."""
        dev, port = self.station_devices(number)
        self._tbf(self.stations[number - 1], dev, mbit)
        self._tbf(self.br, port, mbit)

    def start(self, ns: str | None, argv: Sequence[str], log: Path) -> subprocess.Popen[str]:
        """A process in a namespace (None: this one), its output in log, ended with the bed."""
        prefix = ["ip", "netns", "exec", ns] if ns else []
        handle = log.open("a", encoding="utf-8")
        proc = subprocess.Popen(
            [*prefix, *argv], cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, text=True
        )
        handle.close()  # the child holds its own copy
        self._procs.append(proc)
        return proc
