"""netperf keyval parser, argv builder and failure classifier against real captured output
(tests/data/netperf, netperf 2.7.0 on loopback) and arbitrary input."""

from __future__ import annotations

import itertools
import math
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.errors import BadOption
from app.domain.net import Flow, IpVersion
from app.domain.results import EngineFailure, EngineMessage, ParseEvent, RunSummary, Sample
from app.engine.drivers.netperf.driver import (
    RR_SELECTORS,
    STREAM_SELECTORS,
    build_argv,
    idle_timeout_s,
)
from app.engine.drivers.netperf.errors import NoNetserver, classify
from app.engine.drivers.netperf.options import NetperfOptions, NetperfTest
from app.engine.drivers.netperf.parse import parse_keyval
from app.engine.errors import (
    ConnectTimeout,
    EngineError,
    EngineFailed,
    HostUnresolved,
    ImpossibleValue,
    Ipv6Unavailable,
    LinkLocalNeedsZone,
    OptionRefused,
    ParseError,
    PeerVanished,
)
from app.engine.process.tools import Capability, Source, Tool
from tests.conftest import DATA

NETPERF = DATA / "netperf"
# A netperf built with demo mode (Debian's is), as LinkLab's probe reports it.
TOOL = Tool(
    "netperf",
    "/opt/netperf",
    (2, 7, 0),
    "Netperf version 2.7.0",
    Source.PATH,
    frozenset({Capability.INTERIM}),
)
TWO_SECOND_RUNS = {
    "keyval_tcp_rr_v4_nocpu.txt",
    "keyval_tcp_stream_v4_mbytes.txt",
    "keyval_udp_stream_v4_linklab.txt",
    "keyval_udp_rr_v6_linklab.txt",
}
KEYVAL_FIXTURES = sorted(p.name for p in NETPERF.glob("keyval_*.txt"))


def events(name: str) -> list[ParseEvent]:
    return list(parse_keyval((NETPERF / name).read_text(encoding="utf-8").splitlines()))


def samples(evs: list[ParseEvent]) -> list[Sample]:
    return [e for e in evs if isinstance(e, Sample)]


def summary(evs: list[ParseEvent]) -> RunSummary:
    found = [e for e in evs if isinstance(e, RunSummary)]
    assert len(found) == 1
    return found[0]


def failures(evs: list[ParseEvent]) -> list[str]:
    return [e.message for e in evs if isinstance(e, EngineFailure)]


def numbers_in(event: object) -> list[float]:
    """Every numeric field of an event, its flows included."""
    found: list[float] = []
    for f in fields(event):  # type: ignore[arg-type]
        value = getattr(event, f.name)
        if isinstance(value, tuple):
            for item in value:
                found.extend(numbers_in(item))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append(float(value))
    return found


def assert_sane(evs: list[ParseEvent]) -> None:
    for event in evs:
        if isinstance(event, Sample | RunSummary):
            for value in numbers_in(event):
                assert math.isfinite(value) and value >= 0, event


# -- every capture -------------------------------------------------------------------------------
def test_fixtures_exist() -> None:
    assert len(KEYVAL_FIXTURES) >= 9
    assert (NETPERF / "README.md").is_file()


@pytest.mark.parametrize("name", KEYVAL_FIXTURES)
def test_every_keyval_capture(name: str) -> None:
    evs = events(name)
    assert isinstance(evs[0], EngineMessage) and evs[0].text.startswith("MIGRATED ")
    assert not failures(evs)
    got = samples(evs)
    assert len(got) >= 2
    assert got[0].start_s == 0.0
    for before, after in itertools.pairwise(got):
        assert after.start_s == pytest.approx(before.end_s)
    # The interim intervals add up to the test length.
    length = 2.0 if name in TWO_SECOND_RUNS else 3.0
    assert got[-1].end_s == pytest.approx(length, abs=0.01)
    assert all(s.flow is Flow.UP for s in got)
    assert isinstance(evs[-1], RunSummary)
    total = summary(evs)
    if "_rr_" in name:
        assert all(s.sent_bps is None and s.rtt_ms for s in got)
        assert total.flows == ()
        assert total.transactions_per_s and total.transactions_per_s > 1000
        assert total.rtt_mean_ms and total.rtt_min_ms and total.rtt_max_ms
        assert total.rtt_min_ms <= total.rtt_mean_ms <= total.rtt_max_ms
    else:
        assert all(s.rtt_ms is None and s.sent_bps for s in got)
        (flow,) = total.flows
        assert flow.sender_bps and flow.receiver_bps
    assert_sane(evs)


