"""Checks of a plan's values against the engines' limits, answered in sentences."""

from __future__ import annotations

from app.models import Direction, Protocol
from app.study.plan import VARIABLE_LABELS, Engine, Plan, Variable


def value_problems(self: Plan) -> list[tuple[str, str]]:
    """Problems with the swept values and the settings held fixed, at their fields."""
    found: list[tuple[str, str]] = []
    values = list(self.values)
    fixed_length = [] if self.length is None else [self.length]
    lengths = values if self.variable is Variable.LENGTH else fixed_length
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return [("values", "Every value must be a whole number.")]
    if Protocol.UDP in self.protocols and any(not 16 <= v <= 65507 for v in lengths):
        found.append(
            (
                "values" if self.variable is Variable.LENGTH else "length",
                "A UDP packet size must be between 16 and 65507 bytes.",
            )
        )
    if Protocol.TCP in self.protocols and any(not 1 <= v <= 1024 * 1024 for v in lengths):
        found.append(
            (
                "values" if self.variable is Variable.LENGTH else "length",
                "A TCP write size must be between 1 byte and 1 MiB (1048576 bytes).",
            )
        )
    if self.variable is Variable.DURATION and any(not 1 <= v <= 3600 for v in values):
        found.append(("values", "Run durations must be between 1 and 3600 s."))
    windows = (
        values
        if self.variable is Variable.WINDOW
        else ([] if self.window is None else [self.window])
    )
    if any(not 1024 <= v <= 1024**3 for v in windows):
        found.append(
            (
                "values" if self.variable is Variable.WINDOW else "window",
                "A TCP window must be between 1 KiB and 1 GiB.",
            )
        )
    if self.variable is Variable.PARALLEL and any(not 1 <= v <= 128 for v in values):
        found.append(("values", "Parallel streams must be between 1 and 128."))
    if self.variable is Variable.LOSS:
        from app.study.shaping import unavailable_reason

        if any(not 0 <= v <= 100 for v in values):
            found.append(("values", "Emulated loss must be between 0 and 100 %."))
        reason = unavailable_reason()
        if reason:
            found.append(("variable", reason))
    if self.variable is Variable.BITRATE and any(not 0 <= v <= 10**14 for v in values):
        found.append(("values", "Bitrates must be 0 (unlimited) or positive."))
    if self.engine is Engine.NETPERF and self.variable in (
        Variable.WINDOW,
        Variable.PARALLEL,
        Variable.BITRATE,
    ):
        label = VARIABLE_LABELS[self.variable][0].lower()
        found.append(("variable", f"Sweeping the {label} needs the iperf3 engine."))
    if self.concurrent and self.engine is not Engine.IPERF3:
        found.append(("concurrent", "Running series at the same time needs the iperf3 engine."))
    if self.concurrent and len(self.series) < 2:
        found.append(
            (
                "concurrent",
                "Running series at the same time needs at least two "
                "series, for example TCP and UDP.",
            )
        )
    if self.concurrent and self.peer.iperf3_port + len(self.series) - 1 > 65535:
        found.append(
            (
                "port",
                "Concurrent series use consecutive ports after the iperf3 "
                "port: choose a lower port.",
            )
        )
    if self.variable is Variable.BITRATE and Protocol.UDP not in self.protocols:
        found.append(("variable", "Only UDP runs have a target bitrate: choose UDP to sweep it."))
    if self.engine is Engine.NETPERF:
        # Values netperf would silently ignore are refused where the user set them.
        for where, ignored, sentence in (
            (
                "bitrate",
                self.bitrate_bps != 0,
                "netperf sends UDP as fast as it can: set the UDP bitrate to 0, or use iperf3.",
            ),
            (
                "window",
                self.window is not None,
                "LinkLab sets the TCP window for iperf3 only: clear the window, or use iperf3.",
            ),
            (
                "parallel",
                self.parallel != 1,
                "netperf runs one stream per test: set parallel streams to 1, or use iperf3.",
            ),
            (
                "omit",
                self.omit_s != 0,
                "netperf has no warm-up to leave out: set the warm-up to 0, or use iperf3.",
            ),
        ):
            if ignored:
                found.append((where, sentence))
    if self.engine is Engine.NETPERF and self.direction is not Direction.UP:
        found.append(
            (
                "direction",
                "netperf measures upload only here: choose iperf3 for download or both directions.",
            )
        )
    return found
