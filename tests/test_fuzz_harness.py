"""`make fuzz` in small: a smoke run of every reader through the harness (200 inputs each,
the count taken from LINKLAB_FUZZ_COUNT as `make fuzz` passes it), and the harness itself
shown to catch what it is there to catch: a reader that raises an error of another type than
LinkLab's own, and one that is too slow, each reported with the input that did it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.engine.drivers.netperf.parse import parse_keyval
from app.engine.errors import ParseError
from tests.conftest import ROOT_DIR
from tests.fuzz.__main__ import main
from tests.fuzz.harness import Target, fuzz
from tests.fuzz.targets import TARGETS, line_target


def test_every_reader_survives_a_smoke_run() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz"],
        cwd=ROOT_DIR,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "LINKLAB_FUZZ_COUNT": "200"},
        timeout=110,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for name in TARGETS:
        (line,) = [x for x in lines if x.startswith(f"{name}: ")]
        assert "200 inputs" in line and line.endswith(" 0 untyped, 0 slow"), line
    assert set(TARGETS) == {
        "iperf3-text", "iperf3-json", "iperf3-stream", "iperf2", "netperf",
        "exchange-file", "handin", "collector-request",
    }  # fmt: skip
    assert lines[-1] == f"fuzz: {200 * len(TARGETS)} inputs, only LinkLab's own errors, none slow"


def _naive_netperf(lines: list[str]) -> object:
    """A broken reader of netperf's keyval output: it trusts every line to be KEY=NUMBER."""
    found = list(parse_keyval(lines))
    return found, {line.split("=")[0]: float(line.split("=")[1]) for line in lines if line}


def test_an_error_of_another_type_is_reported_with_its_input(tmp_path: Path) -> None:
    broken = line_target("naive-netperf", "netperf", _naive_netperf)
    report = fuzz(broken, 200, findings_dir=tmp_path)
    assert not report.ok and report.untyped > 0 and report.count == 200
    first = report.findings[0]
    assert first.kind == "untyped" and first.error.startswith(("ValueError", "IndexError"))
    assert first.example  # the input that did it, to reproduce
    assert len(list(tmp_path.iterdir())) == len(report.findings)
    # Through the command line: the finding is printed and the exit status says so.
    assert main(["--count", "50", "--target", "naive-netperf"], {"naive-netperf": broken}) == 1


def _quadratic(lines: list[str]) -> object:
    """A reader that compares every line with every other: slow on a long input."""
    return sum(a == b for a in lines for b in lines)


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="the harness limits each input's CPU time with SIGPROF, which Windows lacks: "
    "make fuzz runs on Linux",
)
def test_a_slow_input_is_interrupted_and_reported() -> None:
    slow = line_target("quadratic", "iperf3-text", _quadratic)
    begun = time.monotonic()
    report = fuzz(slow, 400, limit_s=0.05, seed=3)
    assert report.slow > 0 and not report.ok
    assert report.findings[0].kind == "slow"
    # Each slow input was cut off at its limit, not read to its end.
    assert report.slowest_s < 1.0 and time.monotonic() - begun < 100


def test_the_projects_own_errors_are_not_findings() -> None:
    def refuse(_lines: list[str]) -> object:
        raise ParseError("netperf", "no summary")

    report = fuzz(line_target("refuses", "netperf", refuse), 100)
    assert report.ok and report.typed_errors == report.count == 100
    plain = Target("plain", lambda: [1], lambda _rng, x: x, lambda x: x)
    assert fuzz(plain, 10).ok


def test_an_integer_beyond_any_float_is_refused_with_a_sentence(tmp_path: Path) -> None:
    """What the fuzzer found: an integer too large for a float in a file's plan (a swept
    value, a port) ended the import with OverflowError instead of a sentence."""
    import copy
    import json

    import pytest

    from app.domain.errors import BadOption
    from app.study.files.exchange import read_exchange
    from app.study.lab.class_push import check_push
    from tests.fuzz.seeds import written

    for where in ("values", "peer"):
        document = copy.deepcopy(written().exchange)
        plan = document["sessions"][0]["plan"]
        if where == "values":
            plan["values"][0] = 10**400
        else:
            plan["peer"]["echo_port"] = -(10**400)
        path = tmp_path / f"{where}.linklab"
        path.write_text(json.dumps(document), encoding="utf-8")
        with pytest.raises(BadOption, match="ask for a new export"):
            read_exchange(path)
    push = copy.deepcopy(written().pushes[-1])
    push["sessions"]["sessions"][0]["plan"]["values"][0] = 10**400
    with pytest.raises(BadOption, match="stored nothing"):
        check_push(push)