def test_tcp_stream_values() -> None:
    evs = events("keyval_tcp_stream_v4.txt")
    got = samples(evs)
    bounds = [t for s in got for t in (s.start_s, s.end_s)]
    assert bounds == pytest.approx([0.0, 1.006, 1.006, 2.038, 2.038, 3.0])
    assert got[0].sent_bps == pytest.approx(8921.99e6)
    (flow,) = summary(evs).flows
    assert flow.sender_bps == pytest.approx(8991.37e6)
    assert flow.receiver_bps == pytest.approx(8991.37e6)
    assert flow.sender_bytes == flow.receiver_bytes == 3372130432
    assert flow.packets is None and flow.lost_packets is None and flow.loss_pct is None
    assert summary(evs).cpu_local_pct == pytest.approx(65.75)
    assert summary(evs).rtt_mean_ms is None


def test_udp_stream_receiver_rate_and_loss() -> None:
    (flow,) = summary(events("keyval_udp_stream_v4.txt")).flows
    assert flow.sender_bps == pytest.approx(3058.17e6)
    assert flow.receiver_bps == pytest.approx(3028.92e6)
    assert flow.throughput_bps == pytest.approx(3028.92e6)
    assert flow.packets == 814541 and flow.lost_packets == 814541 - 806751
    assert flow.loss_pct == pytest.approx(100 * 7790 / 814541)
    assert flow.receiver_bytes == 1135905408


def test_udp_stream_v6() -> None:
    evs = events("keyval_udp_stream_v6.txt")
    assert "AF_INET6" in evs[0].text  # type: ignore[union-attr]
    (flow,) = summary(evs).flows
    assert flow.lost_packets == 691634 - 689018


def test_bytes_units_are_powers_of_1024() -> None:
    evs = events("keyval_tcp_stream_v4_mbytes.txt")
    assert samples(evs)[0].sent_bps == pytest.approx(1046.61 * 8 * 2**20)
    (flow,) = summary(evs).flows
    assert flow.sender_bps == pytest.approx(1011.78 * 8 * 2**20)
    # The byte count over 2.00 s agrees with the converted rate.
    assert flow.sender_bytes is not None
    assert flow.sender_bytes * 8 / 2.0 == pytest.approx(flow.sender_bps, rel=0.01)


def test_tcp_rr_values() -> None:
    evs = events("keyval_tcp_rr_v4.txt")
    got = samples(evs)
    assert got[0].end_s == pytest.approx(1.358)
    assert got[0].rtt_ms == pytest.approx(1000 / 14629.42)
    total = summary(evs)
    assert total.transactions_per_s == pytest.approx(15616.198)
    assert total.rtt_mean_ms == pytest.approx(0.06397)
    assert total.rtt_min_ms == pytest.approx(0.019)
    assert total.rtt_max_ms == pytest.approx(2.104)
    assert total.cpu_local_pct == pytest.approx(31.40)


def test_udp_rr_v6_values() -> None:
    total = summary(events("keyval_udp_rr_v6.txt"))
    assert total.transactions_per_s == pytest.approx(18527.006)
    assert total.rtt_mean_ms == pytest.approx(0.05393)
    assert total.cpu_local_pct == pytest.approx(30.86)
    assert total.cpu_remote_pct == pytest.approx(31.14)


def test_cpu_minus_one_is_unknown_not_zero() -> None:
    text = (NETPERF / "keyval_tcp_rr_v4_nocpu.txt").read_text(encoding="utf-8")
    assert "LOCAL_CPU_UTIL=-1.00" in text
    total = summary(events("keyval_tcp_rr_v4_nocpu.txt"))
    assert total.cpu_local_pct is None and total.cpu_remote_pct is None


