"""Random sessions as a study leaves them (a Hypothesis strategy): a plan with conditions
stated, detected or unknown, the runs it ran in order (figures near every threshold a
sentence turns on, failures among them) and the status the runner gives them, for the
sentence tests to read back (tests/sentences.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from app.analysis.expectation import expected_at
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Engine, Medium, Metric, Peer, Plan, Security
from app.domain.records import RunMetrics, RunRecord, SessionRecord, SessionStatus, utc_now
from app.study.sweep.outcomes import gave_up, verdict
from app.study.sweep.run_to_end import STOPPED

SIZES = (128, 384, 640, 896, 1152, 1408)
#: Shares of the expected goodput near the sentences' thresholds (25 %, 90 %, 99 %, 101 %),
#: and far below (a rate stated far above the path: 0.3 %, 0.04 %).
SHARES = (
    0.0004,
    0.003,
    0.0096,
    0.2,
    0.2496,
    0.251,
    0.5,
    0.8996,
    0.9,
    0.95,
    0.9896,
    1.0,
    1.013,
    1.05,
    1.2,
)
FAILURE = "The peer 198.18.0.2 stopped answering during the run: check the link."


@dataclass(frozen=True)
class Made:
    session: SessionRecord
    runs: list[RunRecord]


def _plan(draw: st.DrawFn) -> Plan:
    protocols = draw(
        st.sampled_from([(Protocol.TCP,), (Protocol.UDP,), (Protocol.TCP, Protocol.UDP)])
    )
    engine = draw(st.sampled_from([Engine.IPERF3, Engine.NETPERF]))
    rate = draw(st.sampled_from([None, 10e6, 31e6, 100e6, 144.4e6, 1e9, 10e9]))
    conditions = Conditions(
        security=draw(
            st.sampled_from([Security.UNKNOWN, Security.OPEN, Security.WPA2, Security.WPA2])
        ),
        # Mostly a medium the expected goodput can be worked out for.
        medium=draw(st.sampled_from([Medium.ETHERNET] * 3 + [Medium.UNKNOWN, Medium.N, Medium.AC])),
        link_rate_bps=None if rate is None else int(rate),
        link_rate_detected_by=draw(st.sampled_from(["", "wlan0's Wi-Fi PHY rate"])) if rate else "",
        frame_overhead=draw(st.sampled_from([None, None, 14])),
        medium_detected_by=draw(st.sampled_from(["", "eth0, a wired adapter"])),
    )
    udp = Protocol.UDP in protocols
    return Plan(
        peer=draw(
            st.sampled_from([Peer("198.18.0.2", host6="fd00::2")] * 3 + [Peer.this_computer()])
        ),
        engine=engine,
        protocols=protocols,
        ip_versions=draw(st.sampled_from([(IpVersion.V4,), (IpVersion.V4, IpVersion.V6)])),
        values=tuple(sorted(draw(st.sets(st.sampled_from(SIZES), min_size=1, max_size=3)))),
        repetitions=draw(st.integers(1, 4)),
        bitrate_bps=draw(st.sampled_from([0, 0, 5_000_000, 50_000_000])) if udp else 0,
        metrics=(Metric.THROUGHPUT, Metric.LATENCY)
        if draw(st.booleans())
        else (Metric.THROUGHPUT,),
        max_consecutive_failures=draw(st.integers(2, 4)),
        conditions=conditions,
    )


def _metrics(draw: st.DrawFn, plan: Plan, run: RunRecord, cpus: int) -> RunMetrics:
    expected = expected_at(plan, run.key.series, run.value)
    base = expected.expected_bps if expected is not None else 100e6
    throughput = base * draw(st.sampled_from(SHARES))
    host = draw(st.one_of(st.none(), st.floats(0, 100)))
    own = (
        None
        if host is None
        else draw(st.one_of(st.none(), st.floats(0, 1).map(lambda f: f * host)))
    )
    peak = None if host is None else draw(st.floats(host, 100))
    engine_own = draw(st.one_of(st.none(), st.floats(0, 150)))  # iperf3's own, netperf's all
    if plan.engine is Engine.NETPERF and engine_own is not None:
        engine_own = min(engine_own, 100.0)
    udp = run.key.protocol is Protocol.UDP
    idle = draw(st.floats(0.2, 5))
    latency = Metric.LATENCY in plan.metrics
    return RunMetrics(
        throughput_bps=throughput,
        loss_pct=draw(st.sampled_from([0.0, 4.96, 5.04, 5.06, 12.0, 40.0])) if udp else None,
        cpu_local_pct=engine_own,
        cpu_remote_pct=draw(st.one_of(st.none(), st.floats(0, 120))),
        cpu_host_mean_pct=host,
        cpu_host_peak_pct=peak,
        cpu_linklab_mean_pct=own,
        latency_idle_ms=idle if latency else None,
        latency_ms=idle * draw(st.floats(1, 60)) if latency else None,
    )


@st.composite
def sessions(draw: st.DrawFn) -> Made:
    """A session and its runs, in the order they ran, with the status they make."""
    plan = _plan(draw)
    cpus = draw(st.integers(1, 8))
    runs: list[RunRecord] = []
    in_a_row = 0
    keys = plan.run_keys()
    stopped_at = draw(st.one_of(st.none(), st.none(), st.none(), st.integers(0, len(keys))))
    status, reason = SessionStatus.COMPLETED, ""
    for number, key in enumerate(keys, start=1):
        if stopped_at is not None and number > stopped_at:
            status, reason = SessionStatus.STOPPED, STOPPED
            break
        ok = draw(st.booleans()) or draw(st.booleans())
        run = RunRecord(
            id=number,
            session_id="s1",
            key=key,
            value=float(plan.values[key.value_index]),
            ok=ok,
            error_kind="" if ok else "peer-vanished",
            error="" if ok else FAILURE,
            attempts=1,
            started_at=utc_now(),
            ended_at=utc_now(),
            elapsed_s=10.0,
            engine=plan.engine.value,
            engine_version="1",
            argv=(),
            metrics=RunMetrics(),
        )
        if ok:
            run = replace(run, metrics=_metrics(draw, plan, run, cpus))
        runs.append(run)
        in_a_row = 0 if ok else in_a_row + 1
        left = len(keys) - number
        if left and in_a_row >= plan.max_consecutive_failures:  # as the runner gives up
            status, reason = gave_up(runs, in_a_row, FAILURE)
            break
    else:
        status, reason = verdict(runs)
    environment = {
        "os_name": "Debian GNU/Linux 12 (bookworm)",
        "cpu_count": cpus,
        **draw(
            st.sampled_from(
                [
                    {"interface": "eth0", "interface_speed_mbps": 1000, "wifi": None},
                    {"interface": "wlan0", "wifi": {"ssid": "lab", "phy_rate_mbps": 300.0}},
                    {},
                ]
            )
        ),
    }
    session = SessionRecord(
        id="s1",
        name="random",
        peer_host=plan.peer.host,
        plan=plan,
        environment=environment,
        status=status,
        status_reason=reason,
        created_at=utc_now(),
        started_at=utc_now(),
        ended_at=utc_now(),
        app_version="test",
        total_runs=plan.total_runs,
        runs_done=len(runs),
        runs_failed=sum(not r.ok for r in runs),
    )
    return Made(session, runs)
