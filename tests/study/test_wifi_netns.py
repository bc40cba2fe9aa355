"""A wired interface LinkLab meets inside a network namespace of its own: the /sys it reads is
the host's, with no entry for the namespace's veth, and iw may be missing. The kernel's own
word (`ip -d -j link`) still says it is a veth, so the reading is "not a Wi-Fi interface",
never "could not read the Wi-Fi"; a name the namespace has not is still not guessed at."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from app.study.host.commands import run_command
from app.study.host.wifi_query import SYS_NET, WifiTools
from app.study.host.wifi_reading import WifiState
from tests.testbed import TestBed, unavailable_reason

pytestmark = [pytest.mark.netns]


@pytest.fixture(scope="module")
def bed() -> Iterator[TestBed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with TestBed() as made:
        yield made


def _inside(ns: str, with_iw: bool) -> WifiTools:
    """The text tools as a LinkLab started in that namespace runs them (iw absent unless
    with_iw), reading the host's /sys as such a process does."""

    def runner(argv: Sequence[str]) -> str | None:
        if argv[0] == "iw" and not with_iw:
            return None
        return run_command(["ip", "netns", "exec", ns, *argv])

    return WifiTools(runner, "Linux", lambda: None, SYS_NET)


def test_a_veth_without_its_sysfs_entry_or_iw_is_not_wireless(bed: TestBed) -> None:
    assert not (SYS_NET / bed.dev_a).exists()  # the host's /sys has not the namespace's veth
    reading = _inside(bed.a, with_iw=False).reading(bed.dev_a)
    assert reading.state is WifiState.NOT_WIRELESS, reading.sentence()
    assert reading.wireless is False
    assert reading.sentence().startswith(f"{bed.dev_a} is not a Wi-Fi interface")
    assert "could not read" not in reading.sentence()


def test_a_name_the_namespace_has_not_stays_unknown(bed: TestBed) -> None:
    reading = _inside(bed.a, with_iw=False).reading("llnone0")
    assert reading.state is WifiState.UNREADABLE
    assert reading.wireless is None  # nothing said it is, or is not, a Wi-Fi one