def test_rtt_falls_back_to_rt_latency_then_rate() -> None:
    base = ["THROUGHPUT=20000.00", "THROUGHPUT_UNITS=Trans/s"]
    total = summary(list(parse_keyval([*base, "RT_LATENCY=52.000"])))
    assert total.rtt_mean_ms == pytest.approx(0.052)
    total = summary(list(parse_keyval([*base, "MEAN_LATENCY=-1"])))
    assert total.rtt_mean_ms == pytest.approx(0.05)
    assert total.transactions_per_s == 20000.0


def test_missing_and_negative_values_are_unknown() -> None:
    lines = [
        "PROTOCOL=UDP",
        "THROUGHPUT=-1",
        "THROUGHPUT_UNITS=10^6bits/s",
        "REMOTE_RECV_THROUGHPUT=",
        "LOCAL_SEND_CALLS=10",
        "REMOTE_RECV_CALLS=12",
        "LOCAL_CPU_UTIL=-1.00",
    ]
    total = summary(list(parse_keyval(lines)))
    (flow,) = total.flows
    assert flow.sender_bps is None and flow.receiver_bps is None
    assert flow.lost_packets is None and flow.loss_pct is None  # received > sent: unknown
    assert total.cpu_local_pct is None and total.cpu_remote_pct is None


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("THROUGHPUT=nan", 'impossible throughput of "nan"'),
        ("THROUGHPUT=inf", 'impossible throughput of "inf"'),
        ("THROUGHPUT=true", 'impossible throughput of "true"'),
        ("LOCAL_SEND_THROUGHPUT=1e999", 'impossible throughput of "1e999"'),
        ("LOCAL_CPU_UTIL=1_0", 'impossible CPU load of "1_0"'),
        ("LOCAL_BYTES_SENT=0x10", 'impossible byte count of "0x10"'),
    ],
)
def test_values_that_are_no_number_fail_the_run(line: str, says: str) -> None:
    """netperf writes every value as text: a decimal reads as that number, -1 as unknown, and
    anything else where a figure belongs is refused with a sentence, not stored as empty."""
    lines = ["PROTOCOL=TCP", "THROUGHPUT=12", "THROUGHPUT_UNITS=10^6bits/s", line]
    with pytest.raises(ImpossibleValue) as info:
        list(parse_keyval(lines))
    assert says in str(info.value) and "not counted" in str(info.value)


def test_numbers_written_as_text_are_read() -> None:
    lines = ["PROTOCOL=TCP", "THROUGHPUT= 12.5", "THROUGHPUT_UNITS=10^6bits/s"]
    (flow,) = summary(list(parse_keyval(lines))).flows
    assert flow.sender_bps == pytest.approx(12.5e6)


# -- failures ------------------------------------------------------------------------------------
def stdout_failure(name: str) -> str:
    (message,) = failures(events(name))
    return message


def stderr_text(name: str) -> str:
    return (NETPERF / name).read_text(encoding="utf-8").strip()


@pytest.mark.parametrize(
    ("name", "host", "port", "ip", "kind"),
    [
        ("err_refused.txt", "127.0.0.1", 12871, IpVersion.V4, NoNetserver),
        ("err_refused_v6.txt", "::1", 12871, IpVersion.V6, NoNetserver),
        ("err_unresolved.txt", "no-such-host.invalid", 12870, None, HostUnresolved),
        ("err_unresolved_v6.txt", "no-such-host.invalid", 12870, IpVersion.V6, HostUnresolved),
        ("err_v6_to_v4_literal.txt", "127.0.0.1", 12870, IpVersion.V6, Ipv6Unavailable),
        ("err_v4_to_v6_literal.txt", "::1", 12870, IpVersion.V4, HostUnresolved),
        ("err_server_killed_tcp_stream.txt", "127.0.0.1", 12872, IpVersion.V4, PeerVanished),
        ("err_server_killed_udp_stream.txt", "127.0.0.1", 12872, IpVersion.V4, PeerVanished),
        ("err_udp_too_big.txt", "127.0.0.1", 12870, IpVersion.V4, OptionRefused),
    ],
)
def test_error_capture_maps_to_typed_error(
    name: str, host: str, port: int, ip: IpVersion | None, kind: type[EngineError]
) -> None:
    message = stdout_failure(name)
    err = classify(host, port, ip)(message)
    assert type(err) is kind
    assert err.detail == message
    assert str(err).endswith(".")


