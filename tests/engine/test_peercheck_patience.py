"""The peer check's patience: what a server re-opening its listener answers for a moment (a
refusal, or a reset of a connection queued on the socket it closed) is tried again; anything
else is an answer at once."""

from __future__ import annotations

import socket

import pytest

from app.engine.lan import peercheck


def _answers(monkeypatch: pytest.MonkeyPatch, answers: list[tuple[bool, float, str]]) -> list[int]:
    calls: list[int] = []

    def handshake(address: object, family: int, timeout: float) -> tuple[bool, float, str]:
        calls.append(1)
        return answers[min(len(calls), len(answers)) - 1]

    monkeypatch.setattr(peercheck, "handshake", handshake)
    monkeypatch.setattr(peercheck.time, "sleep", lambda _s: None)
    return calls


@pytest.mark.parametrize("first", ["refused", peercheck.RESET])
def test_a_refusal_or_a_reset_is_tried_again(monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    calls = _answers(monkeypatch, [(False, 0.0, first), (True, 0.2, "")])
    ok, _ms, problem = peercheck.patient_handshake(("::1", 1), socket.AF_INET6, 1.0, 60.0)
    assert ok and problem == "" and len(calls) == 2


def test_no_answer_is_not_waited_for_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _answers(monkeypatch, [(False, 0.0, "no answer"), (True, 0.2, "")])
    ok, _ms, problem = peercheck.patient_handshake(("::1", 1), socket.AF_INET6, 1.0, 60.0)
    assert not ok and problem == "no answer" and len(calls) == 1
