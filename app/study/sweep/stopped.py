"""What Stop kept of a study, in words: the runs it had finished, and each run it cut short,
kept unfinished with the intervals it measured (a run that had measured none is not kept);
and how long it took to end the engines running."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.units import counted


def stopped_words(finished: int, cut_short: Sequence[int]) -> str:
    """A sentence after "Session … stopped:": finished, the session's finished runs (ok or
    failed); cut_short, the intervals each run Stop ended had measured (the store keeps one
    with any, unfinished, for Resume to measure again)."""
    if finished:
        said = f"{counted(finished, 'finished run')} {'is' if finished == 1 else 'are'} saved"
    else:
        said = "no run had finished"
    kept = [n for n in cut_short if n > 0]
    empty = len(cut_short) - len(kept)
    if len(kept) == 1:
        said += (
            f", and the run in progress is kept unfinished with the "
            f"{counted(kept[0], 'interval')} it measured"
        )
    elif kept:
        figures = f"{', '.join(f'{n:,}' for n in kept[:-1])} and {kept[-1]:,}"
        runs = counted(len(kept), "run in progress", "runs in progress")
        said += f", and the {runs} are kept unfinished with the {figures} intervals they measured"
    if empty:
        which = "other " if kept else ""
        runs = "run in progress had" if empty == 1 else "runs in progress had"
        them = "it" if empty == 1 else "them"
        count = "" if empty == 1 else f"{empty} "
        said += f"; the {count}{which}{runs} measured no interval yet, so nothing of {them} is kept"
    if kept:
        again = f"{'it' if len(kept) == 1 else 'them'} again"
    else:
        again = "the runs left"
    return f"{said}; Resume in Sessions measures {again}."


def duration_words(seconds: float) -> str:
    """A short span as a person reads it, never 0 for something: 'under 1 ms', '42 ms',
    '1.27 s'."""
    milliseconds = round(seconds * 1000)
    if milliseconds < 1:
        return "under 1 ms"
    if milliseconds < 1000:
        return f"{milliseconds} ms"
    return f"{seconds:.2f} s"


def stop_took_words(asked_at: float, engines_ended_at: float | None) -> str:
    """How long Stop took, from when it was pressed (time.monotonic()) to when the last engine
    it ended was seen ended: 'The engine ended 42 ms after Stop.'; without an engine running
    as it came, that it came between runs."""
    if engines_ended_at is None:
        return "Stopped between runs: no engine was running."
    return f"The engine ended {duration_words(max(0.0, engines_ended_at - asked_at))} after Stop."
