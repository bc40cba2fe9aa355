"""The test session's own network: as root on Linux, the test run (its workers and every
process they start) leaves the computer's network namespace for one of its own, whose loopback
is rate-limited (tc tbf). Engines measuring "This computer" then move 1 Gbit/s, not the tens of
Gbit/s a loopback gives, which would take every core of a small machine from the tests
running beside them; nothing a test measures leaves the session, and no test can reach, shape
or drop the computer's own traffic. Without root (or elsewhere), the session stays where it is."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys

#: unshare(2)'s flag for a new network namespace.
CLONE_NEWNET = 0x40000000
#: The loopback's rate: a lab's gigabit Ethernet. A run then costs its engines a quarter of the CPU
#: it takes at 4 Gbit/s (the server reads in writes of 1408 B), and far less than on an unshaped
#: loopback; no test on this computer needs more.
LOOPBACK_RATE = "1gbit"
#: What KEEP_HOST_NETWORK says once the session has left the computer's network.
ENTERED = "entered from"
#: The session's own addresses beside the loopback (documentation and unique-local ranges, apart
#: from the test beds' 198.18.0.0/15).
OWN_V4 = "192.0.2.1"
OWN_V6 = "fd00:4c4c::1"
#: Set to anything to keep the session in the computer's own network (to look at it from outside).
KEEP_HOST_NETWORK = "LINKLAB_TESTS_HOST_NETWORK"


def enter_private_network() -> bool:
    """Move this process into a network namespace of its own with a shaped loopback; whether
    it did. Call it before any thread or child process is started: the namespace is the calling
    thread's, and what it starts afterwards inherits it."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    if os.environ.get(KEEP_HOST_NETWORK) or "PYTEST_XDIST_WORKER" in os.environ:
        return False  # a worker is in its controller's namespace already
    ip, tc = shutil.which("ip"), shutil.which("tc")
    if ip is None or tc is None:
        return False
    computers = os.stat("/proc/self/ns/net").st_ino
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        return False
    for argv in (
        ["link", "set", "lo", "up"],
        # An address beside the loopback's, as every computer has one: name lookups with
        # AI_ADDRCONFIG (netperf's) find no IPv4 or IPv6 without it, not even 127.0.0.1.
        ["link", "add", "linklab0", "type", "veth", "peer", "name", "linklab1"],
        ["addr", "add", f"{OWN_V4}/32", "dev", "linklab0"],
        ["-6", "addr", "add", f"{OWN_V6}/128", "dev", "linklab0", "nodad"],
        ["link", "set", "linklab0", "up"],
        ["link", "set", "linklab1", "up"],
    ):
        subprocess.run([ip, *argv], check=True, capture_output=True)
    shaper = ["qdisc", "add", "dev", "lo", "root", "tbf", "rate", LOOPBACK_RATE]
    subprocess.run(
        [tc, *shaper, "burst", "2mb", "latency", "10ms"], check=True, capture_output=True
    )
    # A pytest started by a test stays in this one; the computer's namespace, to tell them apart.
    os.environ[KEEP_HOST_NETWORK] = f"{ENTERED} {computers}"
    return True
