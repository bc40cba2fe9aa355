"""What a step's chart shows follows what its questions ask: idle and loaded latency for the
bufferbloat steps, throughput for the throughput studies, the round trip only where measured
and asked, never the swept emulated loss."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.domain.exercise import Step, asked_metrics
from app.domain.plan import Metric, Peer, Plan, Variable
from app.study.lab.exercises import find_ready


@pytest.mark.parametrize(
    ("exercise", "expected"),
    [
        (
            "bufferbloat",
            [
                ("latency_idle_ms", "latency_ms"),
                ("latency_idle_ms", "latency_ms"),
                ("latency_idle_ms", "latency_ms"),
                ("throughput_bps", "latency_idle_ms", "latency_ms"),
            ],
        ),
        ("open-vs-wpa2", [("throughput_bps",), ("throughput_bps",)]),
        (
            "student-lab",
            [
                ("throughput_bps",),
                ("throughput_bps",),
                ("throughput_bps",),
                ("throughput_bps", "rtt_ms"),
            ],
        ),
    ],
)
def test_the_ready_exercises_chart_what_their_steps_ask(
    exercise: str, expected: list[tuple[str, ...]]
) -> None:
    assert [asked_metrics(step) for step in find_ready(exercise).steps] == expected


def step(question: str, **plan: object) -> Step:
    return Step(
        "A step", "Press Start.", replace(Plan(peer=Peer("lab-peer")), **plan), (), (question,)
    )


def test_words_of_a_question_name_the_metrics() -> None:
    assert asked_metrics(step("What was the idle latency?")) == ("latency_idle_ms",)
    assert asked_metrics(step("Quote the loaded latency at 8 streams.")) == ("latency_ms",)
    assert asked_metrics(step("How did the latency change?")) == ("latency_idle_ms", "latency_ms")
    assert asked_metrics(step("How much jitter and loss did UDP see?")) == ("jitter_ms", "loss_pct")
    assert asked_metrics(step("Explain what you saw.")) == ("throughput_bps",)
    # The loss swept is the cause, not a figure asked for; a plan measuring latency charts it.
    swept = step("How does throughput fall as loss rises?", variable=Variable.LOSS, values=(0, 10))
    assert asked_metrics(swept) == ("throughput_bps",)
    measured = step("Explain what you saw.", metrics=(Metric.THROUGHPUT, Metric.LATENCY))
    assert asked_metrics(measured) == ("latency_idle_ms", "latency_ms")


def test_a_question_about_reordering_charts_the_datagrams_out_of_order() -> None:
    question = "How many datagrams arrived out of order, and how much jitter was there?"
    assert asked_metrics(step(question)) == ("jitter_ms", "out_of_order")
    assert asked_metrics(step("Did the link reorder datagrams?")) == ("out_of_order",)