def test_refused_failure_text_and_sentence() -> None:
    evs = events("err_refused.txt")
    assert evs == [EngineFailure(stdout_failure("err_refused.txt"))]
    message = stdout_failure("err_refused.txt")
    assert message.startswith(
        "establish control: are you sure there is a netserver listening on 127.0.0.1 at port 12871?"
    )
    err = classify("127.0.0.1", 12871, IpVersion.V4)(message)
    assert str(err) == NoNetserver("127.0.0.1", 12871).sentence
    assert "start netserver" in str(err)


def test_resolve_failure_keeps_getaddrinfo_line() -> None:
    message = stdout_failure("err_v6_to_v4_literal.txt")
    assert "getaddrinfo returned -9 Address family for hostname not supported" in message
    assert message.count(";") == 2  # three lines, one failure


def test_killed_server_keeps_interim_samples() -> None:
    evs = events("err_server_killed_tcp_stream.txt")
    assert len(samples(evs)) == 3
    assert not [e for e in evs if isinstance(e, RunSummary)]
    assert "Connection reset by peer" in failures(evs)[0]


def test_killed_rr_server_says_so_only_on_stderr() -> None:
    evs = events("err_server_killed_tcp_rr.txt")
    assert len(samples(evs)) == 2 and not failures(evs)
    text = stderr_text("err_server_killed_tcp_rr.stderr.txt")
    assert isinstance(classify("127.0.0.1", 12872, IpVersion.V4)(text), PeerVanished)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("err_server_killed_tcp_stream.stderr.txt", PeerVanished),
        ("err_server_killed_udp_stream.stderr.txt", PeerVanished),
        ("err_udp_too_big.stderr.txt", OptionRefused),
    ],
)
def test_stderr_captures_classify(name: str, kind: type[EngineError]) -> None:
    assert type(classify("127.0.0.1", 12870, IpVersion.V4)(stderr_text(name))) is kind


@pytest.mark.parametrize(
    ("message", "ip", "kind"),
    [
        # Not captured here (no DNS in the capture sandbox): glibc's words for a name with
        # only A records, and a kernel without IPv6.
        (
            "getaddrinfo returned -5 No address associated with hostname",
            IpVersion.V6,
            Ipv6Unavailable,
        ),
        ("socket: Address family not supported by protocol", IpVersion.V6, Ipv6Unavailable),
        ("recv_response: no response received. errno 110 counter 0", IpVersion.V4, ConnectTimeout),
        ("netperf: receive_response: Connection timed out", None, ConnectTimeout),
        ("exit status 1 without results", None, EngineFailed),
    ],
)
def test_classifier_words(message: str, ip: IpVersion | None, kind: type[EngineError]) -> None:
    assert type(classify("peer", 12865, ip)(message)) is kind


# -- argv ----------------------------------------------------------------------------------------
def test_argv_shape_stream() -> None:
    opts = NetperfOptions(
        host="::1",
        port=12870,
        test=NetperfTest.UDP_STREAM,
        ip_version=IpVersion.V6,
        duration_s=3,
        message_size=1408,
        interval_s=1.0,
    )
    argv = build_argv(TOOL, opts)
    assert argv[-1] == ",".join(STREAM_SELECTORS)
    assert " ".join(argv[:-1]) == (
        "/opt/netperf -H ::1 -p 12870 -l 3 -t UDP_STREAM -6 -c -C -D -1 -- -m 1408 -k"
    )


def test_argv_shape_rr() -> None:
    opts = NetperfOptions(
        host="127.0.0.1",
        test=NetperfTest.TCP_RR,
        ip_version=IpVersion.V4,
        duration_s=2,
        message_size=64,
        cpu=False,
        interval_s=0.5,
    )
    argv = build_argv(TOOL, opts)
    assert argv[-1] == ",".join(RR_SELECTORS)
    assert " ".join(argv[:-1]) == (
        "/opt/netperf -H 127.0.0.1 -p 12865 -l 2 -t TCP_RR -4 -D -0.5 -- -r 64,64 -k"
    )


