"""`linklab expected`, run as a user would: the breakdown as JSON and as a table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT_DIR, linklab


def test_json_breakdown_of_the_worked_value() -> None:
    done = linklab(
        "expected",
        "--link-rate",
        "100M",
        "--protocol",
        "tcp",
        "--ip",
        "4",
        "--length",
        "1408",
        "--medium",
        "Ethernet",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["expected_bps"] == pytest.approx(94.15e6, rel=0.001)
    assert result["efficiency"] == pytest.approx(1448 / 1538)
    assert result["payload_bytes"] == 1448 and result["frames"] == 1
    assert result["overhead_bytes"] == {
        "preamble + SFD": 8,
        "Ethernet header": 14,
        "Ethernet FCS": 4,
        "inter-frame gap": 12,
        "IPv4 header": 20,
        "TCP header": 20,
        "TCP timestamps option": 12,
    }
    assert any("1448 bytes of data per segment" in s for s in result["explanation"])


def test_output_is_utf8_whatever_the_code_page() -> None:
    """Windows writes a pipe in its ANSI code page (cp1252, set here by PYTHONIOENCODING),
    which has no minus sign: the breakdown still comes out whole, in UTF-8."""
    argv = [sys.executable, "-m", "app", "expected", "--link-rate", "100M", "--protocol", "tcp"]
    argv += ["--ip", "4", "--length", "1408", "--medium", "Ethernet", "--json"]
    done = subprocess.run(
        argv,
        cwd=ROOT_DIR,
        env={**os.environ, "PYTHONIOENCODING": "cp1252"},
        capture_output=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "\u2212" in done.stdout and json.loads(done.stdout)["expected_bps"] > 0


def test_table_for_wifi_with_security() -> None:
    done = linklab(
        "expected",
        "--link-rate",
        "300M",
        "--protocol",
        "udp",
        "--ip",
        "6",
        "--length",
        "1K",
        "--medium",
        "802.11n",
        "--security",
        "WPA2",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Expected goodput: ") and "of 300 Mbit/s" in lines[0]
    assert "bytes of one datagram (1 frame)" in lines[1]
    rows = {line.split("  ")[1].strip() for line in lines if line.startswith("  ")}
    assert {"CCMP header + MIC", "PHY preamble", "payload", "total"} <= rows
    assert any(line.startswith("- ") and "A-MPDU" in line for line in lines)


def test_frame_overhead_and_udp_length() -> None:
    def goodput(length: str) -> float:
        done = linklab(
            "expected",
            "--link-rate",
            "40M",
            "--protocol",
            "udp",
            "--ip",
            "4",
            "--length",
            length,
            "--medium",
            "Ethernet",
            "--frame-overhead",
            "14",
            "--json",
        )
        assert done.returncode == 0, done.stderr
        return float(json.loads(done.stdout)["expected_bps"])

    assert goodput("256") == pytest.approx(40e6 * 256 / 298)
    assert goodput("1408") == pytest.approx(40e6 * 1408 / 1450)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--medium", "Ethernet", "--security", "WPA2"), "protects Wi-Fi frames"),
        (("--medium", "unknown"), "--frame-overhead"),
        (("--medium", "802.11ac", "--security", "unknown"), "Say which security"),
    ],
)
def test_bad_input_is_one_sentence(extra: tuple[str, ...], words: str) -> None:
    done = linklab(
        "expected",
        "--link-rate",
        "1G",
        "--protocol",
        "tcp",
        "--ip",
        "4",
        "--length",
        "1408",
        *extra,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("linklab: ") and words in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_bad_rate_is_an_argparse_error() -> None:
    done = linklab(
        "expected",
        "--link-rate",
        "fast",
        "--protocol",
        "tcp",
        "--ip",
        "4",
        "--length",
        "1",
        "--medium",
        "Ethernet",
    )
    assert done.returncode == 2 and "--link-rate" in done.stderr
