"""The overhead model against real iperf3 runs over a tc tbf rate limit between namespaces.

tbf counts each packet as the kernel holds it (the 14-byte Ethernet header plus the IP
packet; for a GSO packet, the headers of every segment it will become), so the model's
prediction with a frame overhead of 14 is what the shaped link can carry. The limit sits on
the sender's own interface: a full queue holds the sender back rather than dropping, so UDP
sent faster than the link arrives at the link's rate, without loss.
"""

from __future__ import annotations

import json

import pytest

from app.analysis.overhead import LinkInputs, expected
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium
from tests.testbed import Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

# Low enough for two busy cores to send 256-byte datagrams at the link's pace (~17 000/s).
RATE_MBIT = 40.0
TC_FRAME_OVERHEAD = 14


BED = Bed(rate_mbit=RATE_MBIT, server_port=5201)


@pytest.mark.parametrize("length", [256, 1408])
@pytest.mark.parametrize("ip", [IpVersion.V4, IpVersion.V6])
@pytest.mark.parametrize("protocol", [Protocol.TCP, Protocol.UDP])
def test_measured_goodput_matches_the_model(
    bed: TestBed, protocol: Protocol, ip: IpVersion, length: int
) -> None:
    spec = LinkInputs(
        RATE_MBIT * 1e6, Medium.ETHERNET, ip, protocol, length, frame_overhead=TC_FRAME_OVERHEAD
    )
    predicted = expected(spec).expected_bps
    args = ["--peer", TestBed.B4 if ip is IpVersion.V4 else TestBed.B6, "--ip", str(int(ip))]
    args += ["--protocol", protocol.value, "--length", str(length)]
    args += ["--duration", "2", "--omit", "1"]
    if protocol is Protocol.UDP:
        # Twice the link rate: the shaper, not iperf3's pacing, sets the pace.
        args += ["--bitrate", f"{2 * RATE_MBIT:g}M"]
    done = bed.measure(*args)
    assert done.returncode == 0, done.stderr
    flow = json.loads(done.stdout)["flows"][0]
    measured = flow["receiver_bps"]
    print(
        f"{protocol.value} IPv{int(ip)} {length} B: measured {measured / 1e6:.3f} Mbit/s, "
        f"predicted {predicted / 1e6:.3f} Mbit/s ({100 * (measured / predicted - 1):+.2f} %)"
    )
    assert measured == pytest.approx(predicted, rel=0.03)
