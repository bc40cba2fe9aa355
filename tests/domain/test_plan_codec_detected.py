"""Where a condition came from travels with a plan: read back as written, printable and on one
line when it comes from outside, and left out of the JSON when nothing was detected (so that a
plan that detected nothing reads in earlier LinkLabs)."""

from __future__ import annotations

from dataclasses import replace

from app.domain.plan import Conditions, Medium, Peer, Plan
from app.domain.plan_codec import conditions_from_dict, plan_from_dict


def test_what_detected_a_condition_is_kept_and_left_out_when_nothing_was() -> None:
    plan = Plan(peer=Peer("lab-peer"), conditions=Conditions(medium=Medium.ETHERNET))
    data = plan.to_dict()
    assert "medium_detected_by" not in data["conditions"]
    assert "link_rate_detected_by" not in data["conditions"]
    detected = replace(
        plan,
        conditions=replace(
            plan.conditions,
            medium_detected_by="eth0, a wired adapter",
            link_rate_bps=866_700_000,
            link_rate_detected_by="wlan0's Wi-Fi PHY rate",
        ),
    )
    assert plan_from_dict(detected.to_dict()) == detected


def test_a_source_from_outside_is_printable_and_on_one_line() -> None:
    read = conditions_from_dict(
        {"medium": "Ethernet", "medium_detected_by": "eth0\x07,\n a wired\tadapter" + "x" * 300}
    )
    assert read.medium_detected_by.startswith("eth0, a wired adapter")
    assert "\n" not in read.medium_detected_by and len(read.medium_detected_by) <= 200
