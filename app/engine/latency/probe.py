"""Latency probers: a thread that sends one probe per interval against absolute deadlines,
and the UDP prober for LinkLab's echo."""

from __future__ import annotations

import platform
import selectors
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable

from app.domain.errors import BadOption, LinkLabError
from app.domain.net import IpVersion
from app.engine.errors import EngineError, HostUnresolved
from app.engine.lan.validate import check_port, check_range, validate_host
from app.engine.latency.echo import (
    DEFAULT_ECHO_PORT,
    HEADER_SIZE,
    MAX_PROBE_BYTES,
    PER_SOURCE_RATE,
    parse_reply,
    request,
)
from app.engine.latency.probe_results import (
    DEFAULT_KEEP,
    DEFAULT_TIMEOUT_S,
    LatencyMethod,
    ProbeMatcher,
    ProbeRecord,
    ProbeSummary,
)

DEFAULT_INTERVAL_S = 0.01
IDLE_SECONDS = 2.5
MIN_INTERVAL_S = 1 / PER_SOURCE_RATE  # the responder answers no faster from one address
_MAX_WAIT_S = 0.05  # longest sleep between looks at the stop flag

RecordCallback = Callable[[ProbeRecord], None]


class Prober:
    """A thread that sends one probe per interval against absolute deadlines (a late probe
    moves no later one; probes missed while the thread was held up are skipped, not sent in
    a burst), for a duration or until stop()."""

    method = LatencyMethod.UDP_ECHO

    def __init__(
        self,
        host: str,
        port: int,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        duration_s: float | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        keep: int = DEFAULT_KEEP,
        on_record: RecordCallback | None = None,
    ) -> None:
        self.host = validate_host(host, "peer")
        check_port(port)
        check_range(interval_s, MIN_INTERVAL_S, 60.0, "probe interval", "s")
        if duration_s is not None:
            check_range(duration_s, 0.01, 86_400.0, "probe duration", "s")
        check_range(timeout_s, 0.01, 60.0, "probe timeout", "s")
        self.port = port
        self.interval_s = interval_s
        self.duration_s = duration_s
        self._matcher = ProbeMatcher(timeout_s, keep)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_record = on_record
        self.kernel_timestamps = False
        self.error: LinkLabError | None = None
        self._end_ns: int | None = None  # perf_counter_ns past which no probe is sent

    # -- control ---------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("a prober runs once")
        self._open()
        self._thread = threading.Thread(target=self._run, name="linklab-probe", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sending; probes still in flight are left out of the counts. Thread-safe."""
        self._stop.set()
        self.wait(2.0)

    def request_stop(self) -> None:
        """Ask the thread to stop without waiting for it (a stop from another thread that
        must not block); stop() or wait() then joins it."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the prober has finished (duration over, or stopped)."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> ProbeSummary:
        """Start, wait for the duration (Ctrl+C stops it) and summarise."""
        if self.duration_s is None:
            raise BadOption("A prober run needs a duration.")
        self.start()
        try:
            while not self.wait(0.2):
                pass
        finally:
            self.stop()
        if self.error is not None:
            raise self.error
        return self.summary()

    @property
    def received(self) -> int:
        """Probes answered so far (cheaper than a summary)."""
        with self._lock:
            return self._matcher.received

    def summary(self) -> ProbeSummary:
        # Summarised from a copy: the statistics (and SciPy's first import) must not hold up
        # the probe thread, which needs the lock for every probe.
        with self._lock:
            snapshot = self._matcher.snapshot()
        return snapshot.summary(
            self.method, self.host, self.port, self.interval_s, self.kernel_timestamps
        )

    def records(self) -> tuple[ProbeRecord, ...]:
        with self._lock:
            snapshot = self._matcher.snapshot()
        return snapshot.records()

    # -- the loop --------------------------------------------------------------------------------
    def _run(self) -> None:
        interval_ns = int(self.interval_s * 1e9)
        start = time.perf_counter_ns()
        end = start + int(self.duration_s * 1e9) if self.duration_s is not None else None
        self._end_ns = end
        next_send, seq = start, 0
        try:
            while not self._stop.is_set():
                now = time.perf_counter_ns()
                sending = end is None or next_send < end
                with self._lock:
                    lost = self._matcher.expire(now)
                    done = not sending and self._matcher.outstanding == 0
                    expiry = self._matcher.next_expiry_ns()
                self._report(lost)
                if done:
                    return
                if sending and now >= next_send:
                    # The bookkeeping comes before the send: after it, the thread waits at
                    # once, so that the peer (often woken on this very CPU) runs sooner.
                    self._send(seq)
                    seq += 1
                    next_send += interval_ns
                    if next_send <= now:
                        next_send += ((now - next_send) // interval_ns + 1) * interval_ns
                deadline = next_send if sending else expiry
                wait_ns = (deadline or now) - time.perf_counter_ns()
                self._wait(min(max(0, wait_ns) / 1e9, _MAX_WAIT_S))
        except LinkLabError as err:
            self.error = err
        except OSError as err:
            self.error = EngineError(
                f"Probing {self.host} port {self.port} stopped ({err.strerror or err}): check "
                f"the network connection, then measure again.",
                detail=str(err),
            )
        finally:
            with self._lock:
                self._matcher.discard_outstanding()
            self._close()

    def _report(self, records: list[ProbeRecord]) -> None:
        if self._on_record is not None:
            for record in records:
                self._on_record(record)

    def _answered(self, seq: int, at_ns: int, rtt_ns: int | None = None) -> None:
        with self._lock:
            record = self._matcher.on_reply(seq, at_ns, rtt_ns)
        if record is not None:
            self._report([record])

    def _too_late(self, at_ns: int) -> bool:
        """Whether a probe stamped at_ns falls past the prober's end: its thread was held up
        between the loop's look at the clock and the stamp. Such a probe is not sent, so that
        every probe lies within the duration (idle probes stay before the run they precede)."""
        return self._end_ns is not None and at_ns >= self._end_ns

    def _sent(self, seq: int, at_ns: int) -> None:
        if self._too_late(at_ns):
            return  # never counted: an answer to it is one to an unknown probe
        with self._lock:
            self._matcher.on_sent(seq, at_ns)

    def _unwrap(self, wire_seq: int) -> int:
        with self._lock:
            return self._matcher.unwrap(wire_seq)

    # -- what a method provides -----------------------------------------------------------------
    def _open(self) -> None:
        """Resolve the peer and open what the probes need (raises EngineError)."""

    def _send(self, seq: int) -> None:
        raise NotImplementedError

    def _wait(self, seconds: float) -> None:
        """Sleep up to seconds, handling any replies that arrive meanwhile."""
        self._stop.wait(seconds)

    def _close(self) -> None:
        pass


def resolve(
    host: str, port: int, kind: int, ip_version: IpVersion | None
) -> tuple[int, tuple[object, ...]]:
    """(family, socket address) of the peer, IPv4 or IPv6 as asked."""
    family = {
        None: socket.AF_UNSPEC,
        IpVersion.V4: socket.AF_INET,
        IpVersion.V6: socket.AF_INET6,
    }[ip_version]
    try:
        infos = socket.getaddrinfo(host, port, family, kind)
    except (OSError, UnicodeError) as err:
        raise HostUnresolved(host, detail=str(err)) from err
    found_family, _, _, _, address = infos[0]
    return found_family, address


# Linux's SO_TIMESTAMPNS (and SCM_TIMESTAMPNS) on the architectures that use the generic
# socket numbers; Python's socket module does not name it.
_SO_TIMESTAMPNS = 35
_GENERIC_SOCKET_ABI = {"x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "armv7l", "riscv64"}
_TIMESPEC = struct.Struct("@ll")


def _kernel_stamps(sock: socket.socket) -> bool:
    """Ask the kernel to stamp each datagram on arrival (Linux), so that a busy Python
    thread, or another thread holding the interpreter, does not lengthen the round trips."""
    if sys.platform != "linux" or platform.machine().lower() not in _GENERIC_SOCKET_ABI:
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    except OSError:
        return False
    return True


class UdpProber(Prober):
    """Probes LinkLab's UDP echo (`linklab serve` on the peer) on its own socket and flow."""

    method = LatencyMethod.UDP_ECHO

    def __init__(
        self,
        host: str,
        port: int = DEFAULT_ECHO_PORT,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        duration_s: float | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        keep: int = DEFAULT_KEEP,
        on_record: RecordCallback | None = None,
        size: int = HEADER_SIZE,
        ip_version: IpVersion | None = None,
        kernel_timestamps: bool = True,
    ) -> None:
        super().__init__(
            host,
            port,
            interval_s=interval_s,
            duration_s=duration_s,
            timeout_s=timeout_s,
            keep=keep,
            on_record=on_record,
        )
        check_range(size, HEADER_SIZE, MAX_PROBE_BYTES, "probe size", "bytes")
        self.size = size
        self.ip_version = ip_version
        self._want_kernel = kernel_timestamps
        self._sock: socket.socket | None = None
        self._selector: selectors.BaseSelector | None = None
        self.refused = False  # the peer's system said nothing listens on the port

    def _open(self) -> None:
        family, address = resolve(self.host, self.port, socket.SOCK_DGRAM, self.ip_version)
        sock = socket.socket(family, socket.SOCK_DGRAM)
        try:
            # Connected: only the peer's replies arrive, and a "port unreachable" is reported.
            sock.connect(address)
            sock.setblocking(False)
        except OSError as err:
            sock.close()
            raise EngineError(
                f"Cannot send probes to {self.host} port {self.port} ({err.strerror}): check "
                f"the address and that this computer has a route to it.",
                detail=str(err),
            ) from err
        self.kernel_timestamps = self._want_kernel and _kernel_stamps(sock)
        self._sock = sock
        self._selector = selectors.DefaultSelector()
        self._selector.register(sock, selectors.EVENT_READ)

    def _send(self, seq: int) -> None:
        assert self._sock is not None
        at = time.perf_counter_ns()
        if self._too_late(at):
            return
        # The echoed stamp is the wall clock when the kernel stamps replies (its clock).
        stamp = time.time_ns() if self.kernel_timestamps else at
        try:
            self._sock.send(request(seq, stamp, self.size))
        except (ConnectionRefusedError, ConnectionResetError):
            # An earlier probe's "port unreachable" (Windows reports it as a reset): this
            # probe is lost.
            self.refused = True
        except (BlockingIOError, OSError):
            pass  # a full queue or no route right now: the probe counts as lost
        # Registered after sending (replies are read by this same thread, later), so that
        # waiting for the lock never falls between the stamp and the send.
        self._sent(seq, at)

    def _wait(self, seconds: float) -> None:
        assert self._selector is not None
        if self._selector.select(seconds):
            self._receive()

    def _receive(self) -> None:
        assert self._sock is not None
        sock = self._sock
        anc_size = socket.CMSG_SPACE(_TIMESPEC.size) if self.kernel_timestamps else 0
        while True:
            try:
                if anc_size:
                    data, ancdata, _, _ = sock.recvmsg(MAX_PROBE_BYTES + 1, anc_size)
                else:
                    data, ancdata = sock.recv(MAX_PROBE_BYTES + 1), []
            except BlockingIOError:
                return
            except (ConnectionRefusedError, ConnectionResetError):
                self.refused = True
                continue
            now = time.perf_counter_ns()
            reply = parse_reply(data)
            if reply is None:
                continue
            rtt_ns = None
            for level, kind, payload in ancdata:
                if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS:
                    sec, nsec = _TIMESPEC.unpack_from(payload)
                    rtt_ns = sec * 1_000_000_000 + nsec - reply.client_ns
            self._answered(self._unwrap(reply.seq), now, rtt_ns)

    def _close(self) -> None:
        if self._selector is not None:
            self._selector.close()
        if self._sock is not None:
            self._sock.close()
        self._selector, self._sock = None, None
