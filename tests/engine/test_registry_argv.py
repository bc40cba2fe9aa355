"""The command lines the registry's drivers build, held against golden lists: every engine,
protocol, direction, IP version and swept variable each driver takes, a run's own settings,
round trips, concurrent series, `linklab measure`'s single runs and the servers, each with a
program that has every capability and with one that has none (a refusal is recorded as its
error and sentence). A change to any argv fails here and must be meant: rewrite the golden
file with `python -m tests.engine.test_registry_argv` and read its diff.

The drivers are reached through the registry only, so that moving an engine's modules does
not touch this test; their programs are fixed Tools, so that the lists do not depend on which
engine versions this computer has."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from app.domain.errors import LinkLabError
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Metric, Peer, Plan, RunKey, Variable
from app.engine.drivers.options import SingleRun
from app.engine.drivers.registry import DRIVERS, EngineDriver, registry
from app.engine.process.servers import ServerOptions
from app.engine.process.tools import Source, Tool

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "argv" / "registry_argv.json"

PEER = Peer("192.0.2.10", host6="2001:db8::10")
#: Two values per swept variable (the monitor's one), each asking something of the engine.
VALUES: dict[Variable, tuple[int | str, ...]] = {
    Variable.LENGTH: (128, 1408),
    Variable.DURATION: (5, 20),
    Variable.WINDOW: (65536, 262144),
    Variable.PARALLEL: (1, 4),
    Variable.BITRATE: (1_000_000, 50_000_000),
    Variable.LOSS: (0, 2),
    Variable.CONGESTION: ("cubic", "reno"),
    Variable.DSCP: ("BK", "VO"),
    Variable.NONE: (0,),
}


class _Every(frozenset[str]):
    """Every capability there is, whatever the engine calls it."""

    def __contains__(self, _capability: object) -> bool:
        return True


PROFILES: dict[str, frozenset[str]] = {"every-capability": _Every(), "no-capability": frozenset()}


def _driver(engine_driver: EngineDriver, capabilities: frozenset[str]) -> EngineDriver:
    """A fresh driver of the same engine whose programs are fixed Tools at a fixed path."""
    fresh = type(engine_driver)()

    def program(name: str) -> Tool:
        return Tool(name, f"/engines/{name}", (9, 9, 9), f"{name} 9.9.9", Source.PATH, capabilities)

    fresh.program = program  # type: ignore[method-assign]
    return fresh


def _outcome(build: Callable[..., object], *args: object) -> object:
    """What build(*args) gives, or the refusal: its error's class and sentence."""
    try:
        return build(*args)
    except LinkLabError as err:
        return {"refused": type(err).__name__, "sentence": str(err)}


def _argv(driver: EngineDriver, plan: Plan, key: RunKey) -> list[str]:
    return driver.argv(plan, key)


def _measure(driver: EngineDriver, run: SingleRun) -> list[str]:
    return list(driver.single_run(run).argv)


def _served(driver: EngineDriver, options: ServerOptions) -> list[list[str]]:
    return [[server.label, *server.argv] for server in driver.servers(options)]


def _plans(driver: EngineDriver) -> Iterator[tuple[str, Plan]]:
    base = Plan(PEER, driver.engine, values=(1408,), repetitions=1, duration_s=10)
    for protocol in sorted(driver.protocols):
        for direction in sorted(driver.directions):
            for ip in IpVersion:
                plan = replace(base, protocols=(protocol,), ip_versions=(ip,), direction=direction)
                yield f"{protocol}/{direction}/v{int(ip)}", plan
                for variable in sorted(driver.sweeps):
                    values = VALUES[variable]
                    yield (
                        f"{protocol}/{direction}/v{int(ip)}/sweep-{variable}",
                        replace(plan, variable=variable, values=values),
                    )
    settings = {
        "window": 131072,
        "parallel": 3,
        "bitrate_bps": 20_000_000,
        "omit_s": 2,
        "congestion": "bbr",
        "dscp": "AF41",
        "length": 1000,
        "interval_s": 0.5,
    }
    for protocol in sorted(driver.protocols):
        yield f"{protocol}/settings", replace(base, protocols=(protocol,), **settings)  # type: ignore[arg-type]
    every_protocol = tuple(sorted(driver.protocols))
    both = (IpVersion.V4, IpVersion.V6)
    yield "series", replace(base, protocols=every_protocol, ip_versions=both)
    yield (
        "series/concurrent",
        replace(base, protocols=every_protocol, ip_versions=both, concurrent=True),
    )
    yield "ports", replace(base, peer=PEER.with_port(driver.port_key, 6001))
    for metric in sorted(driver.metrics):
        yield f"metric-{metric}", replace(base, metrics=(metric,))
    yield "rtt+throughput", replace(base, metrics=(Metric.THROUGHPUT, Metric.RTT))
    yield (
        "clocks-synchronised",
        replace(base, clocks_synchronised=True, metrics=(Metric.THROUGHPUT, Metric.RTT)),
    )
    for direction in sorted(driver.directions):
        yield (
            f"udp/{direction}/clocks-synchronised",
            replace(base, protocols=(Protocol.UDP,), direction=direction, clocks_synchronised=True),
        )


