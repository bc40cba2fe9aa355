"""This computer's own servers for a study (app.engine.serving.loopback, on the loopback
only): the plan with the ports they listen on, a sentence when the port asked for was in use,
and where a study against this computer learns that LinkLab started one of them again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.domain.plan import Metric, Plan
from app.engine.drivers.driver import EngineDriver
from app.engine.process.servers import ServerRestarted
from app.engine.serving.loopback import LoopbackServers


def serve_plan(
    loopback: LoopbackServers, driver: EngineDriver, plan: Plan
) -> tuple[Plan, list[str]]:
    """Start (or keep) the servers the plan needs; the plan with their ports, and why a
    port is not the one asked for."""
    asked = driver.peer_port(plan.peer)
    port = loopback.ensure(
        plan.engine,
        asked,
        ip_versions=plan.ip_versions,
        count=driver.server_count(plan),
        echo_port=plan.peer.echo_port if Metric.LATENCY in plan.metrics else None,
        interval_s=plan.interval_s,
    )
    peer = plan.peer.with_port(driver.port_key, port)
    echo_port = loopback.echo_port
    if Metric.LATENCY in plan.metrics and echo_port is not None:
        peer = replace(peer, echo_port=echo_port)
    moved = loopback.moved(plan.engine, asked)
    return replace(plan, peer=peer), [moved] if moved else []


class RestartNotices:
    """The restarts of this computer's servers that a study has not said yet, as sentences
    (those from before the study count as said)."""

    def __init__(self, loopback: LoopbackServers) -> None:
        self._loopback = loopback
        self._said: set[ServerRestarted] = set(loopback.restarts())

    def __call__(self) -> list[str]:
        new = [r for r in self._loopback.restarts() if r not in self._said]
        self._said.update(new)
        return [restart.sentence for restart in new]


def restarts_of(loopback: LoopbackServers | None, plan: Plan) -> Callable[[], list[str]] | None:
    """Where a study against this computer learns that LinkLab restarted its server."""
    here = loopback if plan.peer.is_this_computer else None
    return RestartNotices(here) if here is not None else None
