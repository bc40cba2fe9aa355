"""The ports typed for a peer of the history, as the window's settings keep them: by engine,
and in the list an older LinkLab kept (its iperf3 and netserver ports, in that order)."""

from __future__ import annotations

import json

from app.ui.context import AppContext


def test_ports_kept_as_an_old_list_are_read_by_engine(context: AppContext) -> None:
    context.settings.setValue(
        "peers/ports",
        json.dumps({"old-lab": [5202, 12866], "new-lab": {"iperf2": 5002, "unknown": 1}}),
    )
    assert context.peer_ports() == {
        "old-lab": {"iperf3": 5202, "netperf": 12866},
        "new-lab": {"iperf2": 5002},
    }


def test_ports_other_than_the_defaults_are_remembered(context: AppContext) -> None:
    context.remember_peer("lab", {"iperf3": 5202, "netperf": context.default_port("netperf")})
    assert context.peer_ports() == {"lab": {"iperf3": 5202}}
