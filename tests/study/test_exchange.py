"""Session exchange files for real: export, import into another SQLite file, and hostile or
damaged files refused with one sentence while the database stays exactly as it was."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import app.store.imported as imported_module
import app.study.files.exchange as exchange_module
from app.domain.errors import BadOption
from app.domain.net import Flow, Protocol
from app.domain.plan import Conditions, Engine, Metric, Peer, Plan, RunKind
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.results import FlowSummary, Sample
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import (
    EXCHANGE_VERSION,
    MAX_NAME,
    ImportResult,
    export_sessions,
    import_file,
    import_sessions,
    read_exchange,
    write_exchange,
)
from tests.conftest import linklab

Doc = dict[str, Any]


def _plans() -> tuple[Plan, Plan]:
    wifi = Conditions().with_tags({"room": "B12", "group": "3"})
    first = Plan(
        peer=Peer("127.0.0.1", {"iperf3": 5202}),
        protocols=(Protocol.TCP, Protocol.UDP),
        values=(128, 1408),
        repetitions=2,
        duration_s=1,
        name="Lab 1 — Wi-Fi",
        conditions=replace(wifi, notes="line one\nline two"),
    )
    second = Plan(
        peer=Peer("peer.example.org"),
        engine=Engine.NETPERF,
        metrics=(Metric.THROUGHPUT, Metric.RTT),
        values=(256,),
        repetitions=2,
        duration_s=2,
        name="Lab 2",
    )
    return first, second


def _make_source(path: Path) -> list[str]:
    """Two sessions with ok and failed runs, samples on both flows; the second left running."""
    first, second = _plans()
    with Database(path) as db:
        store = SessionStore(db)
        ids = [store.create_session(first, {"os_name": "Test OS", "cpu": {"cores": 8}})]
        for n, key in enumerate(first.run_keys()[:5]):
            bps = 9.5e8 + n * 1e6
            store.add_run(
                ids[0],
                key,
                float(first.values[key.value_index]),
                metrics=RunMetrics(
                    throughput_bps=bps,
                    sender_bps=bps * 1.01,
                    receiver_bps=bps,
                    bytes_sent=118_750_000 + n,
                    retransmits=n,
                    jitter_ms=0.125 if key.protocol is Protocol.UDP else None,
                    lost_packets=3,
                    packets=1000,
                    loss_pct=0.3,
                    cpu_host_mean_pct=12.5,
                ),
                samples=[
                    Sample(0.0, 0.5, Flow.UP, sent_bps=bps * 3, received_bps=bps, bytes=59_375_000),
                    Sample(0.5, 1.0, Flow.DOWN, received_bps=bps / 2, cwnd_bytes=64_000),
                ],
                started_at=utc_now(),
                elapsed_s=1.02,
                engine="iperf3",
                engine_version="3.16",
                argv=["iperf3", "-c", "127.0.0.1", "-J"],
                raw_output='{"start": {}}\n',
                flows=[FlowSummary(Flow.UP, sender_bps=bps * 1.01, receiver_bps=bps)],
            )
        store.add_run(
            ids[0],
            first.run_keys()[5],
            128.0,
            metrics=None,
            samples=[Sample(0.0, 0.5, sent_bps=1.0)],
            error_kind="ConnectionRefused",
            error="The peer refused the connection: start a server.",
            attempts=2,
            started_at=utc_now(),
            elapsed_s=None,
            engine="iperf3",
            argv=["iperf3", "-c", "127.0.0.1"],
        )
        store.finish(ids[0], SessionStatus.COMPLETED)
        ids.append(store.create_session(second))
        for key in second.run_keys()[:3]:
            store.add_run(
                ids[1],
                key,
                256.0,
                metrics=RunMetrics(rtt_mean_ms=0.2, transactions_per_s=5000.0)
                if key.kind is RunKind.RR
                else RunMetrics(throughput_bps=5e8, cpu_local_pct=30.0, cpu_remote_pct=25.0),
                started_at=utc_now(),
                elapsed_s=2.0,
                engine="netperf",
                argv=["netperf", "-H", "peer.example.org"],
            )
    return ids


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "student.sqlite3"
    return path, _make_source(path)


@pytest.fixture
def document(source: tuple[Path, list[str]]) -> Doc:
    path, ids = source
    with Database(path, readonly=True) as db:
        return export_sessions(SessionStore(db), ids)


def _import(file: Path, db_path: Path) -> ImportResult:
    """As `linklab import` does it: the whole file read and checked as it streams, then the
    database opened and its sessions added."""
    return import_file(file, db_path, lambda: Database(db_path))


def _import_whole(file: Path, db_path: Path) -> ImportResult:
    """The file read whole into memory, then added in one transaction."""
    exchange = read_exchange(file)
    with Database(db_path) as db:
        return import_sessions(SessionStore(db), exchange)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _counts(path: Path) -> tuple[int, ...]:
    with Database(path, readonly=True) as db:
        tables = ("peers", "sessions", "runs", "samples")
        return tuple(db.query(f"SELECT count(*) AS n FROM {t}")[0]["n"] for t in tables)


def _flows(db: Database, session_id: str) -> list[str]:
    rows = db.query("SELECT flows_json FROM runs WHERE session_id = ? ORDER BY id", (session_id,))
    return [r["flows_json"] for r in rows]


def test_round_trip_keeps_every_run_metric_and_sample(
    source: tuple[Path, list[str]], document: Doc, tmp_path: Path
) -> None:
    src_path, ids = source
    file = tmp_path / "hand-in.linklab.json"
    write_exchange(file, document)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    target = tmp_path / "instructor.sqlite3"
    result = _import(file, target)
    assert result == ImportResult(imported=ids, skipped=[])
    with Database(src_path, readonly=True) as a, Database(target, readonly=True) as b:
        old, new = SessionStore(a), SessionStore(b)
        for sid in ids:
            before, after = old.get(sid), new.get(sid)
            if before.status is SessionStatus.RUNNING:  # no process here runs it
                reason = "It was still running when it was exported."
                before = replace(before, status=SessionStatus.INTERRUPTED, status_reason=reason)
            assert after == before
            runs_before, runs_after = old.runs(sid, with_raw=True), new.runs(sid, with_raw=True)
            assert len(runs_after) == len(runs_before) > 0
            for run_a, run_b in zip(runs_before, runs_after, strict=True):
                assert replace(run_b, id=run_a.id) == run_a
                assert new.samples(run_b.id) == old.samples(run_a.id)
            assert _flows(b, sid) == _flows(a, sid)
            assert sid != ids[0] or any(r.error_kind == "ConnectionRefused" for r in runs_after)


def test_second_import_skips_both_and_duplicates_nothing(document: Doc, target: Path) -> None:
    file = target.parent / "in.json"
    write_exchange(file, document)
    first = _import(file, target)
    counts = _counts(target)
    again = _import(file, target)
    assert again == ImportResult(imported=[], skipped=first.imported)
    assert _counts(target) == counts


def test_import_is_all_or_nothing(
    document: Doc, target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = target.parent / "in.json"
    write_exchange(file, document)
    counts, real_insert = _counts(target), imported_module.upsert_peer
    calls: list[object] = []

    def failing_second(*args: Any) -> int:
        calls.append(args)
        if len(calls) == 2:
            raise RuntimeError("disk pulled out")
        return real_insert(*args)

    # The second session's first write fails: the first one is not kept either.
    monkeypatch.setattr(imported_module, "upsert_peer", failing_second)
    with pytest.raises(RuntimeError):
        _import(file, target)
    assert _counts(target) == counts


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    """A mutation that sets one field, addressed like 'sessions.0.runs.3.metrics.packets'."""

    def mutate(doc: Doc) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _duplicate_run(doc: Doc) -> None:
    runs = doc["sessions"][0]["runs"]
    runs.append(copy.deepcopy(runs[0]))


def _drop_started(doc: Doc) -> None:
    del doc["sessions"][0]["runs"][0]["started_at"]


def _same_session_twice(doc: Doc) -> None:
    doc["sessions"].append(copy.deepcopy(doc["sessions"][0]))


BAD_DOCUMENTS: dict[str, tuple[Callable[[Doc], None], str]] = {
    "wrong format name": (_set("format", "other-app"), "not a LinkLab session file"),
    "newer format_version": (
        _set("format_version", EXCHANGE_VERSION + 1),
        "written by a newer LinkLab",
    ),
    "format_version as text": (
        _set("format_version", "1"),
        "format_version '1', which is not a whole number",
    ),
    "no sessions": (_set("sessions", []), "lists no sessions"),
    "path as session id": (_set("sessions.0.id", "../../etc"), "32 hexadecimal"),
    "SQL in session id": (
        _set("sessions.0.id", "x'; DROP TABLE sessions; --"),
        "32 hexadecimal",
    ),
    "negative metric": (
        _set("sessions.0.runs.0.metrics.throughput_bps", -1.0),
        "whose run 1 has a negative throughput_bps",
    ),
    "NaN as a string": (
        _set("sessions.0.runs.1.metrics.rtt_mean_ms", "NaN"),
        "whose run 2 has rtt_mean_ms 'NaN', which is not a number",
    ),
    "fractional integer metric": (
        _set("sessions.0.runs.0.metrics.packets", 2.5),
        "packets 2.5, which is not a whole number",
    ),
    "huge integer": (_set("sessions.0.runs.0.metrics.bytes_sent", 10**30), "too large"),
    "value_index out of range": (
        _set("sessions.0.runs.0.value_index", 2),
        "value_index 2, outside 0..1",
    ),
    "repetition out of range": (
        _set("sessions.0.runs.0.repetition", 0),
        "repetition 0, outside 1..2",
    ),
    "ip version not in plan": (_set("sessions.0.runs.0.ip_version", 6), "its plan omits"),
    "kind not in plan": (_set("sessions.0.runs.0.kind", "rr"), "its plan omits"),
    "duplicated run key": (_duplicate_run, "repeats the key of an earlier run"),
    "hostile host": (
        _set("sessions.0.plan.peer.host", "-R; rm -rf /"),
        "plan LinkLab cannot use",
    ),
    "peer name not text": (_set("sessions.0.plan.peer.name", {"a": 1}), "peer's name"),
    "early stop of the wrong kind": (
        _set("sessions.0.plan.early_stop", {"relative_ci": "x", "min_runs": 2}),
        "plan LinkLab cannot use",
    ),
    "plan not an object": (_set("sessions.0.plan", [1, 2]), "plan LinkLab cannot use"),
    "unknown status": (_set("sessions.0.status", "hacked"), "status 'hacked'"),
    "run status unknown": (_set("sessions.0.runs.0.status", "maybe"), "status 'maybe'"),
    "bad time": (_set("sessions.0.created_at", "yesterday"), "which is not an ISO 8601 time"),
    "argv not strings": (_set("sessions.0.runs.0.argv", ["iperf3", 5]), "argv"),
    "argv a string": (
        _set("sessions.0.runs.0.argv", "rm -rf /"),
        "argv 'rm -rf /', which is not a list",
    ),
    "missing field": (_drop_started, "whose run 1 has no started_at"),
    "boolean as a number": (_set("sessions.0.runs.0.attempts", True), "attempts"),
    "environment not an object": (_set("sessions.0.environment", "x"), "environment"),
    "deep environment": (
        _set("sessions.0.environment", {"a": json.loads("[" * 200 + "]" * 200)}),
        "environment",
    ),
    "sample with unknown flow": (
        _set("sessions.0.runs.0.samples.0.flow", "sideways"),
        "run 1, sample 1, has flow 'sideways'",
    ),
    "negative sample time": (_set("sessions.0.runs.0.samples.1.start_s", -1), "start_s"),
    "sample flow a list": (  # found by make fuzz: a list cannot be looked up by name
        _set("sessions.0.runs.0.samples.0.flow", ["up"]),
        "run 1, sample 1, has flow ['up']",
    ),
    "lone surrogate in a name": (
        _set("sessions.0.name", "bad \ud800 name"),
        "broken characters (lone surrogates)",
    ),
    "same session twice": (_same_session_twice, "twice"),
    "second session bad, first good": (
        _set("sessions.1.runs.0.metrics.throughput_bps", -5),
        "Lab 2",
    ),
}

BAD_TEXTS: dict[str, tuple[Callable[[str], bytes], str]] = {
    "not JSON": (lambda _: b"this is a lab report, not JSON", "not valid JSON"),
    "truncated JSON": (lambda t: t[: len(t) // 2].encode(), "not valid JSON"),
    "empty file": (lambda _: b"", "not valid JSON"),
    "a JSON array": (lambda _: b"[1, 2, 3]", "not a LinkLab session file"),
    "not UTF-8": (lambda t: b"\xff\xfe" + t.encode("utf-16-le"), "not UTF-8"),
    "100000 levels deep": (
        lambda _: b'{"format": "linklab-sessions", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nests deeper",
    ),
    "NaN literal": (
        lambda t: t.replace('"throughput_bps": 950000000.0', '"throughput_bps": NaN').encode(),
        "NaN, Infinity or a number too long",
    ),
    "infinite number": (
        lambda t: t.replace('"throughput_bps": 950000000.0', '"throughput_bps": 1e999').encode(),
        "NaN, Infinity or a number too long",
    ),
    "integer of 5000 digits": (
        lambda t: t.replace('"retransmits": 0', '"retransmits": ' + "9" * 5000).encode(),
        "number too long",
    ),
}


def _assert_refused(file: Path, target: Path, expected: str) -> None:
    digest, counts = _digest(target), _counts(target)
    with pytest.raises(BadOption) as caught:
        _import(file, target)
    sentence = caught.value.sentence
    assert expected in sentence, sentence
    assert "\n" not in sentence and sentence.endswith(".") and len(sentence) < 600
    assert _digest(target) == digest and _counts(target) == counts


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """An instructor's database that already holds one session of its own."""
    path = tmp_path / "instructor.sqlite3"
    with Database(path) as db:
        SessionStore(db).create_session(Plan(peer=Peer("10.0.0.7"), name="mine"))
    return path


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_documents_change_nothing(case: str, document: Doc, target: Path) -> None:
    mutate, expected = BAD_DOCUMENTS[case]
    mutate(document)
    file = target.parent / "bad.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    _assert_refused(file, target, expected)


