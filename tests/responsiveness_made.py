"""Responsiveness results made up for tests of keeping, listing, exporting and comparing them
(the test itself is measured for real elsewhere): each direction ramps up in steps whose probes
scatter around a chosen loaded latency."""

from __future__ import annotations

import random

from app.analysis.saturation import STABLE_STEPS
from app.domain.plan import THIS_COMPUTER
from app.engine.latency.probe_results import LatencyMethod
from app.study.responsiveness.results import (
    Phase,
    ResponsivenessResult,
    ResponsivenessSettings,
    Step,
)
from app.study.responsiveness.run import _StepRun, load_result, step_figures

SETTINGS = ResponsivenessSettings(max_flows=4, phase_s=8, step_s=2, idle_s=1)


def made_result(
    latency_ms: dict[Phase, float],
    *,
    host: str = THIS_COMPUTER,
    goodput_bps: float = 90e6,
    spread_ms: float = 0.5,
    probes: int = 40,
    seed: int = 1,
) -> ResponsivenessResult:
    """A result whose directions settle at the given loaded latency after a ramp of
    STABLE_STEPS + 1 steps (the first less loaded), probes spread by spread_ms."""
    from app.engine.latency.probe_results import ProbeRecord

    rng = random.Random(seed)
    loads = []
    clock = 1.0
    for phase, latency in latency_ms.items():
        steps: list[Step] = []
        runs: list[_StepRun] = []
        for number in range(1, STABLE_STEPS + 2):
            centre = latency * (0.6 if number == 1 else 1.0)
            rtts = [max(0.01, rng.gauss(centre, spread_ms)) for _ in range(probes)]
            records = tuple(ProbeRecord(i, i * 0.01, rtt) for i, rtt in enumerate(rtts))
            run = _StepRun([], records, goodput_bps * (0.7 if number == 1 else 1.0))
            runs.append(run)
            steps.append(step_figures(number, run, clock, clock + 2.0))
            clock += 2.1
        loads.append(load_result(phase, steps, runs))
    return ResponsivenessResult(
        host=host,
        method=LatencyMethod.UDP_ECHO,
        method_sentence="Working latency is measured by LinkLab's UDP echo on port 5200.",
        idle_latency_ms=min(latency_ms.values()) / 2,
        idle_answered=100,
        loads=tuple(loads),
        elapsed_s=clock,
    )


def three_ways(
    download: float, upload: float, both: float, **kwargs: object
) -> ResponsivenessResult:
    return made_result(
        {Phase.DOWNLOAD: download, Phase.UPLOAD: upload, Phase.BOTH: both},
        **kwargs,  # type: ignore[arg-type]
    )
