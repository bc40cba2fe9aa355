"""Stand-in engines for tests: small scripts that print a recorded output the way an engine does.

A fake engine is a Python script with a shebang, started through LinkLab's own process module
like a real engine, so that line reading, parsing and classification are all exercised. It can
answer a version probe, refuse options an old release lacks, and replay a different recording
for different arguments. `replay()` runs one recorded output through LinkLab's run path.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.domain.net import Direction, Flow, Protocol
from app.domain.results import Derivation, EngineMessage, RunResult, Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.netperf.driver import start_netperf
from app.engine.drivers.netperf.options import NetperfOptions, NetperfTest
from app.engine.errors import EngineError
from app.engine.process.tools import Capability, Source, Tool, parse_version
from app.engine.readings.run import EngineRun
from tests.conftest import ROOT_DIR

#: Real engine outputs gathered beside the repository (see their MANIFEST.md); read in place.
#: LINKLAB_ENGINE_OUTPUTS names the folder for a checkout kept elsewhere (a git worktree).
ENGINE_OUTPUTS = Path(
    os.environ.get("LINKLAB_ENGINE_OUTPUTS") or ROOT_DIR.parent / "shared" / "engine-outputs"
)

_SCRIPT = """#!{python}
import json, sys, time
config = json.loads(open({config!r}, encoding="utf-8").read())
args = sys.argv[1:]
for probe in config["probes"]:
    if all(word in args for word in probe["args"]):
        sys.stdout.write(probe["stdout"])
        sys.exit(0)
for option in config["rejects"]:
    if option in args:
        sys.stderr.write(config["reject_text"].format(option=option))
        sys.exit(1)
for replay in config["replays"]:
    if all(word in args for word in replay["args"]):
        break
else:
    sys.stderr.write("no recording for these arguments: " + " ".join(args) + "\\n")
    sys.exit(2)
time.sleep(replay["delay_s"])
with open(replay["path"], "rb") as recording:
    for line in recording:
        to_stderr = any(line.startswith(p.encode()) for p in replay["stderr_prefixes"])
        stream = sys.stderr if to_stderr else sys.stdout
        stream.buffer.write(line)
        stream.flush()
sys.exit(replay["exit_code"])
"""


@dataclass(frozen=True)
class Replay:
    """One recording and when to print it: when every word of `args` is in the argv."""

    path: Path
    args: tuple[str, ...] = ()
    exit_code: int = 0
    #: Lines the engine writes to stderr rather than stdout (iperf3's "iperf3: error - ...").
    stderr_prefixes: tuple[str, ...] = ()
    delay_s: float = 0.0


@dataclass(frozen=True)
class Probe:
    """A fixed answer (stdout, exit 0) when every word of `args` is in the argv."""

    args: tuple[str, ...]
    stdout: str


@dataclass(frozen=True)
class FakeEngine:
    replays: Sequence[Replay]
    probes: Sequence[Probe] = ()
    rejects: Sequence[str] = ()
    reject_text: str = "{option}: unknown option\n"
    name: str = "iperf3"

    def write(self, folder: Path) -> Path:
        """The executable script (folder/<name>); needs a POSIX system to run by its path."""
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / f"{self.name}.json"
        config.write_text(
            json.dumps(
                {
                    "probes": [{"args": list(p.args), "stdout": p.stdout} for p in self.probes],
                    "rejects": list(self.rejects),
                    "reject_text": self.reject_text,
                    "replays": [
                        {
                            "path": str(r.path),
                            "args": list(r.args),
                            "exit_code": r.exit_code,
                            "stderr_prefixes": list(r.stderr_prefixes),
                            "delay_s": r.delay_s,
                        }
                        for r in self.replays
                    ],
                }
            ),
            encoding="utf-8",
        )
        script = folder / self.name
        script.write_text(_SCRIPT.format(python=sys.executable, config=str(config)))
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        return script


#: iperf3 3.1.3's --help (src/iperf_locale.c at tag 3.1.3), the lines the probe reads.
HELP_3_1_3 = """Usage: iperf [-s|-c host] [options]
       iperf [-h|--help] [-v|--version]

Server or Client:
  -p, --port      #         server port to listen on/connect to
  -f, --format    [kmgKMG]  format to report: Kbits, Mbits, KBytes, MBytes
  -V, --verbose             more detailed output
  -J, --json                output in JSON format
  --logfile f               send output to a log file
Server specific:
  -1, --one-off             handle one client connection then exit
Client specific:
  -u, --udp                 use UDP rather than TCP
  -b, --bandwidth #[KMG][/#] target bandwidth in bits/sec (0 for unlimited)
  -R, --reverse             run in reverse mode (server sends, client receives)
  -O, --omit N              omit the first n seconds
  --get-server-output       get results from server
