"""Sending a station's outbox (app/store/outbox.py) to the class's collector: a thread that
backs off exponentially, with jitter, while the collector cannot be reached or is busy.

A run is queued once and sent until acknowledged; a session's header and the answers are
queued again whenever they change. What the collector refuses (a replay, impossible figures)
is kept with its sentence and not sent again."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from app.store.outbox import Outbox, OutboxStatus
from app.study.lab.class_http import Answer, call

__all__ = ["Sender", "backoff"]

#: Backoff: the first wait after a failure, its growth and its cap (seconds).
BASE_S = 1.0
FACTOR = 2.0
CAP_S = 60.0
#: Answers after which sending again cannot help: the push itself is refused.
REFUSED = frozenset({400, 409, 411, 413, 422})


def backoff(failures: int, rng: random.Random | None = None, cap_s: float = CAP_S) -> float:
    """Seconds to wait after this many failures in a row: exponential, capped, with jitter
    (half fixed, half random) so that a class's stations do not all come back at once."""
    ceiling = min(cap_s, BASE_S * FACTOR ** max(0, min(failures, 64) - 1))
    return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)


class Sender:
    """Sends one collector's waiting pushes, oldest first, until each is acknowledged."""

    def __init__(
        self,
        outbox: Outbox,
        url: str,
        token: str,
        *,
        on_change: Callable[[OutboxStatus], None] | None = None,
        rng: random.Random | None = None,
        cap_s: float = CAP_S,
    ) -> None:
        self.outbox = outbox
        self.cap_s = cap_s
        self.url = url
        self.token = token
        self._on_change = on_change or (lambda _status: None)
        self._rng = rng or random.Random()  # noqa: S311 (jitter, not a secret)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._failures = 0
        self._problem = ""
        self._next_try: float | None = None
        self._thread = threading.Thread(target=self._loop, name="class-sender", daemon=True)

    def start(self) -> Sender:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something new is queued: send it now (unless backing off)."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=TIMEOUT_JOIN_S)

    def status(self) -> OutboxStatus:
        status = self.outbox.status(self.url)
        next_try = None
        if self._next_try is not None:
            next_try = max(0.0, self._next_try - time.monotonic())
        problem = self._problem if status.waiting else ""
        return OutboxStatus(
            status.waiting, status.sent, status.refused, problem, next_try, status.refusals
        )

    def flush(self, timeout: float) -> OutboxStatus:
        """Wait until nothing is waiting, or timeout seconds; the status then."""
        deadline = time.monotonic() + timeout
        self.wake()
        while time.monotonic() < deadline and self.outbox.status(self.url).waiting:
            time.sleep(0.05)
        return self.status()

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = self.send_waiting()
            self._on_change(self.status())
            self._wake.wait(wait)
            self._wake.clear()

    def send_waiting(self) -> float | None:
        """Send what waits; the seconds until the next try (None: nothing waits)."""
        if self._next_try is not None and time.monotonic() < self._next_try:
            return self._next_try - time.monotonic()
        self._next_try = None
        while not self._stop.is_set():
            batch = self.outbox.waiting(self.url)
            if not batch:
                return None
            for seq, body in batch:
                if self._stop.is_set():
                    return None
                delay = self._send(seq, body)
                if delay is not None:
                    self._next_try = time.monotonic() + delay
                    return delay
        return None

    def _send(self, seq: int, body: bytes) -> float | None:
        """One push; None when it is settled, else the seconds to wait before trying again."""
        answer = call(self.url, self.token, "/v1/push", body)
        if answer.status == 200:
            self.outbox.settle(seq, "sent")
            self._failures, self._problem = 0, ""
            self._on_change(self.status())
            return None
        if answer.status in REFUSED:
            self.outbox.settle(seq, "refused", answer.sentence)
            self._on_change(self.status())
            return None
        self._failures += 1
        self._problem = _why(answer)
        self.outbox.failed(seq, self._problem)
        delay = backoff(self._failures, self._rng, self.cap_s)
        retry_after = answer.headers.get("retry-after", "")
        if retry_after.isdigit():
            delay = max(delay, float(retry_after))
        return delay


TIMEOUT_JOIN_S = 20.0


def _why(answer: Answer) -> str:
    if not answer.reached:
        return f"{answer.sentence}."
    if answer.status == 401:
        return (
            "the collector refused the class token: check the token your instructor gave "
            "(the runs wait until it is right)."
        )
    return f"the collector answered {answer.status}: {answer.sentence}"
