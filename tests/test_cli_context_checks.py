"""Context checks through the command line: two sessions on this computer labelled WPA2 and
open (real iperf3 over the loopback) are compared with the warning that the traffic never
crossed a Wi-Fi link; a run whose iperf3 reported its process at 97 % of one core (a stand-in
engine replaying a real recording with that figure: CPU saturation cannot be forced
reliably) gets the CPU sentence."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import linklab
from tests.engine.engine_replay import (
    ENGINE_OUTPUTS,
    HELP_3_1_3,
    UNKNOWN_OPTION,
    FakeEngine,
    Probe,
    Replay,
)
from tests.test_cli_fake_engines import linklab as linklab_with
from tests.test_cli_fake_engines import listener  # noqa: F401  (a fixture)

NEVER_WIFI = "the traffic never crossed a Wi-Fi link"


def _loopback_session(db: Path, name: str, security: str) -> None:
    done = linklab(
        "run",
        "--peer", "this-computer",
        "--protocol", "tcp",
        "--ip", "4",
        "--sizes", "1408",
        "--runs", "1",
        "--duration", "1",
        "--security", security,
        "--name", name,
        "--db", str(db),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_loopback_sessions_labelled_wpa2_and_open_are_compared_with_a_warning(
    tmp_path: Path,
) -> None:
    db = tmp_path / "lab.sqlite3"
    _loopback_session(db, "loopback WPA2", "WPA2")
    _loopback_session(db, "loopback open", "open")
    shown = linklab("sessions", "show", "loopback WPA2", "--json", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    (wifi,) = [w for w in json.loads(shown.stdout)["warnings"] if NEVER_WIFI in w]
    assert wifi.startswith("The session is labelled Wi-Fi (WPA2), but its traffic never left")

    compared = linklab("compare", "loopback WPA2", "loopback open", "--json", "--db", str(db))
    assert compared.returncode == 0, compared.stderr
    warnings = json.loads(compared.stdout)["warnings"]
    raised = [w for w in warnings if NEVER_WIFI in w]
    assert [w.split(": ")[0] for w in raised] == ["“loopback WPA2”", "“loopback open”"]
    assert "labelled Wi-Fi (open)" in raised[1]
    # The text output says it before the table; the HTML report's banner says it too.
    page = tmp_path / "report.html"
    text = linklab(
        "compare", "loopback WPA2", "loopback open", "--html", str(page), "--db", str(db)
    ).stdout
    first = text.index("Warning: “loopback WPA2”: The session is labelled Wi-Fi")
    assert first < text.index("Findings:")
    banner = page.read_text(encoding="utf-8").split('id="warnings"')[1].split("</div>")[0]
    assert banner.count(NEVER_WIFI) == 2


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
@pytest.mark.skipif(
    not ENGINE_OUTPUTS.is_dir(),
    reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
)
def test_a_cpu_bound_run_gets_its_sentence(tmp_path: Path, listener: int) -> None:  # noqa: F811
    document = json.loads((ENGINE_OUTPUTS / "iperf3-3.1.3-linux-tcp.json").read_text())
    document["end"]["cpu_utilization_percent"]["host_total"] = 97.3  # of one core
    recording = tmp_path / "cpu-bound.json"
    recording.write_text(json.dumps(document))
    engine = str(
        FakeEngine(
            [Replay(recording, ("-J",))],
            probes=[Probe(("--version",), "iperf 3.1.3\n"), Probe(("--help",), HELP_3_1_3)],
            rejects=["--connect-timeout", "--forceflush", "--json-stream", "--bidir"],
            reject_text=UNKNOWN_OPTION,
        ).write(tmp_path / "engine")
    )
    db = tmp_path / "lab.sqlite3"
    done = linklab_with(
        engine,
        "run",
        "--peer", "127.0.0.1",
        "--port", str(listener),
        "--sizes", "1408",
        "--runs", "3",
        "--duration", "1",
        "--name", "busy",
        "--db", str(db),
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["points"][0]["cpu_local_pct"]["mean"] == pytest.approx(97.3)
    (cpu,) = [w for w in data["warnings"] if "of one core" in w]
    assert cpu.startswith("In 3 of 3 runs of TCP · IPv4 (at 1408 B) the CPU was busy at or")
    # iperf3's figure is its own process's: LinkLab's engine set it, on the loopback.
    assert "on this computer iperf3 itself (LinkLab's engine) used up to 97 % of one core" in cpu
    assert "The traffic stayed on this computer, so its CPU, not a link, set the pace." in cpu
    assert "on the peer" not in cpu  # the remote figure of the recording is 4.8 %
