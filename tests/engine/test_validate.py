"""Host and range checks for values that end up in an engine's argv."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.errors import BadOption
from app.engine.errors import LinkLocalNeedsZone
from app.engine.lan.validate import check_port, check_range, validate_host


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "::1",
        "2001:db8::5",
        "fe80::1%eth0",
        "fe80::1%12",
        "peer",
        "lab-pc.local",
        "a" * 63 + ".example",
        "example.com.",
        "xn--bcher-kva.example",
    ],
)
def test_valid_hosts(host: str) -> None:
    assert validate_host(host) == host


@pytest.mark.parametrize(
    "host",
    [
        "",
        "-R",
        "--logfile=x",
        "a b",
        "x;y",
        "a" * 254,
        "fe80::1%",
        "1.2.3",
        "-1.2.3.4",
        "a\tb",
        "a\x00b",
        "ex_ample.com",
        "a..b",
        "-peer",
        "peer-",
        "2001:db8::g",
        "fe80::1%a b",
        "é.example",
        "999.1.1.1",
    ],
)
def test_invalid_hosts(host: str) -> None:
    with pytest.raises(BadOption) as info:
        validate_host(host)
    assert str(info.value).endswith(".")


def test_link_local_needs_zone() -> None:
    with pytest.raises(LinkLocalNeedsZone, match="fe80::1%eth0"):
        validate_host("fe80::1")


@given(st.text(max_size=300))
def test_accepted_hosts_are_safe_argv(host: str) -> None:
    try:
        validate_host(host)
    except BadOption:
        return
    assert not host.startswith("-")
    assert len(host) <= 253
    assert not any(ch.isspace() or ord(ch) < 32 for ch in host)


def test_ranges() -> None:
    check_port(5201)
    for bad in (0, 65536, -1):
        with pytest.raises(BadOption, match="between 1 and 65535"):
            check_port(bad)
    with pytest.raises(BadOption):
        check_port(True)  # type: ignore[arg-type]
    with pytest.raises(BadOption, match="UDP packet size must be between 16 bytes and 65507 bytes"):
        check_range(70000, 16, 65507, "UDP packet size", "bytes")


@pytest.mark.parametrize(
    ("value", "low", "high", "unit", "sentence"),
    [
        (2 * 1024**3, 1024, 1024**3, "bytes", "between 1 KiB and 1 GiB; it is 2 GiB."),
        (100 * 1024**2, 1, 1024**2, "bytes", "between 1 byte and 1 MiB; it is 100 MiB."),
        (1500, 1600, 65507, "bytes", "between 1600 bytes and 65507 bytes; it is 1500 bytes."),
        (2 * 10**14, 0, 10**14, "bit/s", "between 0 bit/s and 100 Tbit/s; it is 200 Tbit/s."),
        (0.05, 0.1, 60, "s", "between 0.1 s and 60 s; it is 0.05 s."),
    ],
)
def test_range_messages_use_the_units_a_user_types(
    value: float, low: float, high: float, unit: str, sentence: str
) -> None:
    """As found: "1.04858e+06 bytes" for a limit a user types as 1M."""
    with pytest.raises(BadOption) as info:
        check_range(value, low, high, "setting", unit)
    assert str(info.value) == f"The setting must be {sentence}"
    assert "e+" not in str(info.value)
