"""When a responsiveness test's load is saturated: the ramp of parallel flows, the stability
rule over its steps, and the confidence of a result.

The rule, after draft-ietf-ippm-responsiveness (which looks at moving averages of goodput and
of the working round trip): each step of the ramp holds one number of flows for a few seconds
and yields one goodput figure (the mean over the step, its warm-up left out) and one latency
figure (the trimmed mean of the step's probes). The load counts as stable once the last
STABLE_STEPS steps agree: every goodput within GOODPUT_TOLERANCE of their mean (more flows no
longer add goodput: the link is full), and every latency within LATENCY_TOLERANCE of their mean
or LATENCY_FLOOR_MS, whichever is larger (the queue no longer grows; a fraction of a
millisecond of jitter on a fast link changes no rating).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

STABLE_STEPS = 3
GOODPUT_TOLERANCE = 0.05
LATENCY_TOLERANCE = 0.05
LATENCY_FLOOR_MS = 1.0
#: Answered probes in the stable window below which a result is less certain.
PROBES_FOR_HIGH = 30
PROBES_FOR_MEDIUM = 10


class Confidence(StrEnum):
    HIGH = "High"
    MEDIUM = "Medium"
    LOW = "Low"


@dataclass(frozen=True)
class Stability:
    goodput: bool
    latency: bool

    @property
    def stable(self) -> bool:
        return self.goodput and self.latency


def next_flows(current: int, most: int) -> int:
    """One more flow per step, never more than `most` (then the ramp holds there)."""
    if current < 1 or most < 1:
        raise ValueError("a load has at least one flow")
    return min(current + 1, most)


def agree(values: Sequence[float | None], tolerance: float, floor: float = 0.0) -> bool:
    """Whether the last STABLE_STEPS values are all known and each lies within
    max(tolerance x their mean, floor) of their mean."""
    window = list(values[-STABLE_STEPS:])
    if len(window) < STABLE_STEPS or any(v is None for v in window):
        return False
    known = [float(v) for v in window if v is not None]
    mean = sum(known) / len(known)
    allowed = max(tolerance * abs(mean), floor)
    return all(abs(v - mean) <= allowed for v in known)


def stability(goodputs: Sequence[float | None], latencies: Sequence[float | None]) -> Stability:
    """The rule above, over the steps so far (oldest first)."""
    return Stability(
        goodput=agree(goodputs, GOODPUT_TOLERANCE),
        latency=agree(latencies, LATENCY_TOLERANCE, LATENCY_FLOOR_MS),
    )


def confidence(verdict: Stability, answered_probes: int) -> Confidence:
    """High: goodput and latency both stable, with enough probes answered in the window.
    Medium: one of the two stable (or both, on few probes). Low: neither stable within the
    phase's time limit, or too few probes to say (the draft reports a test that did not
    converge with lower confidence)."""
    if answered_probes < PROBES_FOR_MEDIUM or not (verdict.goodput or verdict.latency):
        return Confidence.LOW
    if verdict.stable and answered_probes >= PROBES_FOR_HIGH:
        return Confidence.HIGH
    return Confidence.MEDIUM
