"""The responsiveness ramp and its stability rule: pure functions, no network."""

from __future__ import annotations

import pytest

from app.analysis.saturation import (
    LATENCY_FLOOR_MS,
    PROBES_FOR_HIGH,
    PROBES_FOR_MEDIUM,
    Confidence,
    Stability,
    agree,
    confidence,
    next_flows,
    stability,
)


def test_the_ramp_adds_one_flow_a_step_and_holds_at_the_most() -> None:
    flows = [1]
    for _ in range(20):
        flows.append(next_flows(flows[-1], 16))
    assert flows[:5] == [1, 2, 3, 4, 5]
    assert max(flows) == 16 and flows[-1] == 16
    assert next_flows(3, 3) == 3
    with pytest.raises(ValueError):
        next_flows(0, 16)


def test_three_steps_within_five_percent_agree() -> None:
    assert agree([50.0, 100.0, 102.0, 98.0], 0.05)
    assert not agree([100.0, 102.0], 0.05)  # fewer than three steps: not yet
    assert not agree([100.0, 110.0, 90.0], 0.05)
    assert not agree([100.0, None, 100.0], 0.05)  # a step without a figure


def test_a_growing_goodput_is_not_stable_a_flat_one_is() -> None:
    rising = [10e6, 20e6, 30e6, 40e6]
    flat = [40e6, 94e6, 95e6, 96e6]
    latency = [200.0, 480.0, 490.0, 495.0]
    assert stability(rising, latency) == Stability(goodput=False, latency=True)
    assert stability(flat, latency).stable


def test_latency_jitter_below_a_millisecond_counts_as_stable() -> None:
    """0.2 ms against 0.3 ms is 40 % apart, and no rating tells them apart."""
    fast = [0.20, 0.30, 0.25]
    assert max(fast) - min(fast) < LATENCY_FLOOR_MS
    assert stability([1e9, 1e9, 1e9], fast).latency
    assert not stability([1e9, 1e9, 1e9], [100.0, 200.0, 300.0]).latency


def test_confidence_follows_stability_and_probe_count() -> None:
    both = Stability(True, True)
    assert confidence(both, PROBES_FOR_HIGH) is Confidence.HIGH
    assert confidence(both, PROBES_FOR_HIGH - 1) is Confidence.MEDIUM
    assert confidence(Stability(True, False), 500) is Confidence.MEDIUM
    assert confidence(Stability(False, True), 500) is Confidence.MEDIUM
    assert confidence(Stability(False, False), 500) is Confidence.LOW
    assert confidence(both, PROBES_FOR_MEDIUM - 1) is Confidence.LOW
