"""The smoke test of the installed Windows program, under Wine (part of `make dist-windows`).

In the Wine harness's prefix (see installers/windows/wine_dist.py), one at a time with the
harness's own runs (its run.lock):
1. the installer runs silently (/S) into its per-user default folder;
2. the files, the Start-menu entry, the file associations and the Apps & features entry are
   there (the registry read with `wine reg query`);
3. the harness's Wine workarounds are applied to the installed copy only (Wine 8.0 cannot run
   numpy's complex functions nor load Qt without a system ICU; the installer and the bundle in
   dist/ stay clean);
4. `linklab.exe --version`, `linklab.exe doctor` (and `doctor --json`: the bundled iperf 2.2.1,
   no iperf3), then a study with the bundled iperf 2 against a Linux `iperf -s` on the loopback,
   whose stored figures agree with the server's own report, and `linklab.exe serve` (no iperf3)
   serving iperf 2 to a Linux iperf 2 client, TCP and UDP;
5. the window (linklabw.exe, Qt offscreen) starts and keeps running; once it answers on its
   hand-over channel (asked by the harness's Windows Python), a second `linklab.exe` says it is
   already open; `linklab.exe FILE.linklab` hands the file over, and so does the .linklab
   type's registered open command (what a double-click runs) with another file: both sessions
   land in the window's database;
6. the uninstaller (/S) removes the files, the shortcut and the registry keys, and leaves the
   user's database alone.
Every Windows process started here is ended by `wineserver -k` at the end, as the harness does.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app import __version__
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import EXCHANGE_SUFFIX, export_sessions, write_exchange

ROOT = Path(__file__).resolve().parents[2]
WINE_DLLS = ("wscmath.dll", "icuuc.dll")
PROBE = """
import os
import sys
from PySide6.QtCore import QCoreApplication
from app.domain.paths import DB_ENV
from app.store.db import default_path
from app.ui.single_instance import send_files, server_name
app = QCoreApplication(sys.argv)
name = server_name(default_path(os.environ.get(DB_ENV)))
sys.exit(0 if send_files(name, [], timeout_ms=5000) else 3)
"""
APPID = "{854B3B89-AB87-4975-A0ED-96644E74E42E}"
CLASSES = r"HKCU\Software\Classes"
UNINSTALL_KEY = rf"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\{APPID}"
ASSOCIATIONS = {".linklab": "LinkLab.Sessions", ".linklab-exercise": "LinkLab.Exercise"}
NOISE = "FS volume label and serial are not available"
RUN_TIMEOUT_S = 180
WAIT_S = 240


class SmokeFailure(SystemExit):
    def __init__(self, sentence: str) -> None:
        super().__init__(f"wine-smoke: FAILED: {sentence}")


def say(text: str) -> None:
    print(f"wine-smoke: {text}", flush=True)


def windows_path(path: Path) -> str:
    return "Z:" + str(path.resolve()).replace("/", "\\")


class Prefix:
    """The harness's Wine prefix, and Windows programs run in it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.root = home / "prefix"
        self.env = {
            **os.environ,
            "WINEPREFIX": str(self.root),
            "WINEARCH": "win64",
            "WINEDEBUG": "-all",
        }
        for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "LINKLAB_DB"):
            self.env.pop(name, None)

    def run(self, argv: list[str], timeout_s: int = RUN_TIMEOUT_S) -> tuple[int, str]:
        """Exit status and stdout; stderr (Wine's noise left out) is shown when not empty."""
        # Wine's console handles need real pipes: stdin from /dev/null, outputs captured.
        done = subprocess.run(
            ["wine", *argv],
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            check=False,
        )
        err = "\n".join(line for line in done.stderr.splitlines() if NOISE not in line).strip()
        if err:
            say(f"stderr of {Path(argv[0]).name}: " + err.replace("\n", "\n    "))
        return done.returncode, done.stdout.strip()

    def start(self, argv: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["wine", *argv],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def reg_default(self, key: str, value: str | None = None) -> str | None:
        """A registry value's data (the default value unless named), or None without the key."""
        which = ["/ve"] if value is None else ["/v", value]
        status, out = self.run(["reg", "query", key, *which], timeout_s=60)
        if status != 0:
            return None
        for line in out.splitlines():
            parts = line.strip().split(None, 2)
            if len(parts) == 3 and parts[1].startswith("REG_"):
                return parts[2]
        return ""

    def probe_window(self, home: Path) -> bool:
        """Whether a LinkLab window of this Wine user answers on its hand-over channel (asked
        by the harness's Windows Python with LinkLab's own client, handing over no file)."""
        env = {**self.env, "LINKLAB_WINE_PATH": windows_path(ROOT)}
        argv = ["wine", str(home / "py" / "python.exe"), "-c", PROBE]
        done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=RUN_TIMEOUT_S, check=False)  # fmt: skip
        return done.returncode == 0

    def key_exists(self, key: str) -> bool:
        return self.run(["reg", "query", key], timeout_s=60)[0] == 0

    def user_dir(self) -> Path:
        users = [p for p in (self.root / "drive_c" / "users").iterdir() if (p / "AppData").is_dir()]
        if len(users) != 1:
            raise SmokeFailure(f"expected one Wine user folder, found {users}")
        return users[0]

    def boot(self) -> None:
        """Start the prefix's wineserver (kept running) and Wine's background services with no
        pipe of ours: started by a captured run, they would hold its output open for good."""
        null = subprocess.DEVNULL
        subprocess.run(["wineserver", "-p"], env=self.env, stdin=null, stdout=null, stderr=null,
                       check=True)  # fmt: skip
        subprocess.run(["wine", "cmd", "/c", "exit"], env=self.env, stdin=null, stdout=null,
                       stderr=null, timeout=RUN_TIMEOUT_S, check=False)  # fmt: skip

    def stop_all(self) -> None:
        subprocess.run(["wineserver", "-k"], env=self.env, check=False)
        subprocess.run(["wineserver", "-w"], env=self.env, check=False)


