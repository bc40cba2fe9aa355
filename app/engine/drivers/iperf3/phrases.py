"""What LinkLab's sentences outside the driver say of iperf3 (EngineDriver.phrases): the
options the form's tooltips and the command line's help cite, and what a feature needs."""

from __future__ import annotations

from collections.abc import Mapping

PHRASES: Mapping[str, str] = {
    # A plan setting's option, by the field's key (the form's tooltips, `linklab run --help`).
    "duration": "iperf3 -t",
    "omit": "iperf3 -O",
    "length": "iperf3 -l",
    "window": "iperf3 -w",
    "parallel": "iperf3 -P",
    "bitrate": "iperf3 -b",
    "congestion": "iperf3 -C",
    "interval": "iperf3 -i",
    # The Study page's choices.
    "direction": "upload (this computer sends) is iperf3's default, download (the peer sends) "
    "adds -R, both at once adds --bidir",
    "tcp": "iperf3 default",
    "udp": "iperf3 -u",
    "ip_version": "iperf3 -4 / -6",
    "throughput": "iperf3",
    "cpu": "iperf3 reports it",
    # The monitor's direction, and the peer the form measures against.
    "flow_direction": "iperf3 -R for download, --bidir for both",
    "client": "iperf3 -c HOST",
    # `linklab measure`'s options of iperf3's own.
    "username": "iperf3 authentication user",
    "password": "iperf3 password",
    "no_live": "iperf3 -J",
    # What needs which release, and how its server listens.
    "max_duration": "iperf3 3.20 or newer",
    "bidir": "iperf3 3.7 or newer",
    "ipv6_listen": "iperf3 -s listens on both unless bound to an IPv4 address",
}