def test_a_number_too_large_for_json_in_a_runs_flows_is_refused_with_a_sentence() -> None:
    """What the fuzzer found (make fuzz, the collector's requests): 1e999 inside a run's
    flows parses as infinity, and storing the flows as JSON text ended with ValueError."""
    import copy

    import pytest

    from app.domain.errors import BadOption
    from app.study.lab.class_push import check_push
    from tests.fuzz.seeds import written

    push = copy.deepcopy(written().pushes[-1])
    run = push["sessions"]["sessions"][0]["runs"][0]
    run["flows"] = [{"sender_bps": float("inf")}]
    with pytest.raises(BadOption, match="number too large for JSON"):
        check_push(push)


def test_a_stream_count_too_long_to_be_a_number_reads_as_one_stream() -> None:
    """What the fuzzer found: iperf3's "Starting Test" line with a stream count of 5000
    digits ended the text parser with ValueError (Python's limit on integer digits)."""
    from app.domain.results import RunSummary
    from app.engine.drivers.iperf3.parse_text import parse_text
    from tests.conftest import DATA

    lines = (DATA / "iperf3" / "text_tcp_v4.txt").read_text(encoding="utf-8").splitlines()
    starting = [n for n, line in enumerate(lines) if line.startswith("Starting Test")]
    assert starting, "the capture has its Starting Test line"
    for n in starting:
        lines[n] = "Starting Test: protocol: TCP, " + "9" * 5000 + " streams, 131072 byte blocks"
    events = list(parse_text(lines))
    assert any(isinstance(e, RunSummary) for e in events)


def test_the_collector_never_opens_a_file_a_request_names(tmp_path: Path) -> None:
    """What the fuzzer found: GET /v1/class?exercise=NAME looked for a file called NAME on the
    instructor's computer; a name too long for a path ended the request with OSError."""
    import io
    import json

    from app.store.class_backends import open_class_store
    from app.study.lab.collector_app import CollectorApp
    from app.study.lab.exercises import write_exercise
    from tests.classlive import short_exercise

    exercise_file = write_exercise(tmp_path / "lab.linklab-exercise", short_exercise())
    store = open_class_store(f"sqlite:{tmp_path / 'class.sqlite3'}")
    app = CollectorApp(store, "class-token-for-tests", "instructor-token-for-tests")
    try:
        for wanted in ("-" * 5000, str(exercise_file)):
            said: list[str] = []
            environ = {
                "REQUEST_METHOD": "GET",
                "PATH_INFO": "/v1/class",
                "QUERY_STRING": f"exercise={wanted}",
                "HTTP_AUTHORIZATION": "Bearer instructor-token-for-tests",
                "REMOTE_ADDR": "192.0.2.1",
                "wsgi.input": io.BytesIO(b""),
            }
            (body,) = app(environ, lambda status, _headers, said=said: said.append(status))
            # Nothing has arrived: the file beside the collector is not the class.
            assert said == ["404 Not Found"]
            assert "No student's work has arrived yet" in json.loads(body)["sentence"]
    finally:
        store.close()


def test_iperf2_lines_that_made_its_patterns_backtrack_are_read_at_once() -> None:
    """What the fuzzer found: "[" and 100,000 spaces (the header line's padding run long)
    took iperf 2's parser minutes (the spaces either side of an optional "*" tried every
    way); a bounceback figure of thousands of "/" split every way likewise."""
    from app.engine.drivers.iperf2.parse import parse_iperf2

    header = "[" + " " * 100_000 + "ID] Interval        Transfer    Bandwidth"
    report = "[  1] 0.00-1.00 sec  1 KBytes  8 Kbits/sec  1=" + "/" * 5_000
    inputs = [[header], [report], ["[ *" + " " * 100_000 + "x]"]]
    target = Target(
        "iperf2-lines", lambda: inputs, lambda _rng, x: x, lambda x: list(parse_iperf2(x))
    )
    result = fuzz(target, 6, limit_s=1.0, wall_limit_s=30.0)
    assert result.ok, [f.words() for f in result.findings]