def test_argv_defaults_leave_sizes_and_family_to_netperf() -> None:
    argv = build_argv(TOOL, NetperfOptions(host="peer.example"))
    assert "-4" not in argv and "-6" not in argv and "-m" not in argv and "-r" not in argv
    assert argv[argv.index("--") + 1] == "-k"


def test_argv_link_local_zone_passes_through() -> None:
    opts = NetperfOptions(host="fe80::1%eth0", ip_version=IpVersion.V6)
    assert build_argv(TOOL, opts)[1:3] == ["-H", "fe80::1%eth0"]
    with pytest.raises(LinkLocalNeedsZone):
        build_argv(TOOL, NetperfOptions(host="fe80::1", ip_version=IpVersion.V6))


@pytest.mark.parametrize(
    ("opts", "words"),
    [
        (NetperfOptions(host="-x"), "starts with '-'"),
        (NetperfOptions(host="a b"), "spaces"),
        (NetperfOptions(host="h", port=0), "between 1 and 65535"),
        (NetperfOptions(host="h", duration_s=0), "test duration"),
        (NetperfOptions(host="h", interval_s=0), "interim interval"),
        (
            NetperfOptions(host="h", test=NetperfTest.UDP_STREAM, message_size=65508),
            "UDP message size must be between 1 and 65507",
        ),
        (NetperfOptions(host="h", test=NetperfTest.UDP_RR, message_size=0), "UDP message size"),
        (
            NetperfOptions(host="h", message_size=(1 << 20) + 1),
            "TCP message size must be between 1 and 1048576",
        ),
        (NetperfOptions(host="127.0.0.1", ip_version=IpVersion.V6), "asks for IPv6"),
        (NetperfOptions(host="::1", ip_version=IpVersion.V4), "asks for IPv4"),
    ],
)
def test_argv_rejects_with_sentence(opts: NetperfOptions, words: str) -> None:
    with pytest.raises(BadOption) as info:
        build_argv(TOOL, opts)
    assert words in str(info.value)


def test_argv_accepts_limits() -> None:
    build_argv(TOOL, NetperfOptions(host="h", test=NetperfTest.UDP_RR, message_size=65507))
    build_argv(TOOL, NetperfOptions(host="h", test=NetperfTest.TCP_STREAM, message_size=1 << 20))


def test_idle_timeout_allows_a_late_first_interim() -> None:
    assert idle_timeout_s(NetperfOptions(host="h", interval_s=1.0)) == 13.0


# -- arbitrary input -----------------------------------------------------------------------------
KEYS = sorted({*STREAM_SELECTORS, *RR_SELECTORS, "FOO"})
VALUES = st.one_of(
    st.sampled_from(
        [
            "nan",
            "-nan",
            "inf",
            "-1",
            "-1.00",
            "1e400",
            "0",
            "0.0",
            "",
            "1_000",
            "10^6bits/s",
            "Trans/s",
            "MBytes/s",
            "furlongs/s",
            "1.5",
            "3.",
            ".5",
            "1e-320",
            "UDP",
            "TCP",
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.text(max_size=12),
)
INTERIM_KEYS = ["INTERIM_RESULT", "UNITS", "INTERVAL", "ENDING"]
LINE = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(KEYS), VALUES),
    st.builds(
        lambda k, i, v: f"NETPERF_{k}[{i}]={v}",
        st.sampled_from(INTERIM_KEYS),
        st.integers(min_value=0, max_value=4),
        VALUES,
    ),
    st.sampled_from(
        [
            "MIGRATED TCP STREAM TEST from ::0 (::) port 0 AF_INET6 to ::1 () port 0 AF_INET6",
            "establish control: are you sure there is a netserver listening on x at port 1?",
            "\tgetaddrinfo returned -2 Name or service not known",
            "",
            "   ",
        ]
    ),
    st.text(max_size=60),
)


def _run(lines: list[str]) -> list[ParseEvent]:
    try:
        evs = list(parse_keyval(lines))
    except (ParseError, ImpossibleValue):  # malformed, or a figure that is no number
        return []
    assert_sane(evs)
    return evs


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=30))
def test_arbitrary_text_raises_only_parse_error(lines: list[str]) -> None:
    _run(lines)