@pytest.mark.parametrize("case", sorted(BAD_TEXTS))
def test_bad_texts_change_nothing(case: str, document: Doc, target: Path) -> None:
    make, expected = BAD_TEXTS[case]
    file = target.parent / "bad.json"
    file.write_bytes(make(json.dumps(document)))
    _assert_refused(file, target, expected)


def test_sentence_names_session_and_field(document: Doc, target: Path) -> None:
    _set("sessions.0.runs.4.metrics.throughput_bps", -1)(document)
    file = target.parent / "bad.json"
    file.write_text(json.dumps(document))
    sid = document["sessions"][0]["id"][:8]
    with pytest.raises(BadOption, match=rf"^The file holds session {sid} \('Lab 1 — Wi-Fi'\) "):
        _import(file, target)


def test_hostile_looking_names_are_stored_verbatim(document: Doc, target: Path) -> None:
    names = ["<script>alert(1)</script>", '=HYPERLINK("http://x")', "a\nb\x00c'; DROP TABLE x;--"]
    for session, name in zip(document["sessions"], names, strict=False):
        session["name"] = name
    document["sessions"][0]["status_reason"] = names[2]
    file = target.parent / "names.json"
    write_exchange(file, document)
    result = _import(file, target)
    with Database(target, readonly=True) as db:
        store = SessionStore(db)
        assert [store.get(sid).name for sid in result.imported] == names[:2]
        assert store.get(result.imported[0]).status_reason == names[2]