def _key(key: RunKey) -> str:
    return f"{key.protocol}/v{int(key.ip_version)}/value-{key.value_index}/{key.kind}"


def _single_runs() -> Iterator[tuple[str, SingleRun]]:
    run = SingleRun(host="192.0.2.10", port=7001)
    yield "default", run
    yield "udp", replace(run, protocol=Protocol.UDP, bitrate_bps=5_000_000, length=1200)
    yield "v6", replace(run, host="2001:db8::10", ip_version=IpVersion.V6)
    yield "v4", replace(run, ip_version=IpVersion.V4)
    for direction in Direction:
        yield f"direction-{direction}", replace(run, direction=direction)
    yield (
        "settings",
        replace(run, duration_s=7, omit_s=1, interval_s=0.5, window=65536, parallel=2, length=4096),
    )
    yield "bind", replace(run, bind_address="192.0.2.1", connect_timeout_ms=3000)
    yield (
        "authentication",
        replace(run, username="student", password="secret", rsa_public_key_path="/keys/pub.pem"),
    )
    for test in ("TCP_RR", "UDP_RR", "TCP_STREAM"):
        yield f"test-{test}", replace(run, test=test)
    yield "not-live", replace(run, live=False)


def _servers(driver: EngineDriver) -> Iterator[tuple[str, ServerOptions]]:
    for bind in ("127.0.0.1", "192.0.2.1"):
        yield f"exposed/{bind}", driver.exposed(7101, bind)
        yield f"loopback/{bind}", driver.loopback(7102, bind)
        yield f"loopback/{bind}/interval", driver.loopback(7103, bind, 0.5)


def record() -> dict[str, object]:
    """Every command line the registry's drivers build for the cases above."""
    found: dict[str, object] = {}
    for engine, engine_driver in registry().items():
        for profile, capabilities in PROFILES.items():
            driver = _driver(engine_driver, capabilities)
            where = f"{engine}/{profile}"
            for name, plan in _plans(driver):
                found[f"{where}/plan/{name}"] = [
                    {"run": _key(key), "argv": _outcome(_argv, driver, plan, key)}
                    for key in plan.run_keys()
                ]
            for name, run in _single_runs():
                found[f"{where}/measure/{name}"] = _outcome(_measure, driver, run)
            for name, options in _servers(driver):
                found[f"{where}/server/{name}"] = _outcome(_served, driver, options)
    return found


def _parsers() -> dict[str, object]:
    """Which parser reads a stored run back, by its argv (one per engine's output mode)."""
    found: dict[str, object] = {}
    argvs = [
        ["prog", "-c", "h", "--json-stream"],
        ["prog", "-c", "h", "-J"],
        ["prog", "-c", "h", "-f", "k"],
        ["prog", "-H", "h", "-D", "1"],
        ["prog", "-c", "h", "-e", "--bounceback"],
        ["prog", "-c", "h", "-e"],
    ]
    for engine, driver in DRIVERS.items():
        for argv in argvs:
            parser = driver.parser_for(argv)
            found[f"{engine}/{' '.join(argv[1:])}"] = (
                None if parser is None else getattr(parser, "__name__", type(parser).__name__)
            )
    return found


def everything() -> dict[str, object]:
    """The argv cases and the parsers, in one flat mapping by case ("argv:iperf3/…")."""
    parts = {"argv": record(), "parsers": _parsers()}
    return {
        f"{part}:{name}": value for part, cases in parts.items() for name, value in cases.items()
    }


def _golden() -> dict[str, object]:
    found: dict[str, object] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return found


def test_the_registry_builds_the_golden_command_lines() -> None:
    golden = _golden()
    now = json.loads(json.dumps(everything()))
    assert sorted(set(now) ^ set(golden)) == [], "a case came or went"
    changed = sorted(name for name in golden if golden[name] != now[name])
    assert not changed, f"{len(changed)} cases changed, the first: {changed[:5]}"


def test_the_cases_reach_every_engine_and_what_each_can_vary() -> None:
    golden = _golden()
    for engine, driver in DRIVERS.items():
        for variable in driver.sweeps:
            runs = golden[f"argv:{engine}/every-capability/plan/tcp/up/v4/sweep-{variable}"]
            assert isinstance(runs, list) and runs, variable
            assert all(isinstance(run["argv"], list) for run in runs), variable
        built = [
            run["argv"]
            for name, runs in golden.items()
            if name.startswith(f"argv:{engine}/every-capability/plan/") and isinstance(runs, list)
            for run in runs
        ]
        assert sum(isinstance(argv, list) for argv in built) > 50, engine


if __name__ == "__main__":
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    # One case a line, so that a change reads as a diff of the cases it touches.
    lines = [
        f"  {json.dumps(name)}: {json.dumps(value)}" for name, value in sorted(everything().items())
    ]
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    sys.exit(0)
