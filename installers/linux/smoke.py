"""Smoke checks of a built bundle, as a user's machine would run it: no iperf3 on PATH, a fresh
home, a real X server. The test suite (tests/installers/test_dist.py) and the frozen-bundle
benchmark use these; a maintainer can run them by hand on any bundle:

    python installers/linux/smoke.py dist/linklab
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

WINDOW_LINE = re.compile(r'(0x[0-9a-f]+) "LinkLab[^"]*": \("linklab" "LinkLab"\)')


def bare_env(home: Path, **extra: str) -> dict[str, str]:
    """A fresh user's environment: nothing but an empty folder on PATH, a new home."""
    (home / "bin").mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": str(home / "bin"), "LANG": "C.UTF-8"}
    env |= {"XDG_RUNTIME_DIR": str(home / "run")}
    (home / "run").mkdir(mode=0o700, exist_ok=True)
    return env | extra


def run(bundle: Path, args: list[str], env: dict[str, str], timeout: float = 60) -> str:
    done = subprocess.run(
        [str(bundle / "linklab"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"linklab {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(proc: subprocess.Popen[str]) -> None:
    """End a process this module started (its own session), by PID, and close its pipes."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@contextmanager
def frozen_servers(bundle: Path, env: dict[str, str]) -> Iterator[tuple[int, int]]:
    """The bundle's own `linklab serve` (iperf3 and netserver) on free loopback ports."""
    port, netport = free_port(), free_port()
    argv = [str(bundle / "linklab"), "serve", "--bind", "127.0.0.1", "--port", str(port)]
    argv += ["--netserver-port", str(netport)]
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        ready = False
        assert proc.stdout is not None
        while time.monotonic() < deadline and not ready:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("linklab serve ended before it was listening")
            ready = line.startswith("Press Ctrl+C")
        if not ready:
            raise AssertionError("linklab serve did not start listening within 30 s")
        yield port, netport
    finally:
        stop(proc)


@contextmanager
def xvfb() -> Iterator[str]:
    """A private X server; yields its DISPLAY."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        text=True,
    )
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise AssertionError("Xvfb did not start")
        yield f":{number}"
    finally:
        stop(proc)


def window_id(display: str) -> str | None:
    """The id of LinkLab's main window on display, once it is mapped and viewable."""
    env = {"DISPLAY": display, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    for match in WINDOW_LINE.finditer(tree):
        info = subprocess.run(
            ["xwininfo", "-id", match.group(1)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if "Map State: IsViewable" in info:
            return match.group(1)
    return None


GRAB = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(["grab", "-platform", "xcb"])
image = app.primaryScreen().grabWindow(0).toImage()
step = 7
colours = {image.pixel(x, y)
           for x in range(0, image.width(), step) for y in range(0, image.height(), step)}
image.save(sys.argv[1])
print(len(colours))
"""


def grab_screen(display: str, path: Path) -> int:
    """Save the X screen as a PNG (with this Python's Qt); returns how many colours it has."""
    env = {**os.environ, "DISPLAY": display}
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(
        [sys.executable, "-c", GRAB, str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stdout.split()[-1])


def time_to_window(
    argv: list[str],
    env: dict[str, str],
    timeout: float = 60,
    screenshot: Path | None = None,
    until: Callable[[], bool] | None = None,
) -> float:
    """Seconds from starting argv until its main window is viewable; then ends it (after
    saving the screen to screenshot, once the window has had a second to settle, and after
    until() has come true, if given)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        while time.monotonic() - started < timeout:
            if window_id(env["DISPLAY"]) is not None:
                shown = time.monotonic() - started
                if screenshot is not None:
                    time.sleep(1.0)
                    grab_screen(env["DISPLAY"], screenshot)
                while until is not None and not until():
                    if time.monotonic() - started > timeout:
                        raise AssertionError(f"the window did not get there within {timeout:.0f} s")
                    time.sleep(0.25)
                return shown
            if proc.poll() is not None:
                err = proc.stderr.read() if proc.stderr else ""
                raise AssertionError(f"the window exited with {proc.returncode}: {err}")
            time.sleep(0.02)
        raise AssertionError(f"no LinkLab window appeared within {timeout:.0f} s")
    finally:
        stop(proc)


def check_bundle(bundle: Path) -> dict[str, object]:
    """Every smoke check in turn; returns what it measured."""
    with tempfile.TemporaryDirectory() as tmp:
        env = bare_env(Path(tmp))
        version = run(bundle, ["--version"], env).strip()
        doctor = json.loads(run(bundle, ["doctor", "--json"], env))
        with frozen_servers(bundle, env) as (port, netport):
            measure = ["measure", "--peer", "127.0.0.1", "--duration", "1", "--json"]
            iperf3 = json.loads(run(bundle, [*measure, "--port", str(port)], env))
            netperf = json.loads(
                run(bundle, [*measure, "--engine", "netperf", "--port", str(netport)], env)
            )
        with xvfb() as display:
            shown = time_to_window([str(bundle / "linklab")], env | {"DISPLAY": display})
    return {
        "version": version,
        "doctor": doctor,
        "iperf3": iperf3,
        "netperf": netperf,
        "window_s": shown,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: smoke.py BUNDLE_FOLDER", file=sys.stderr)
        return 2
    found = check_bundle(Path(argv[0]))
    engines = found["doctor"]["engines"]  # type: ignore[index]
    print(found["version"])
    for name, info in engines.items():
        print(f"  {name}: {info.get('source')} {info.get('path')}")
    print(f"  iperf3 1-s loopback: {found['iperf3']['throughput_bps'] / 1e9:.1f} Gbit/s")  # type: ignore[index]
    print(f"  netperf 1-s loopback: {found['netperf']['throughput_bps'] / 1e9:.1f} Gbit/s")  # type: ignore[index]
    print(f"  window shown after {found['window_s']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
