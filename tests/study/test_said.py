"""Events said in any thread come out, in order, only in the thread that reads the sweep."""

from __future__ import annotations

import threading

from app.domain.records import SessionStatus
from app.study.sweep.events import SessionFinished
from app.study.sweep.said import Said


def _event(n: int) -> SessionFinished:
    return SessionFinished(str(n), SessionStatus.COMPLETED, "")


def test_other_threads_leave_their_events_for_the_reader() -> None:
    said = Said()
    said.read_here()
    said.say(_event(1))
    elsewhere: list[object] = []

    def other() -> None:
        said.say(_event(2))
        elsewhere.extend(said.so_far())  # not the reading thread: nothing comes out here

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert elsewhere == []
    said.wait(1.0)
    assert [e.session_id for e in said.so_far()] == ["1", "2"]
    assert list(said.so_far()) == []
