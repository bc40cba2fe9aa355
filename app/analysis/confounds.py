"""Confounds said out loud: every way the compared sessions differ besides the condition the
user compares (the stated security, medium and tags), one sentence each. An empty list means
the sessions were measured alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.domain.net import Protocol
from app.domain.plan_fields import PLAN_FIELDS, Kind, PlanField
from app.domain.records import SessionRecord
from app.domain.units import format_rate

#: Wi-Fi readings further apart than these are worth a warning.
SIGNAL_DB = 6  # dB: four times the power, beyond the usual drift of a fixed link
PHY_RATE_SHARE = 0.2  # a fifth of the link rate


def _name(session: SessionRecord) -> str:
    return f"“{session.name or session.short_id}”"


def _wifi(session: SessionRecord) -> Mapping[str, Any]:
    wifi = session.environment.get("wifi")
    return wifi if isinstance(wifi, Mapping) else {}


def _band(frequency: object) -> str | None:
    if not isinstance(frequency, int | float):
        return None
    return "2.4 GHz" if frequency < 3000 else ("5 GHz" if frequency < 5925 else "6 GHz")


def confounds(baseline: SessionRecord, others: Sequence[SessionRecord]) -> list[str]:
    """One sentence per difference between the baseline session and each other session."""
    sentences: list[str] = []
    for other in others:
        sentences += _differences(baseline, other)
    return list(dict.fromkeys(sentences))


def _differences(a: SessionRecord, b: SessionRecord) -> list[str]:
    pa, pb = a.plan, b.plan
    na, nb = _name(a), _name(b)
    found: list[str] = []

    def differs(what: str, va: object, vb: object, why: str) -> None:
        if va != vb:
            found.append(f"{nb} differs from {na} in {what} ({vb} against {va}): {why}")

    differs(
        "engine",
        pa.engine.value,
        pb.engine.value,
        "engines measure differently, so part of any difference may be the engine's.",
    )
    versions_a, versions_b = _engine_versions(a), _engine_versions(b)
    if pa.engine is pb.engine and versions_a and versions_b and versions_a != versions_b:
        found.append(
            f"{nb} differs from {na} in {pa.engine.value} version ({versions_b} against "
            f"{versions_a}): releases differ in how they send and count."
        )
    for field in PLAN_FIELDS:
        if not field.confound or field.variable in (pa.variable, pb.variable):
            continue
        if field.udp_only and not (Protocol.UDP in pa.protocols and Protocol.UDP in pb.protocols):
            continue
        differs(
            field.confound_words or field.words,
            _value(field, getattr(pa, field.name)),
            _value(field, getattr(pb, field.name)),
            field.confound,
        )
    differs(
        "direction",
        pa.direction.value,
        pb.direction.value,
        "upload and download take different paths through the devices.",
    )
    if not (pa.peer.is_this_computer and pb.peer.is_this_computer):
        differs(
            "peer",
            pa.peer.name or pa.peer.host,
            pb.peer.name or pb.peer.host,
            "another peer is another link and another computer.",
        )
    os_a, os_b = _os(a), _os(b)
    if os_a and os_b:
        differs("operating system", os_a, os_b, "network stacks differ between systems.")
    found += _wifi_differences(a, b)
    return found


def _wifi_differences(a: SessionRecord, b: SessionRecord) -> list[str]:
    wa, wb = _wifi(a), _wifi(b)
    if not wa or not wb:
        return []
    na, nb = _name(a), _name(b)
    found = []
    sa, sb = wa.get("signal_dbm"), wb.get("signal_dbm")
    if isinstance(sa, int | float) and isinstance(sb, int | float) and abs(sa - sb) > SIGNAL_DB:
        found.append(
            f"{nb} had a Wi-Fi signal of {sb} dBm against {sa} dBm in {na} (more than "
            f"{SIGNAL_DB} dB apart): a weaker signal means slower rates and more retries."
        )
    ca, cb = wa.get("channel"), wb.get("channel")
    if ca is not None and cb is not None and ca != cb:
        found.append(
            f"{nb} used Wi-Fi channel {cb} against {ca} in {na}: channels differ in width "
            f"and in the neighbours that share them."
        )
    ba, bb = _band(wa.get("frequency_mhz")), _band(wb.get("frequency_mhz"))
    if ba and bb and ba != bb:
        found.append(f"{nb} was on the {bb} band against {ba} in {na}.")
    ra, rb = wa.get("phy_rate_mbps"), wb.get("phy_rate_mbps")
    if isinstance(ra, int | float) and isinstance(rb, int | float) and max(ra, rb) > 0:
        if abs(ra - rb) > PHY_RATE_SHARE * max(ra, rb):
            found.append(
                f"{nb} linked at {rb:g} Mbit/s against {ra:g} Mbit/s in {na} (more than "
                f"{PHY_RATE_SHARE:.0%} apart): the link rate caps what can be delivered."
            )
    return found


def _engine_versions(session: SessionRecord) -> str:
    versions = session.environment.get("engine_versions")
    if isinstance(versions, Mapping):
        value = versions.get(session.plan.engine.value)
        return str(value) if value else ""
    return ""


def _os(session: SessionRecord) -> str:
    env = session.environment
    name, version = env.get("os_name"), env.get("os_version")
    if not name:
        return ""
    return f"{name} {version}" if version else str(name)


def _value(field: PlanField, value: Any) -> str:
    """A setting as a confound says it: "60 s", "unlimited", "the engine's default"."""
    if field.kind is Kind.RATE:
        return "unlimited" if not value else format_rate(value)
    if value is None:
        return "the engine's default"
    return f"{value} {field.unit}" if field.unit else str(value)
