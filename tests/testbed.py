"""A two-host test bed in network namespaces: veth pair, IPv4 + IPv6, tc tbf rate limits and
optional nftables random loss. Needs root; everything it creates is removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

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


def _run(argv: Sequence[str]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


class TestBed:
    """Host A (client side) and host B (server side) joined by one veth link."""

    __test__ = False  # not a pytest test class

    A4, B4 = "198.18.0.1", "198.18.0.2"  # RFC 2544 benchmarking range, inside our namespaces
    A6, B6 = "fd00:4c4c::1", "fd00:4c4c::2"

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}"
        self.a, self.b = f"llab-a-{tag}", f"llab-b-{tag}"
        self.dev_a, self.dev_b = f"lla{tag}", f"llb{tag}"
        self._procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> TestBed:
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
            _run(["ip", "-n", ns, "addr", "add", f"{v4}/24", "dev", dev])
            _run(["ip", "-n", ns, "-6", "addr", "add", f"{v6}/64", "dev", dev, "nodad"])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        for proc in self._procs:
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
        self._procs.clear()
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)

    def set_rate(self, mbit: float) -> None:
        """Limit both directions with tc tbf to mbit Mbit/s (counted on the wire, L2)."""
        for ns, dev in ((self.a, self.dev_a), (self.b, self.dev_b)):
            subprocess.run(
                ["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"],
                capture_output=True,
                timeout=10,
            )
            _run(
                [
                    "tc",
                    "-n",
                    ns,
                    "qdisc",
                    "add",
                    "dev",
                    dev,
                    "root",
                    "tbf",
                    "rate",
                    f"{mbit}mbit",
                    "burst",
                    "32kb",
                    "latency",
                    "100ms",
                ]
            )

    def set_loss(self, percent: int) -> None:
        """Drop percent % of UDP packets arriving at B, at random (nftables numgen)."""
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
                "numgen",
                "random",
                "mod",
                "100",
                "<",
                str(percent),
                "drop",
            ]
        )

    def linklab(self, ns: str, *args: str) -> list[str]:
        """argv that runs LinkLab's CLI inside a namespace."""
        return ["ip", "netns", "exec", ns, sys.executable, "-m", "app", *args]

    def start_server(self, port: int = 5201) -> subprocess.Popen[str]:
        """`linklab serve` in host B, returned once it says it is listening."""
        proc = subprocess.Popen(
            self.linklab(self.b, "serve", "--no-netserver", "--port", str(port)),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._procs.append(proc)
        assert proc.stdout is not None
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if "listening on port" in line:
                return proc
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
