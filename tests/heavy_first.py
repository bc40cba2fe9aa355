"""The order in which pytest-xdist hands out test files: the longest first, so that no process
is left alone with a long file at the end while the others wait (the longest-job-first rule).
Measured with `pytest -n 3 --dist loadfile --durations=60` (seconds per file, summed over its
slowest tests); a file not listed keeps its place after these. Only the order changes, never
what runs: a stale list costs time, not correctness. `make test` passes
`--no-loadscope-reorder`, else xdist hands out the files with the most tests first."""

from __future__ import annotations

import pytest

HEAVY_FIRST = (
    "tests/ui/test_pdf_journey.py",  # 37 s alone, 75 s beside six test processes
    "tests/study/test_huge_round_trip.py",  # 10 s alone (60 runs beside 6)
    "tests/ui/test_journey_resume_failed.py",  # 46 s beside six
    "tests/ui/test_sentences_shown.py",  # 45 s beside six
    "tests/test_cli_class_together_netns.py",  # 90 s, mostly waiting
    "tests/engine/test_iperf2_netns.py",  # 71 s
    "tests/study/test_together.py",  # 75 s, mostly waiting
    "tests/ui/test_class_together.py",  # 43 s
    "tests/test_cli_study.py",  # 40 s
    "tests/study/test_responsiveness_netns.py",  # 36 s
    "tests/study/test_congestion_netns.py",  # 36 s
    "tests/study/test_dscp_netns.py",  # 35 s
    "tests/engine/test_netns_latency.py",  # 35 s
    "tests/ui/test_journeys_newcomer.py",  # 35 s
    "tests/ui/test_journey_link_rate.py",  # 28 s
    "tests/engine/test_held_servers.py",  # 27 s (two restarts of a held server, 10 s each)
    "tests/test_cli_serve_held.py",  # 27 s
    "tests/ui/test_journey_cpu.py",  # 26 s
    "tests/test_cli_sentences_netns.py",  # 26 s
    "tests/ui/test_held_server_window.py",  # 26 s
    "tests/analysis/test_compare_netns.py",  # 25 s
    "tests/analysis/test_findings_netns.py",  # 25 s
    "tests/ui/test_compare_journey.py",  # 23 s
    "tests/engine/test_netns.py",  # 22 s
    "tests/ui/test_exercise_flow.py",  # 22 s
    "tests/ui/test_journey_responsiveness.py",  # 21 s
    "tests/test_cli_latency.py",  # 21 s
    "tests/ui/test_export_journey.py",  # 20 s
    "tests/ui/test_responsiveness_tab.py",  # 19 s
    "tests/engine/test_netns_held.py",  # 18 s
    "tests/test_cli_fake_engines.py",  # 15 s
    "tests/test_cli_responsiveness.py",  # 15 s
    "tests/engine/test_netns_silence.py",  # 15 s
    "tests/study/test_import_memory.py",  # 13 s
    "tests/engine/test_netns_netperf_interim.py",  # 13 s
    "tests/study/test_together_words.py",  # 21 s
    "tests/ui/test_journey_exercise.py",  # 12 s
    "tests/ui/test_log_follows.py",  # 12 s
    "tests/test_cli_class_live.py",  # 11 s
    "tests/ui/test_journey_out_of_order.py",  # 11 s
    "tests/ui/test_journey_dscp.py",  # 11 s
)


def heavy_first(items: list[pytest.Item]) -> None:
    """Sort the collected tests, in place, by their file's place in HEAVY_FIRST (stable: the
    order within a file, and of the files not listed, is kept)."""
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