"""
#: What getopt and iperf3 3.1.3 print for an option it does not know (then exit 1).
UNKNOWN_OPTION = "iperf3: unrecognized option '{option}'\n" + HELP_3_1_3


def iperf3_3_1_3(folder: Path) -> str:
    """A stand-in iperf3 3.1.3: its probes, its refusals and its real -J output."""
    return str(
        FakeEngine(
            [
                Replay(ENGINE_OUTPUTS / "local-iperf3-3.1.3-linux-udp.json", ("-u", "-J")),
                Replay(ENGINE_OUTPUTS / "iperf3-3.1.3-linux-tcp.json", ("-J",)),
            ],
            probes=[Probe(("--version",), "iperf 3.1.3\n"), Probe(("--help",), HELP_3_1_3)],
            rejects=["--connect-timeout", "--forceflush", "--json-stream", "--bidir"],
            reject_text=UNKNOWN_OPTION,
        ).write(folder)
    )


HOST = "192.0.2.10"  # TEST-NET-1: never looked up, never reached
LOSS = Derivation.LOSS_COUNTERS
K, M, G = 1e3, 1e6, 1e9  # iperf3's text rates are powers of 1000
KIB, MIB, GIB = 1024, 1024**2, 1024**3  # and its transfer sizes powers of 1024


@dataclass(frozen=True)
class Case:
    """One recorded output and what LinkLab must make of it.

    `figures` maps "up.<field>" / "down.<field>" (FlowSummary), "<field>" (RunSummary, or
    RunResult.throughput_bps), "first.<flow>.<field>" (the first counted Sample of that flow;
    of all that arrived when the run failed) and "samples" (how many) to the value the output
    states. The flows named are the only ones there may be.
    """

    file: str
    version: str
    figures: dict[str, Any] = field(default_factory=dict)
    error: type[EngineError] | None = None
    says: str = ""  # a phrase of the error's sentence, or of a note in the run's log
    exit_code: int | None = None  # default: 1 with an error, else 0
    live: bool = True  # netperf: built with demo mode

    @property
    def engine(self) -> str:
        return "netperf" if "netperf" in self.file else "iperf3"


@dataclass
class Outcome:
    run: EngineRun
    events: list[Sample | EngineMessage]
    result: RunResult | None = None
    error: EngineError | None = None

    @property
    def notes(self) -> str:
        return "\n".join(e.text for e in self.events if isinstance(e, EngineMessage))

    def samples(self) -> list[Sample]:
        if self.result is not None:
            return list(self.result.samples)
        return [e for e in self.events if isinstance(e, Sample)]


def replay(case: Case, folder: Path, source: Path | None = None) -> Outcome:
    """Run the output's engine as LinkLab would, with a stand-in that prints the recording
    (or `source`, a variant of it made by the test: other line ends, cut short, ...)."""
    path = ENGINE_OUTPUTS / case.file
    printed = source or path
    code = case.exit_code if case.exit_code is not None else (1 if case.error else 0)
    # The engines' own error lines go to stderr: iperf3's in text mode, netperf's perror().
    prefix = "netperf: " if case.engine == "netperf" else "iperf3: "
    to_stderr = (prefix,) if path.suffix == ".txt" else ()
    script = FakeEngine(
        [Replay(printed, exit_code=code, stderr_prefixes=to_stderr)], name=case.engine
    )
    executable = str(script.write(folder))
    version = parse_version(case.version)
    if case.engine == "netperf":
        caps = frozenset({Capability.INTERIM}) if case.live else frozenset()
        tool = Tool("netperf", executable, version, case.version, Source.SETTINGS, caps)
        test = NetperfTest.UDP_STREAM if "udp_stream" in case.file else NetperfTest.TCP_STREAM
        if "_rr" in case.file:
            test = NetperfTest.TCP_RR
        run = start_netperf(tool, NetperfOptions(host=HOST, test=test))
    else:
        # The capability that makes iperf3.py choose the output mode this recording was
        # made in: --json-stream, live text, or (neither, not live) one -J document.
        mode = {".jsonl": Capability.JSON_STREAM, ".txt": Capability.FORCEFLUSH}
        caps = frozenset({Capability.BIDIR, Capability.CONNECT_TIMEOUT}) | (
            {mode[path.suffix]} if path.suffix in mode else set()
        )
        tool = Tool("iperf3", executable, version, case.version, Source.SETTINGS, caps)
        direction = Direction.UP
        if "reverse" in case.file:
            direction = Direction.DOWN
        elif "bidir" in case.file:
            direction = Direction.BIDIR
        opts = Iperf3Options(
            host=HOST,
            protocol=Protocol.UDP if "udp" in case.file else Protocol.TCP,
            direction=direction,
            parallel=128 if "P128" in case.file else 1,
        )
        if "authfail" in case.file:  # made by a client that gave credentials
            tool = replace(tool, capabilities=tool.capabilities | {Capability.AUTHENTICATION})
            opts = replace(opts, username="u", password="p", rsa_public_key_path="server.pem")
        run = start_iperf3(tool, opts, live=path.suffix != ".json")
    outcome = Outcome(run, [])
    try:
        for event in run.events():
            outcome.events.append(event)
        outcome.result = run.result
    except EngineError as err:
        outcome.error = err
    return outcome


def figure(outcome: Outcome, key: str) -> Any:
    parts = key.split(".")
    if parts[0] == "samples":
        return len(outcome.samples())
    if parts[0] == "first":
        flow = Flow(parts[1])
        first = next(s for s in outcome.samples() if s.flow is flow)
        return getattr(first, parts[2])
    assert outcome.result is not None
    if len(parts) == 2:
        found = outcome.result.flow(Flow(parts[0]))
        assert found is not None, f"no {parts[0]} flow"
        return getattr(found, parts[1])
    if key == "throughput_bps":
        return outcome.result.throughput_bps
    return getattr(outcome.result.summary, key)