def wait_for(what: str, check: Callable[[], bool], timeout_s: float = WAIT_S) -> float:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout_s:
            raise SmokeFailure(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(1)
    return time.monotonic() - started


def make_exchange_file(folder: Path, name: str) -> tuple[Path, str]:
    """A .linklab file holding one small finished session: its path and the session's id."""
    db_path = folder / f"{name}.sqlite3"
    plan = Plan(peer=Peer("127.0.0.1"), protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,),
                values=(128,), repetitions=1, duration_s=1, name=name)  # fmt: skip
    with Database(db_path) as db:
        store = SessionStore(db)
        session_id = store.create_session(plan)
        for key in plan.run_keys():
            store.add_run(session_id, key, 128.0, metrics=RunMetrics(throughput_bps=9.4e8),
                          started_at=utc_now(), elapsed_s=1.0, engine="iperf3")  # fmt: skip
        store.finish(session_id, SessionStatus.COMPLETED, "")
    path = folder / f"{name}{EXCHANGE_SUFFIX}"
    with Database(db_path, readonly=True) as db:
        write_exchange(path, export_sessions(SessionStore(db), [session_id]))
    return path, session_id


def stored_ids(db_path: Path) -> set[str]:
    if not db_path.is_file():
        return set()
    try:
        conn = sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            return {row[0] for row in conn.execute("SELECT id FROM sessions")}
        finally:
            conn.close()
    except sqlite3.Error:
        return set()  # not written yet, or busy: asked again


#: The checks that failed; the smoke test goes on past them (to show everything in one run)
#: and fails at the end. A check that later ones depend on stops it at once (require).
FAILED: list[str] = []


def check(condition: bool, sentence: str) -> None:
    if condition:
        say(f"ok: {sentence}")
    else:
        FAILED.append(sentence)
        say(f"FAILED: {sentence}")


def require(condition: bool, sentence: str) -> None:
    check(condition, sentence)
    if not condition:
        raise SmokeFailure(sentence)


