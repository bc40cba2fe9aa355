"""The one rule by which what the system says of the link becomes a session's conditions (the
window's form and `linklab run` both take it): an unknown medium from the adapter, the link
rate from a Wi-Fi PHY rate the model can use, each marked with what said it; never a wired
adapter's speed, never over what the user stated or an exercise locks."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from app.domain.plan import Conditions, Medium, Security
from app.study.host.detected_conditions import (
    DETECTABLE,
    detected_medium,
    detected_rate,
    with_detected,
)
from app.study.host.environment import DetectedLink

WIRED = DetectedLink("veth0", Medium.ETHERNET, adapter_speed_bps=10_000_000_000)
WIFI = DetectedLink("wlan0", Medium.AC, 866_700_000, wireless=True)


def test_a_wired_adapter_gives_ethernet_detected_and_no_rate() -> None:
    found = with_detected(Conditions(), WIRED)
    assert (found.medium, found.medium_detected_by) == (Medium.ETHERNET, "veth0, a wired adapter")
    assert (found.link_rate_bps, found.link_rate_detected_by) == (None, "")
    # A Wi-Fi security stated: the Wi-Fi hop is further along, the adapter says nothing of it.
    wpa2 = with_detected(Conditions(security=Security.WPA2), WIRED)
    assert (wpa2.medium, wpa2.medium_detected_by) == (Medium.UNKNOWN, "")


def test_wifi_gives_its_standard_and_its_phy_rate_once_the_security_is_known() -> None:
    unknown = with_detected(Conditions(), WIFI)
    assert unknown.medium is Medium.AC and unknown.link_rate_bps is None
    known = with_detected(Conditions(security=Security.WPA2), WIFI)
    assert (known.link_rate_bps, known.link_rate_detected_by) == (
        866_700_000,
        "wlan0's Wi-Fi PHY rate",
    )
    # Another medium stated: that PHY rate is no rate of it.
    other = with_detected(Conditions(security=Security.OPEN, medium=Medium.N), WIFI)
    assert other.medium is Medium.N and other.link_rate_bps is None


def test_what_was_detected_is_detected_again_and_taken_back_when_nothing_says_it() -> None:
    before = with_detected(Conditions(security=Security.WPA2), WIFI)
    assert with_detected(before, WIFI) == before
    gone = with_detected(before, None)  # the loopback, another peer
    assert gone == Conditions(security=Security.WPA2)
    assert with_detected(before, WIRED).medium is Medium.UNKNOWN  # WPA2 is further along


def test_the_users_word_and_the_exercises_stay() -> None:
    stated = Conditions(medium=Medium.N, link_rate_bps=54_000_000)
    assert with_detected(stated, WIRED) == stated
    assert with_detected(stated, WIFI) == stated
    assert with_detected(Conditions(), WIRED, locked=DETECTABLE) == Conditions()
    only_rate = with_detected(Conditions(security=Security.WPA2), WIFI, locked=["link-rate"])
    assert only_rate.medium is Medium.AC and only_rate.link_rate_bps is None


links = st.builds(
    DetectedLink,
    interface=st.sampled_from(["eth0", "wlan0", "veth1"]),
    medium=st.sampled_from([None, *Medium]),
    rate_bps=st.none() | st.integers(1, 10**11),
    adapter_speed_bps=st.none() | st.integers(1, 10**11),
    wireless=st.booleans(),
)
conditions = st.builds(
    Conditions,
    security=st.sampled_from(list(Security)),
    medium=st.sampled_from(list(Medium)),
    link_rate_bps=st.none() | st.integers(1, 10**11),
)


@given(st.none() | links, conditions, st.sets(st.sampled_from(DETECTABLE)))
def test_the_rule_over_any_link(
    link: DetectedLink | None, stated: Conditions, locked: set[str]
) -> None:
    found = with_detected(stated, link, locked)
    # Nothing but the medium and the rate changes; what the user stated stays.
    assert (
        replace(
            found,
            medium=stated.medium,
            medium_detected_by="",
            link_rate_bps=stated.link_rate_bps,
            link_rate_detected_by="",
        )
        == stated
    )
    if "medium" in locked or stated.medium is not Medium.UNKNOWN:
        assert (found.medium, found.medium_detected_by) == (stated.medium, "")
    elif found.medium is not Medium.UNKNOWN:
        assert link is not None and found.medium is link.medium
        assert found.medium is detected_medium(link, stated.security)
        assert found.medium_detected_by == link.medium_source
    if "link-rate" in locked or stated.link_rate_bps is not None:
        assert (found.link_rate_bps, found.link_rate_detected_by) == (stated.link_rate_bps, "")
    elif found.link_rate_bps is not None:
        # Only a PHY rate in use, never an adapter's nominal speed, marked as detected.
        assert link is not None and found.link_rate_bps == link.rate_bps
        assert found.link_rate_bps == detected_rate(link, found.medium, found.security)
        assert found.link_rate_detected_by == link.rate_source
    else:
        assert found.link_rate_detected_by == ""
    # Detected once, the same again: a restart says what the first use said.
    assert with_detected(found, link, locked) == found