@settings(max_examples=600, deadline=None)
@given(st.lists(LINE, max_size=40))
def test_arbitrary_keyval_lines_raise_only_parse_error(lines: list[str]) -> None:
    _run(lines)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            VALUES, st.sampled_from(["10^6bits/s", "Trans/s", "GBytes/s", "10^0bits/s"]), VALUES
        ),
        max_size=8,
    )
)
def test_well_formed_interims_never_yield_bad_numbers(blocks: list[tuple[str, str, str]]) -> None:
    lines: list[str] = []
    for i, (result, units, interval) in enumerate(blocks):
        lines += [
            f"NETPERF_INTERIM_RESULT[{i}]={result}",
            f"NETPERF_UNITS[{i}]={units}",
            f"NETPERF_INTERVAL[{i}]={interval}",
            f"NETPERF_ENDING[{i}]=1795260414.302",
        ]
    _run(lines)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(KEYVAL_FIXTURES), st.data())
def test_truncated_or_mangled_captures(name: str, data: st.DataObject) -> None:
    lines = (NETPERF / name).read_text(encoding="utf-8").splitlines()
    cut = data.draw(st.integers(min_value=0, max_value=len(lines)))
    mangled = lines[:cut]
    if mangled:
        at = data.draw(st.integers(min_value=0, max_value=len(mangled) - 1))
        mangled[at] = mangled[at][: data.draw(st.integers(min_value=0, max_value=40))]
    _run(mangled)


def test_malformed_structure_raises_parse_error() -> None:
    with pytest.raises(ParseError):
        list(parse_keyval(["THROUGHPUT=1", "THROUGHPUT_UNITS=furlongs/s"]))
    with pytest.raises(ParseError):  # an interim block without its interval
        list(
            parse_keyval(
                ["NETPERF_INTERIM_RESULT[0]=1", "NETPERF_UNITS[0]=Trans/s", "NETPERF_ENDING[0]=1"]
            )
        )
    with pytest.raises(ParseError):  # interim results go back in time
        list(
            parse_keyval(
                [
                    "NETPERF_INTERIM_RESULT[1]=1",
                    "NETPERF_UNITS[1]=Trans/s",
                    "NETPERF_INTERVAL[1]=1",
                    "NETPERF_ENDING[1]=1",
                    "NETPERF_INTERIM_RESULT[0]=1",
                ]
            )
        )


def test_readme_names_every_fixture() -> None:
    readme = (NETPERF / "README.md").read_text(encoding="utf-8")
    for path in NETPERF.iterdir():
        if path.name != "README.md":
            assert path.name in readme, path.name
    assert "/home/" not in readme and "/tmp/" not in readme


def _with_zero_interval_block(name: str, result: str = "9120.44") -> list[str]:
    """A real capture with an interim block whose interval rounds to 0.000 put after its
    second block (numbered on, as netperf numbers them), the later ones renumbered."""
    lines = (NETPERF / name).read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    for line in lines:
        for index in range(9, 1, -1):  # blocks 2.. move one up
            line = line.replace(f"[{index}]=", f"[{index + 1}]=")
        out.append(line)
    at = max(i for i, line in enumerate(out) if line.startswith("NETPERF_ENDING[1]=")) + 1
    block = [
        f"NETPERF_INTERIM_RESULT[2]={result}",
        "NETPERF_UNITS[2]=10^6bits/s",
        "NETPERF_INTERVAL[2]=0.000",
        "NETPERF_ENDING[2]=1795260415.334",
    ]
    return out[:at] + block + out[at:]


@pytest.mark.parametrize("result", ["9120.44", "0.00", "inf"])
def test_zero_length_interim_interval_adds_no_sample(result: str) -> None:
    """netperf -D -1 may print a block whose NETPERF_INTERVAL rounds to 0.000: it is left out,
    and the run's figures are still netperf's own final result."""
    plain = events("keyval_tcp_stream_v4.txt")
    evs = list(parse_keyval(_with_zero_interval_block("keyval_tcp_stream_v4.txt", result)))
    assert [(s.start_s, s.end_s, s.sent_bps) for s in samples(evs)] == [
        (s.start_s, s.end_s, s.sent_bps) for s in samples(plain)
    ]
    assert summary(evs) == summary(plain)
    assert not failures(evs)
