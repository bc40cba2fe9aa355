"""Whose CPU a run's load was: the sampler counts this process and its children (LinkLab, its
engines, this computer's servers) apart from the whole computer, so that the rest is known to
be other programs'. Proven on real processes by their CPU time, not by a speed."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from app.study.host.cpu_sampler import CpuSampler

#: Burns the CPU for a second and a half of its own time, says so, then waits to be ended
#: (alive, so that the sampler sees all of its time).
BURN = (
    "import sys, time\n"
    "t = time.process_time()\n"
    "while time.process_time() - t < 1.5: pass\n"
    "print('done', flush=True)\n"
    "time.sleep(60)\n"
)


def _burn(detached: bool) -> tuple[subprocess.Popen[str], psutil.Process]:
    """The burner as this process's child, or detached: started by a shell that exits at
    once, so that it is no descendant of this process (another program)."""
    if not detached:
        proc = subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True)
        return proc, psutil.Process(proc.pid)
    shell = subprocess.Popen(
        ["sh", "-c", f'"{sys.executable}" -c "$0" & echo $!', BURN],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert shell.stdout is not None
    pid = int(shell.stdout.readline())
    shell.wait()
    return shell, psutil.Process(pid)


def _wait_done(process: psutil.Process) -> None:
    deadline = time.monotonic() + 60
    while sum(process.cpu_times()[:2]) < 1.5:
        assert time.monotonic() < deadline, "the burner never got its CPU time"
        time.sleep(0.1)


@pytest.mark.skipif(sys.platform == "win32", reason="the detached burner needs a POSIX shell")
@pytest.mark.parametrize("detached", [False, True])
def test_linklabs_own_processes_are_counted_apart_from_other_programs(detached: bool) -> None:
    me = psutil.Process()
    before = sum(me.cpu_times()[:2])
    with CpuSampler(period_s=0.2) as sampler:
        handle, burner = _burn(detached)
        try:
            _wait_done(burner)
            time.sleep(0.5)  # a look after the burn
            burned = sum(burner.cpu_times()[:2])
        finally:
            burner.kill()
            burner.wait(10)
            handle.wait(10)
            if handle.stdout is not None:
                handle.stdout.close()
    mine = sum(me.cpu_times()[:2]) - before  # this process's own, the sampler's thread too
    if detached:  # another program's: none of it is LinkLab's
        assert sampler.own_cpu_s < mine + 0.5 * burned
    else:  # a child of LinkLab's, as an engine is: all of it is
        assert sampler.own_cpu_s >= 0.9 * burned
    assert sampler.own_mean is not None and sampler.mean is not None
    assert 0 <= sampler.own_mean <= 100
