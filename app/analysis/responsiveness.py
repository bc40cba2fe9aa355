"""Responsiveness arithmetic from draft-ietf-ippm-responsiveness: round trips per minute
(RPM), its rating, and the trimmed mean the draft aggregates working round trips with."""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum

from app.engine.latency.probe_results import TRIM_SLOWEST, trimmed_mean

__all__ = ["TRIM_SLOWEST", "Rating", "rating", "responsiveness", "rpm", "trimmed_mean"]


class Rating(StrEnum):
    POOR = "Poor"
    FAIR = "Fair"
    GOOD = "Good"
    EXCELLENT = "Excellent"


# Lower bounds in RPM, best first: Poor < 300 <= Fair < 1000 <= Good <= 6000 < Excellent.
_FAIR_FROM = 300.0
_GOOD_FROM = 1000.0
_EXCELLENT_ABOVE = 6000.0


def rpm(working_rtt_ms: float) -> float:
    """Round trips per minute: 60000 / the working round-trip time in milliseconds."""
    if not math.isfinite(working_rtt_ms) or working_rtt_ms <= 0:
        raise ValueError(f"a round-trip time must be a positive number of ms, not {working_rtt_ms}")
    return 60_000.0 / working_rtt_ms


def rating(rpm_value: float) -> Rating:
    if rpm_value > _EXCELLENT_ABOVE:
        return Rating.EXCELLENT
    if rpm_value >= _GOOD_FROM:
        return Rating.GOOD
    if rpm_value >= _FAIR_FROM:
        return Rating.FAIR
    return Rating.POOR


def responsiveness(working_rtts_ms: Iterable[float]) -> tuple[float, Rating] | None:
    """RPM and its rating from working round trips (None when there are none)."""
    working = trimmed_mean(working_rtts_ms)
    if working is None or working <= 0:
        return None
    value = rpm(working)
    return value, rating(value)
