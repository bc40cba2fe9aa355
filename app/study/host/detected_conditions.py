"""What the system says of the link to the peer taken as a session's conditions: the one rule
the window's form and `linklab run` share, for the medium and the link rate the user left
unstated, each marked with what said it (never as stated)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from app.analysis.overhead import WIFI
from app.domain.plan import Conditions, Medium, Security

if TYPE_CHECKING:
    from app.study.host.environment import DetectedLink

#: The conditions detection may fill, by the name an exercise locks them with.
DETECTABLE = ("medium", "link-rate")


def detected_medium(link: DetectedLink | None, security: Security) -> Medium | None:
    """The medium the adapter to the peer says; None when it says none, or when it is a wired
    adapter and a Wi-Fi security is stated (that Wi-Fi hop is further along the path)."""
    wanted = link.medium if link is not None else None
    if wanted is Medium.ETHERNET and security not in (Security.OPEN, Security.UNKNOWN):
        return None
    return wanted


def detected_rate(link: DetectedLink | None, medium: Medium, security: Security) -> int | None:
    """The Wi-Fi PHY rate in use, as the link rate, when the overhead model can use it with
    the medium and security of the conditions; None otherwise. A wired adapter's nominal
    speed never is one: it is the adapter's, not the path's."""
    if link is None or link.rate_bps is None or link.medium is None:
        return None
    if medium not in (Medium.UNKNOWN, link.medium):
        return None
    if link.medium in WIFI and security is Security.UNKNOWN:
        return None
    return link.rate_bps


def with_detected(
    conditions: Conditions, link: DetectedLink | None, locked: Collection[str] = ()
) -> Conditions:
    """conditions with an unknown medium and an unstated link rate filled from link, each
    marked with what said it; one an earlier detection filled is detected again (and taken
    back when link no longer says it). What the user stated, and what an exercise locks
    (names of DETECTABLE in locked), stays as it is."""
    if "medium" not in locked and (
        conditions.medium_detected_by or conditions.medium is Medium.UNKNOWN
    ):
        medium = detected_medium(link, conditions.security)
        if medium is None:
            conditions = replace(conditions, medium=Medium.UNKNOWN, medium_detected_by="")
        else:
            assert link is not None
            conditions = replace(conditions, medium=medium, medium_detected_by=link.medium_source)
    if "link-rate" not in locked and (
        conditions.link_rate_detected_by or conditions.link_rate_bps is None
    ):
        rate = detected_rate(link, conditions.medium, conditions.security)
        if rate is None:
            conditions = replace(conditions, link_rate_bps=None, link_rate_detected_by="")
        else:
            assert link is not None
            conditions = replace(
                conditions, link_rate_bps=rate, link_rate_detected_by=link.rate_source
            )
    return conditions
