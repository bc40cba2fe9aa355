"""How the Measure tab names what runs: a series in the legend, the time left in the status bar."""

from __future__ import annotations

from app.domain.plan import Plan, Security, Series


def series_name(plan: Plan, series: Series) -> str:
    """Legend text from what the session says: "IPv4 · WPA2", "UDP · IPv6"."""
    parts = []
    if len(plan.protocols) > 1:
        parts.append(series.protocol.value.upper())
    parts.append(f"IPv{int(series.ip_version)}")
    if plan.conditions.security is not Security.UNKNOWN:
        parts.append(plan.conditions.security.value)
    return " · ".join(parts)


def eta_text(seconds: float) -> str:
    """The time left as the status bar says it: "1:05", "2 h 03 min"."""
    seconds = round(seconds)
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes}:{secs:02d}"
