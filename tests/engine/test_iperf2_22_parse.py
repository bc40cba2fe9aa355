"""iperf 2.2.1's output as LinkLab reads it: captures of iperf 2.2.1 built from the pinned source
(tests/data/iperf2/local-iperf-2.2.1-*, a 2.2.1 client against `iperf -s -e -V` and `-u` on the
loopback, with LinkLab's argv `-c HOST -p PORT -t 3 -i 1 -e -f k` plus -R, --full-duplex, -P 2,
--bounceback, --trip-times, -V, and the failures; stdout and stderr together). 2.2 prints the
in-flight bytes before the window ("127K(2)/767K(12)/118(22) us"), intervals in hundredths, and
numbers its failures ("[  1] tcp connect to … failed (Connection refused)", exit status 0)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey, RunKind
from app.domain.results import EngineFailure, ParseEvent
from app.engine.drivers.iperf2.driver import start_iperf2
from app.engine.drivers.iperf2.errors import classifier
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.errors import ClosedBeforeStart, ConnectionRefused, EngineError, HostUnresolved
from app.engine.process.tools import Source, Tool
from tests.conftest import ROOT_DIR
from tests.engine.engine_replay import FakeEngine, Replay
from tests.engine.test_iperf2_parse import flow, samples, summary

DATA = ROOT_DIR / "tests" / "data" / "iperf2"
K = 1000.0  # -f k: Kbits are 1000 bits; KBytes are 1024 bytes
PREFIX = "local-iperf-2.2.1-linux-"


def events(name: str) -> list[ParseEvent]:
    text = (DATA / f"{PREFIX}{name}.txt").read_text(encoding="utf-8")
    return list(parse_iperf2(text.splitlines()))


def test_tcp_upload_reads_the_window_after_the_bytes_in_flight() -> None:
    found = events("tcp-e")
    assert not [e for e in found if isinstance(e, EngineFailure)]
    # [  1] 0.00-3.01 sec  7567616 KBytes  20570527 Kbits/sec  59123/0  6  0K(0)/3325K(52)/…
    up = flow(summary(found), Flow.UP)
    assert up.sender_bps == 20570527 * K and up.sender_bytes == 7567616 * 1024
    assert up.retransmits == 6
    first, second, third = samples(found)
    # [  1] 0.00-1.00 sec  …  5        0K(0)/3581K(56)/957(975) us
    assert (first.start_s, first.end_s) == (0.0, 1.0)
    assert first.cwnd_bytes == 3581 * 1024 and first.rtt_ms == pytest.approx(0.957)
    assert first.retransmits == 5 and first.sent_bps == 13429113 * K
    assert second.cwnd_bytes == 767 * 1024 and third.cwnd_bytes == 3325 * 1024


def test_a_window_with_bytes_in_flight_is_not_mistaken_for_them() -> None:
    """IPv6, where the in-flight figure is not 0: "895K(14)/895K(14)/63(83) us" and
    "1534K(24)/2045K(32)/75(36) us" (the window is the second)."""
    first, second, _ = samples(events("tcp-ipv6-e"))
    assert first.cwnd_bytes == 895 * 1024 and first.rtt_ms == pytest.approx(0.063)
    assert second.cwnd_bytes == 2045 * 1024 and second.rtt_ms == pytest.approx(0.075)


def test_udp_upload_reads_the_servers_report() -> None:
    up = flow(summary(events("udp-e")), Flow.UP)
    # [  1] 0.00-3.00 sec  212276 KBytes  580352 Kbits/sec   0.000 ms 172885/320756 (54%) …
    assert up.sender_bps == 1257354 * K and up.receiver_bps == 580352 * K
    assert (up.lost_packets, up.packets) == (172885, 320756)


def test_downloads_tcp_and_udp() -> None:
    tcp = flow(summary(events("tcp-reverse-e")), Flow.DOWN)
    assert tcp.receiver_bps == 12775551 * K and tcp.receiver_bytes == 4679808 * 1024
    udp_found = events("udp-reverse-e")
    udp = flow(summary(udp_found), Flow.DOWN)
    assert udp.receiver_bps == 275055 * K
    assert (udp.lost_packets, udp.packets, udp.jitter_ms) == (10090, 80252, 0.001)
    assert [s.lost_packets for s in samples(udp_found)] == [4841, 2675, 2574]


def test_full_duplex_reads_both_ways() -> None:
    found = events("tcp-full-duplex-e")
    total = summary(found)
    assert flow(total, Flow.UP).sender_bps == 9433813 * K
    assert flow(total, Flow.DOWN).receiver_bps == 10544835 * K
    ups = [s for s in samples(found) if s.flow is Flow.UP]
    downs = [s for s in samples(found) if s.flow is Flow.DOWN]
    assert len(ups) == len(downs) == 3
    # [  1] 0.00-1.00 sec … 8579/0  20  127K(2)/1023K(16)/118(22) us: the window.
    assert ups[0].cwnd_bytes == 1023 * 1024 and ups[0].retransmits == 20


def test_parallel_streams_are_added_up() -> None:
    found = events("tcp-P2-e")
    first = samples(found)[0]
    assert first.sent_bps == (12462326 + 12748588) * K
    assert first.cwnd_bytes == (4732 + 3581) * 1024
    up = flow(summary(events("udp-P2-e")), Flow.UP)
    assert up.receiver_bps == (304994 + 301408) * K
    assert (up.lost_packets, up.packets) == (28385 + 3360, 80252 + 80251)


def test_bounceback_round_trips() -> None:
    total = summary(events("tcp-bounceback-e"))
    # [  1] 0.00-3.01 sec  5.86 KBytes  16.0 Kbits/sec    30=0.032/0.017/0.357/0.062 ms …
    assert (total.rtt_mean_ms, total.rtt_min_ms, total.rtt_max_ms) == (0.032, 0.017, 0.357)


def test_trip_times_one_way_delay() -> None:
    udp = flow(summary(events("udp-trip-times-e")), Flow.UP)
    assert udp.owd_ms == 0.002
    found = events("tcp-reverse-trip-times-e")
    assert flow(summary(found), Flow.DOWN).owd_ms == 1.856
    assert [s.owd_ms for s in samples(found)] == [3.772, 3.43, 0.661]


@pytest.mark.parametrize(
    ("name", "error", "says"),
    [
        ("err-refused", ConnectionRefused, "iperf -s"),
        ("err-unknown-host", HostUnresolved, "could not be resolved"),
        ("err-udp-no-server", ConnectionRefused, "iperf -s -u"),
        ("err-peer-closes", ClosedBeforeStart, "closed it before"),
    ],
)
def test_failures_are_typed_with_a_sentence(name: str, error: type[EngineError], says: str) -> None:
    found = [e for e in events(name) if isinstance(e, EngineFailure)]
    assert found, "the failure must be seen even though iperf 2 exits with 0"
    typed = classifier("10.9.9.9", 5001, IpVersion.V4, "udp" in name)(
        found[0].message, started=False
    )
    assert isinstance(typed, error) and says in typed.sentence
    assert typed.sentence.endswith(".")


def _run(folder: Path, recording: str, to_stderr: tuple[str, ...], udp: bool = False) -> None:
    script = FakeEngine(
        [Replay(DATA / f"{PREFIX}{recording}.txt", exit_code=0, stderr_prefixes=to_stderr)],
        name="iperf",
    ).write(folder)
    tool = Tool(
        "iperf", str(script), (2, 2, 1), "iperf version 2.2.1", Source.SETTINGS, frozenset()
    )
    plan = Plan(Peer("127.0.0.1", {"iperf2": 5999}), values=(1408,), duration_s=3)
    protocol = Protocol.UDP if udp else Protocol.TCP
    key = RunKey(protocol, IpVersion.V4, 0, 1, RunKind.STREAM)
    run = start_iperf2(tool, [tool.path, "-c", "127.0.0.1"], "127.0.0.1", 5999, key, plan)
    list(run.events())


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
@pytest.mark.parametrize(
    ("recording", "to_stderr", "udp", "error", "says"),
    [
        # As 2.2.1 splits them: the failures on stderr, the reports on stdout, exit status 0.
        ("err-refused", ("[  1] tcp connect",), False, ConnectionRefused, "iperf -s"),
        ("err-peer-closes", ("[  1] tcp write", "[  1] shutdown"), False, ClosedBeforeStart, ""),
        # Sent and reported as sent, yet no UDP server answered: no measurement.
        (
            "err-udp-no-server",
            ("[  1] Read UDP fin", "[  3] WARNING"),
            True,
            ConnectionRefused,
            "iperf -s -u",
        ),
    ],
)
def test_a_failed_run_fails_though_iperf2_exits_with_0(
    tmp_path: Path,
    recording: str,
    to_stderr: tuple[str, ...],
    udp: bool,
    error: type[EngineError],
    says: str,
) -> None:
    with pytest.raises(error) as caught:
        _run(tmp_path, recording, to_stderr, udp)
    assert "port 5999" in caught.value.sentence and says in caught.value.sentence