def test_ten_million_character_name_is_cut_to_the_cap(document: Doc, target: Path) -> None:
    # Decision: capped, as rename and the plan codec cap names, rather than refused.
    document["sessions"][0]["name"] = "x" * 10_000_000
    file = target.parent / "long.json"
    write_exchange(file, document)
    result = _import(file, target)
    with Database(target, readonly=True) as db:
        assert SessionStore(db).get(result.imported[0]).name == "x" * MAX_NAME


def test_a_session_file_has_no_size_cap(
    document: Doc, target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-in is read whole, within its cap; a session file streams, at any size."""
    monkeypatch.setattr(exchange_module, "MAX_FILE_BYTES", 1000)
    file = target.parent / "big.json"
    write_exchange(file, document)
    assert file.stat().st_size > 1000
    assert len(_import(file, target).imported) == 2
    with pytest.raises(BadOption, match="larger than"):
        exchange_module.load_json_file(file)


def test_whole_and_streamed_imports_store_the_same(document: Doc, tmp_path: Path) -> None:
    file = tmp_path / "both.linklab"
    write_exchange(file, document)
    streamed, whole = tmp_path / "streamed.sqlite3", tmp_path / "whole.sqlite3"
    assert _import(file, streamed) == _import_whole(file, whole)
    with Database(streamed, readonly=True) as a, Database(whole, readonly=True) as b:
        first, second = SessionStore(a), SessionStore(b)
        for session in first.list_sessions():
            assert second.get(session.id) == session
            runs = first.runs(session.id, with_raw=True)
            assert [(r.key, r.metrics, r.raw_output) for r in runs] == [
                (r.key, r.metrics, r.raw_output) for r in second.runs(session.id, with_raw=True)
            ]
            for run, other in zip(runs, second.runs(session.id), strict=True):
                assert first.samples(run.id) == second.samples(other.id)
            assert _flows(a, session.id) == _flows(b, session.id)


def test_cli_export_then_import(source: tuple[Path, list[str]], target: Path) -> None:
    src_path, ids = source
    file = target.parent / "both.json"
    out = linklab(
        "export", ids[0][:8], ids[1], "--format", "json", "--out", str(file), "--db", str(src_path)
    )
    assert out.returncode == 0, out.stderr
    csv_two = linklab("export", *ids, "--format", "csv", "--out", "-", "--db", str(src_path))
    assert csv_two.returncode == 2 and "CSV export takes one session" in csv_two.stderr
    done = linklab("import", str(file), "--db", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Imported 2 sessions.\n"
    again = linklab("import", str(file), "--db", str(target))
    shown = ", ".join(i[:8] for i in ids)
    assert again.stdout == f"Imported 0 sessions, skipped 2 already present ({shown}).\n"
    as_json = linklab("import", str(file), "--db", str(target), "--json")
    assert json.loads(as_json.stdout) == {"imported": [], "skipped": ids}


def test_cli_bad_file_exits_2_with_one_line(document: Doc, target: Path) -> None:
    _set("sessions.1.runs.0.value_index", 7)(document)
    file = target.parent / "bad.json"
    file.write_text(json.dumps(document))
    digest = _digest(target)
    done = linklab("import", str(file), "--db", str(target))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("linklab: The file holds session ")
    assert "value_index 7, outside 0..0" in done.stderr
    assert _digest(target) == digest


def test_a_format_1_file_still_imports_its_samples_rates(document: Doc, target: Path) -> None:
    """Format 1 held one bits_per_second per sample, the client's count: an upload's is the
    sender's rate, a download's what was received. Imported, each lands in its own field."""
    document["format_version"] = 1
    for session in document["sessions"]:
        for run in session["runs"]:
            for sample in run["samples"]:
                sent, received = sample.pop("sent_bps"), sample.pop("received_bps")
                sample["bits_per_second"] = sent if sample["flow"] == "up" else received
    file = target.parent / "old.linklab"
    file.write_text(json.dumps(document), encoding="utf-8")
    _import(file, target)
    with Database(target, readonly=True) as db:
        store = SessionStore(db)
        sid = document["sessions"][0]["id"]
        run = next(r for r in store.runs(sid) if r.ok)
        up, down = store.samples(run.id)
        assert up.flow is Flow.UP
        assert up.received_bps is None and up.sent_bps is not None
        assert down.flow is Flow.DOWN and down.sent_bps is None and down.received_bps is not None
    exported = document["sessions"][0]["runs"][0]["samples"]
    assert up.sent_bps == exported[0]["bits_per_second"]
    assert down.received_bps == exported[1]["bits_per_second"]
