"""This computer's addresses when the system cannot list its interfaces for a moment."""

from __future__ import annotations

import psutil
import pytest

from app.engine.lan import netinfo
from app.study.host import environment


def _fails() -> dict[str, object]:
    # What psutil raises on Windows when GetAdaptersAddresses fails (seen while adapters change).
    raise RuntimeError("GetAdaptersAddresses() syscall failed.")


def test_a_failed_listing_gives_no_addresses_instead_of_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(psutil, "net_if_addrs", _fails)
    monkeypatch.setattr(psutil, "net_if_stats", _fails)
    assert netinfo.local_addresses(include_loopback=True) == []
    assert environment.interface_for_address("127.0.0.1") is None


def test_failed_interface_states_keep_the_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(psutil, "net_if_stats", _fails)
    found = netinfo.local_addresses(include_loopback=True)
    assert any(a.address == "127.0.0.1" and a.scope == "loopback" for a in found)
