"""The DSCP marks a plan's traffic can carry, by name: the Wi-Fi access categories as RFC 8325
maps them, the DSCP classes, or a number 0-63."""

from __future__ import annotations

from collections.abc import Mapping

#: The Wi-Fi access categories by the DSCP RFC 8325 maps each to (section 4.3).
ACCESS_CATEGORIES: Mapping[str, int] = {"BK": 8, "BE": 0, "VI": 34, "VO": 46}
#: The DSCP classes by name (RFC 2474's class selectors, RFC 2597's AF, RFC 3246's EF).
DSCP_CLASSES: Mapping[str, int] = {
    **{f"CS{n}": 8 * n for n in range(8)},
    **{f"AF{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)},
    "EF": 46,
}


def dscp_name(text: str) -> str:
    """A DSCP mark as a plan keeps it: an access category or class in capitals ("VO",
    "AF41"), or a number 0-63 ("46"); ValueError says what is wrong."""
    word = text.strip().upper()
    if word in ACCESS_CATEGORIES or word in DSCP_CLASSES:
        return word
    if word.isdigit() and int(word) <= 63:
        return str(int(word))
    raise ValueError(
        f"{text!r} is no DSCP mark: write an access category (BK, BE, VI, VO), a class "
        f"(CS1, AF41, EF) or a number 0-63"
    )


def dscp_code(name: str) -> int:
    """The DSCP (0-63) of a mark as the plan keeps it."""
    word = dscp_name(name)
    codes = {**ACCESS_CATEGORIES, **DSCP_CLASSES}
    return codes[word] if word in codes else int(word)


def tos_byte(name: str) -> int:
    """The IP TOS byte (IPv6: traffic class) of a mark, as the engines' options take it: the
    DSCP in its upper six bits, the two ECN bits left clear."""
    return dscp_code(name) << 2