def apply_wine_workarounds(harness: Path, home: Path, install: Path) -> None:
    """The harness's patches (setup.sh's step 4) on the installed copy only."""
    internal = install / "_internal"
    build = home / "build"
    argv = ["python3", str(harness / "petool.py"), "patchmath", str(internal)]
    done = subprocess.run([*argv, str(build / "cshim-probe.dll")], capture_output=True, text=True)
    if done.returncode != 0:
        raise SmokeFailure(f"petool.py patchmath: {done.stderr.strip()}")
    for name in WINE_DLLS:
        shutil.copyfile(build / name, internal / name)
    say(f"Wine workarounds on the installed copy: {done.stdout.strip()}; {', '.join(WINE_DLLS)}")


def check_registry(prefix: Prefix, install: Path) -> None:
    windows_install = "C:" + str(install).split("/drive_c", 1)[1].replace("/", "\\")
    exe = windows_install + r"\linklabw.exe"
    for ext, progid in ASSOCIATIONS.items():
        check(prefix.reg_default(rf"{CLASSES}\{ext}") == progid, f"{ext} is {progid}")
        command = prefix.reg_default(rf"{CLASSES}\{progid}\shell\open\command")
        check(
            command is not None and command.lower() == f'"{exe}" "%1"'.lower(),
            f'{progid} opens with "{exe}" "%1" (registry: {command})',
        )
    location = prefix.reg_default(UNINSTALL_KEY, "InstallLocation")
    check(
        location is not None and location.lower() == windows_install.lower(),
        f"Apps & features lists LinkLab at {location}",
    )


def check_removed(prefix: Prefix, install: Path, shortcut: Path) -> None:
    keys = [rf"{CLASSES}\{p}" for p in ASSOCIATIONS.values()]
    keys += [rf"{CLASSES}\{e}" for e in ASSOCIATIONS] + [UNINSTALL_KEY]
    keys.append(rf"{CLASSES}\Applications\linklabw.exe")
    wait_for("the uninstaller removing the installed folder", lambda: not install.exists())
    check(not install.exists(), f"the uninstaller removed {install.name}")
    check(not shortcut.exists(), "the uninstaller removed the Start-menu entry")
    left = [key for key in keys if prefix.key_exists(key)]
    check(
        not left, "the uninstaller removed the registry keys" + (f" (left: {left})" if left else "")
    )


def linux_iperf2() -> str:
    """The Linux iperf 2 the smoke test measures against: the one LinkLab finds here (the 2.2.1
    built by the set-up, else the system's)."""
    from app.engine.drivers.registry import find_tool

    return find_tool("iperf").path


#: A TCP total of iperf 2's server with -f k: "[  1] 0.00-2.01 sec  5432 KBytes  22112 Kbits/sec".
_SERVER_TOTAL = re.compile(r"^\[\s*\d+\]\s+0\.0+-(\d+\.\d+) sec\s+\S+ KBytes\s+(\S+) Kbits/sec")


