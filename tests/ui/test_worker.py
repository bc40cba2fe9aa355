"""The window's one worker: a generator's events on the GUI thread in order, Stop between events
(or at once where the work said how), a LinkLabError's sentence as the failure, its thread ended."""

from __future__ import annotations

import threading
from collections.abc import Generator

import pytest
from pytestqt.qtbot import QtBot

from app.domain.errors import LinkLabError
from app.ui.common.worker import Stop, Worker, once, wire


def _collect(worker: Worker) -> tuple[list[object], list[str], list[bool]]:
    events: list[object] = []
    failures: list[str] = []
    ended: list[bool] = []
    worker.yielded.connect(events.append)
    worker.failed.connect(failures.append)
    worker.finished.connect(lambda: ended.append(True))
    return events, failures, ended


def _threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_events_arrive_in_order_on_the_gui_thread_then_finished(qtbot: QtBot) -> None:
    seen_on: list[threading.Thread] = []

    def work(_stop: Stop) -> Generator[int, None, None]:
        yield from (1, 2, 3)

    worker = Worker(work, "test-order")
    events, failures, ended = _collect(worker)
    worker.yielded.connect(lambda _e: seen_on.append(threading.current_thread()))
    worker.start()
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)
    assert events == [1, 2, 3]
    assert failures == []
    assert set(seen_on) == {threading.main_thread()}
    assert _threads("test-order") == []


def test_stop_is_seen_between_events_and_the_generator_tidies(qtbot: QtBot) -> None:
    gate = threading.Event()
    tidied = threading.Event()
    produced: list[int] = []

    def work(_stop: Stop) -> Generator[int, None, None]:
        try:
            for n in range(1_000):
                produced.append(n)
                yield n
                gate.wait(10)  # the second event waits until the test has asked to stop
        finally:
            tidied.set()

    worker = Worker(work, "test-stop")
    events, failures, ended = _collect(worker)
    worker.start()
    qtbot.waitUntil(lambda: events == [0], timeout=10_000)
    worker.stop()
    gate.set()
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)
    assert tidied.is_set()
    assert produced == [0, 1]  # the event in hand when Stop was seen, and no more
    assert events == [0, 1]
    assert failures == []
    assert _threads("test-stop") == []


def test_a_work_that_ends_itself_gets_stop_at_once_and_its_last_events_come(
    qtbot: QtBot,
) -> None:
    release = threading.Event()
    ran_in: list[str] = []

    def work(stop: Stop) -> Generator[str, None, None]:
        given = stop.later()
        ran_in.append(threading.current_thread().name)
        yield "started"
        given(release.set)  # what ends the blocking call below
        release.wait(10)
        yield "stopped"
        yield "result"

    worker = Worker(work, "test-ends-itself")
    events, failures, ended = _collect(worker)
    worker.start()
    qtbot.waitUntil(lambda: events == ["started"], timeout=10_000)
    worker.stop()
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)
    assert events == ["started", "stopped", "result"]
    assert failures == []
    assert ran_in == ["test-ends-itself"]  # the worker's one thread: no second one
    assert _threads("test-ends-itself") == []


def test_a_linklab_error_reaches_failed_with_its_sentence(qtbot: QtBot) -> None:
    def fails() -> None:
        raise LinkLabError("The peer refused: start its server, then try again.")

    worker = Worker(once(fails), "test-fails")
    events, failures, ended = _collect(worker)
    worker.start()
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)
    assert events == []
    assert failures == ["The peer refused: start its server, then try again."]
    assert _threads("test-fails") == []


def test_an_error_raised_between_events_reaches_failed(qtbot: QtBot) -> None:
    def work(_stop: Stop) -> Generator[int, None, None]:
        yield 1
        raise LinkLabError("The database is read-only.")

    worker = Worker(work, "test-fails-midway")
    events, failures, ended = _collect(worker)
    worker.start()
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)
    assert events == [1]
    assert failures == ["The database is read-only."]


def test_wait_ends_with_the_thread(qtbot: QtBot) -> None:
    release = threading.Event()

    def slow() -> int:
        release.wait(10)
        return 7

    worker = Worker(once(slow), "test-wait")
    _events, _failures, ended = _collect(worker)
    worker.start()
    assert worker.running
    assert not worker.wait(50)
    release.set()
    assert worker.wait(10_000)
    assert not worker.running
    qtbot.waitUntil(lambda: ended == [True], timeout=10_000)


def test_wire_hands_each_event_to_the_handler_of_its_type(qtbot: QtBot) -> None:
    class Base:
        pass

    class Derived(Base):
        pass

    got: list[str] = []

    def work(_stop: Stop) -> Generator[object, None, None]:
        yield from (1, "text", Derived(), 2.5)

    worker = Worker(work, "test-wire")
    wire(
        worker,
        {int: lambda e: got.append(f"int {e}"), Base: lambda _e: got.append("base")},
        failed=lambda s: got.append(f"failed {s}"),
        finished=lambda: got.append("finished"),
    )
    worker.start()
    qtbot.waitUntil(lambda: got[-1:] == ["finished"], timeout=10_000)
    assert got == ["int 1", "base", "finished"]  # no handler for str or float: not its concern


@pytest.mark.parametrize("asked_first", [True, False])
def test_a_stop_given_later_is_called_whenever_stop_is_asked(asked_first: bool) -> None:
    stop = Stop()
    calls: list[str] = []
    given = stop.later()
    if asked_first:
        stop.request()
        given(lambda: calls.append("stopped"))
    else:
        given(lambda: calls.append("stopped"))
        stop.request()
    assert calls == ["stopped"]
    assert stop.ends_itself
