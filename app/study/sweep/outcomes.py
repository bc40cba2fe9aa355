"""How a study copes with failures and how its end is worded: the retries of a transient
error (exponential backoff with full jitter), the outcome of a study, and its status from its
runs (completed, completed with failures, failed; stopped after failures in a row), a failed
run giving way to the one that measured its key again."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from app.domain.errors import LinkLabError
from app.domain.records import RunRecord, SessionStatus
from app.domain.units import counted
from app.engine.errors import ClosedBeforeStart, ConnectionRefused, ServerBusy
from app.study.sweep.events import AfterFailure


@dataclass(frozen=True)
class RetryPolicy:
    """Transient errors (busy server, a refusal) are retried after exponential backoff with
    full jitter: a wait drawn evenly between 0 and a ceiling that doubles with each attempt,
    up to a cap, so that clients waiting on one busy server do not come back all at once."""

    attempts: int = 4  # the first try and up to three retries
    first_wait_s: float = 1.0
    max_wait_s: float = 8.0

    def ceiling(self, attempt: int) -> float:
        """The longest wait after the given (1-based) failed attempt."""
        doublings = min(max(attempt - 1, 0), 64)  # beyond that the cap holds anyway
        return float(min(self.max_wait_s, self.first_wait_s * 2.0**doublings))

    def wait(self, attempt: int, draw: Callable[[], float] = random.random) -> float:
        """Seconds to wait after the given failed attempt; `draw` gives a number in [0, 1)."""
        return self.ceiling(attempt) * draw()


@dataclass(frozen=True)
class Outcome:
    session_id: str
    status: SessionStatus
    reason: str
    runs_done: int = 0  # finished runs of the session, ok or failed
    runs_failed: int = 0


def verdict(records: list[RunRecord], notes: str = "") -> tuple[SessionStatus, str]:
    """How a study that ran to its end ended: completed when every run was ok; failed when
    every run failed (with the first failure's sentence); completed, with the failures
    counted and the first one named, when some failed."""
    failed = [r for r in records if not r.ok]
    if not failed:
        return SessionStatus.COMPLETED, notes
    first = min(failed, key=lambda r: r.id).error
    if len(failed) == len(records):
        words = (
            f"The run failed: {first}"
            if len(records) == 1
            else f"All {counted(len(records), 'run')} failed. The first failure: {first}"
        )
        return SessionStatus.FAILED, f"{words} {notes}".strip()
    words = f"{len(failed)} of {counted(len(records), 'run')} failed. The first failure: {first}"
    return SessionStatus.COMPLETED, f"{words} {notes}".strip()


def measured_again(records: list[RunRecord], record: RunRecord) -> None:
    """A new run among the session's runs (in place): it takes the place of a failed run of
    its key (a resumed session measures those again; the store keeps that as an attempt)."""
    records[:] = [r for r in records if r.key != record.key]
    records.append(record)


#: What resuming a session that stopped after failures does, as its reason says it.
RESUME_WORDS = "Once that is fixed, Resume (in Sessions, or linklab resume) measures"


def gave_up(records: list[RunRecord], in_a_row: int, last_error: str) -> tuple[SessionStatus, str]:
    """How a study that stopped after too many failures in a row ended: failed when no run
    was good; completed (with failures, as the lists say) when some were, their count said."""
    good = sum(1 for r in records if r.ok)
    stopped = f"Stopped after {counted(in_a_row, 'failure')} in a row"
    # The error's own advice ends "…, then run again" for one run; the session's runs are
    # kept, and resuming it measures only the rest: that is what is said instead.
    error = last_error.removesuffix(", then run again.")
    error += "." if error != last_error else ""
    if not good:
        return (
            SessionStatus.FAILED,
            f"{stopped}. The last error: {error} {RESUME_WORDS} the runs again.",
        )
    return (
        SessionStatus.COMPLETED,
        f"{stopped}, {good} of {counted(len(records), 'run')} good. The last error: "
        f"{error} {RESUME_WORDS} the failed and missing runs; the good ones are kept.",
    )


def after_failure(
    in_a_row: int, group_size: int, left: int, limit: int
) -> tuple[AfterFailure, int]:
    """What follows a run failing for good, with in_a_row failures in a row before its group
    of group_size runs (those of one moment), left runs to try after it, and limit failures
    in a row allowed; and the failures in a row it makes (counting the group's others as
    failed too: a group's runs end together)."""
    in_a_row += group_size
    if not left:
        return AfterFailure.LAST, in_a_row
    if in_a_row < limit:
        return AfterFailure.GOES_ON, in_a_row
    if group_size == 1:
        return AfterFailure.GIVES_UP, in_a_row
    return AfterFailure.UNSAID, in_a_row  # the group's other runs decide


def transient(err: LinkLabError) -> bool:
    if isinstance(err, ClosedBeforeStart):
        return True
    return isinstance(err, ServerBusy | ConnectionRefused) and err.transient