def measure_with_bundled_iperf2(prefix: Prefix, exe: str) -> None:
    """The installed LinkLab runs a study with its bundled iperf 2 against a Linux `iperf -s` on
    the loopback; the stored figures agree with the server's own report (within 5 %)."""
    port = _free_port()
    server = subprocess.Popen(
        [linux_iperf2(), "-s", "-p", str(port), "-B", "127.0.0.1", "-f", "k", "-e"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "study.sqlite3"
            argv = [exe, "run", "--engine", "iperf2", "--peer", "127.0.0.1"]
            argv += ["--iperf2-port", str(port), "--protocol", "tcp", "--sizes", "131072"]
            argv += ["--runs", "2", "--duration", "3", "--json", "--db", windows_path(db)]
            started = time.monotonic()
            status, out = prefix.run(argv, timeout_s=300)
            elapsed = time.monotonic() - started
            require(status == 0 and out.startswith("{"), f"linklab.exe run: status {status}")
            result = json.loads(out)
            check(
                result["status"] == "completed" and result["runs_failed"] == 0,
                f"the study with the bundled iperf 2 completed: {result['status_reason']}",
            )
            measured = result["points"][0]["throughput_bps"]["mean"]
    finally:
        server.terminate()  # our own child, by its PID
        log, _ = server.communicate(timeout=30)
    totals = [
        float(m.group(2)) * 1e3
        for m in map(_SERVER_TOTAL.match, log.splitlines())
        if m and float(m.group(1)) >= 2.0
    ]
    require(len(totals) == 2, f"the Linux iperf -s reported 2 tests: {log[-400:]!r}")
    served = sum(totals) / len(totals)
    say(
        f"study with the bundled iperf 2 in {elapsed:.0f} s: {measured / 1e6:.1f} Mbit/s stored, "
        f"{served / 1e6:.1f} Mbit/s by the Linux server's own report"
    )
    check(abs(measured / served - 1) <= 0.05, "the stored figure is within 5 % of the server's")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve_answers_a_linux_client(prefix: Prefix, exe: str) -> None:
    """The installed `linklab serve`, with no iperf3 in the bundle, serves its iperf 2 (TCP and
    UDP): a Linux iperf 2 client measures against it on the loopback."""
    from app.domain.results import RunSummary
    from app.engine.drivers.iperf2.parse import parse_iperf2

    port = _free_port()
    argv = ["wine", exe, "serve", "--iperf2-port", str(port), "--bind", "127.0.0.1"]
    proc = subprocess.Popen(
        [*argv, "--no-netserver", "--no-echo"],
        env=prefix.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    lines: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout
    assert stdout is not None

    def read() -> None:  # a thread: Wine's pipe is read without blocking the wait for it
        for line in stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    said: list[str] = []
    try:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while not any("Press Ctrl+C" in x for x in said) and time.monotonic() < deadline:
            try:
                said.append(lines.get(timeout=1))
            except queue.Empty:
                if proc.poll() is not None:
                    err = proc.stderr.read() if proc.stderr else ""
                    raise SmokeFailure(f"linklab.exe serve ended: {err.strip()[-400:]!r}") from None
        require(
            any(f"iperf 2 UDP server listening on port {port}" in x for x in said),
            f"linklab.exe serve serves iperf 2 (TCP and UDP): {''.join(said)[-300:]!r}",
        )
        client = [linux_iperf2(), "-c", "127.0.0.1", "-p", str(port), "-t", "2", "-i", "1"]
        for extra in ([], ["-u", "-b", "10M"]):
            done = subprocess.run(
                [*client, "-f", "k", *extra], capture_output=True, text=True, timeout=120
            )
            found = [e for e in parse_iperf2(done.stdout.splitlines()) if isinstance(e, RunSummary)]
            flows = found[0].flows if found else ()
            answered = bool(flows) and bool(flows[0].sender_bps)
            if extra:  # the Windows UDP server's own report came back to the client
                answered = answered and bool(flows[0].receiver_bps)
            kind = "UDP" if extra else "TCP"
            check(answered, f"a Linux iperf 2 {kind} client measured against linklab.exe serve")
            if answered:
                say(f"{kind} against the installed serve: {flows[0].sender_bps or 0:.0f} bit/s")
    finally:
        prefix.stop_all()  # the serve and its iperf.exe servers, every Windows process
        proc.communicate(timeout=60)
        prefix.boot()


def smoke(harness: Path, home: Path, setup: Path) -> None:
    prefix = Prefix(home)
    FAILED.clear()
    with (home / "run.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            prefix.boot()
            _smoke(prefix, harness, home, setup)
        finally:
            prefix.stop_all()
    if FAILED:
        raise SmokeFailure(f"{len(FAILED)} checks: " + "; ".join(FAILED))
    say("PASSED")


def _smoke(prefix: Prefix, harness: Path, home: Path, setup: Path) -> None:
    user = prefix.user_dir()
    install = user / "AppData" / "Local" / "Programs" / "LinkLab"
    shortcut = user / "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/LinkLab.lnk"
    data = user / "AppData" / "Local" / "LinkLab"
    if install.exists():
        say(f"removing an earlier smoke install in {install}")
        prefix.run([str(install / "uninstall.exe"), "/S"])
        wait_for("the earlier install's removal", lambda: not install.exists(), 120)
    # A first start: no database, no settings from an earlier smoke test.
    shutil.rmtree(data, ignore_errors=True)
    prefix.run(["reg", "delete", r"HKCU\Software\LinkLab", "/f"], timeout_s=60)

    started = time.monotonic()
    status, out = prefix.run([str(setup), "/S"], timeout_s=600)
    require(status == 0, f"silent install exited {status} after {time.monotonic() - started:.0f} s")
    for name in ("linklab.exe", "linklabw.exe", "uninstall.exe", "linklab.ico", "_internal"):
        require((install / name).exists(), f"installed {name}")
    check(shortcut.is_file(), "Start-menu entry LinkLab.lnk")
    check_registry(prefix, install)
    apply_wine_workarounds(harness, home, install)

    exe = str(install / "linklab.exe")
    status, out = prefix.run([exe, "--version"])
    check(status == 0 and out == f"LinkLab {__version__}", f"linklab.exe --version: {out!r}")
    status, out = prefix.run([exe, "doctor"])
    shown = out.replace("\n", "\n    ")
    say(f"linklab.exe doctor (exit status {status}):\n    {shown}")
    check("iperf3" in out and "apt-get" not in out, "doctor names iperf3 without Debian's apt-get")
    check("2.2.1" in out and "(bundled)" in out, "doctor names the bundled iperf 2.2.1")
    status, out = prefix.run([exe, "doctor", "--json"])
    is_json = out.startswith("{")
    require(is_json, "doctor --json printed JSON" + ("" if is_json else f": {out[:200]!r}"))
    report = json.loads(out)
    check(not report["engines"]["iperf3"]["found"], "doctor --json: no iperf3 in this bundle")
    iperf2 = report["engines"]["iperf"]
    check(
        iperf2["found"] and iperf2["source"] == "bundled" and iperf2["version"] == "2.2.1",
        f"doctor --json: iperf 2.2.1 bundled: {iperf2}",
    )
    measure_with_bundled_iperf2(prefix, exe)
    serve_answers_a_linux_client(prefix, exe)

    window = prefix.start([str(install / "linklabw.exe")])
    db_path = data / "linklab.sqlite3"

    def listens() -> bool:
        if window.poll() is not None:
            raise SmokeFailure(f"the window ended with status {window.returncode}")
        return prefix.probe_window(home)

    # A second launch before the window listens would open a window of its own: first the
    # harness's Python asks, over the window's own hand-over channel, whether it listens.
    waited = wait_for("the window listening for a second launch", listens)
    say(f"the window listens for a second launch after {waited:.0f} s")
    status, out = prefix.run([exe], timeout_s=120)
    check(status == 0 and "already open" in out, f"a second linklab.exe: {out!r}")
    with tempfile.TemporaryDirectory() as scratch:
        first, first_id = make_exchange_file(Path(scratch), "Handed over")
        status, out = prefix.run([exe, windows_path(first)], timeout_s=120)
        require(status == 0, f"linklab.exe {first.name} handed it over (exit status {status})")
        wait_for("the handed-over session in the database", lambda: first_id in stored_ids(db_path))
        say("ok: the handed-over session is in the window's database")
        second, second_id = make_exchange_file(Path(scratch), "Double-clicked")
        # What Explorer runs on a double-click: the registered open command, %1 the file. (Wine
        # 8.0's HKEY_CLASSES_ROOT leaves out the per-user HKCU\Software\Classes, so its own
        # ShellExecute, `start FILE`, finds no program for the type: the command is run here.)
        command = prefix.reg_default(rf"{CLASSES}\LinkLab.Sessions\shell\open\command") or ""
        found = re.fullmatch(r'"([^"]+)" "%1"', command)
        require(found is not None, f"the .linklab open command is a program and %1: {command}")
        assert found is not None
        status, out = prefix.run([found.group(1), windows_path(second)], timeout_s=120)
        check(status == 0, f"the .linklab open command on {second.name}: exit status {status}")
        wait_for("the double-clicked session", lambda: second_id in stored_ids(db_path))
        say("ok: the session opened by the .linklab open command is in the database")
    check(window.poll() is None, "the window is still running")
    prefix.stop_all()
    window.wait(60)
    prefix.boot()

    status, out = prefix.run([str(install / "uninstall.exe"), "/S"])
    require(status == 0, f"silent uninstall started (exit status {status})")
    check_removed(prefix, install, shortcut)
    check(db_path.is_file(), "the user's database is kept")
