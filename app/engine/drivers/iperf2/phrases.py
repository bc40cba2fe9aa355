"""What LinkLab's sentences outside the driver say of iperf 2 (EngineDriver.phrases): the
options the form's tooltips cite, and who measures one-way delay with which option."""

from __future__ import annotations

from collections.abc import Mapping

PHRASES: Mapping[str, str] = {
    # A plan setting's option, by the field's key (the form's tooltips, `linklab run --help`).
    "congestion": "iperf -Z",
    # One-way delay, between clocks stated synchronised (the field, the metric).
    "owd_engine": "iperf 2",
    "owd_option": "--trip-times",
}
