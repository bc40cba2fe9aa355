"""Where a class's collector listens, as an exercise file names it: an http:// address and the
class token that lets a student's LinkLab hand its runs in there as they are measured."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

from app.domain.errors import BadOption

__all__ = ["MAX_TOKEN", "Collector", "check_token", "collector_from_dict", "collector_url"]

MAX_URL = 300
MAX_TOKEN = 200
#: A class token: letters, digits and - _ . ~ (what secrets.token_urlsafe gives), so that it
#: survives a command line, an HTTP header and a file unchanged.
_TOKEN = re.compile(r"[A-Za-z0-9_.~-]{8,200}")


@dataclass(frozen=True)
class Collector:
    url: str  # http://HOST:PORT, no path
    token: str = ""  # the class token ("" when the student types it)


def collector_url(text: str) -> str:
    """The collector's address as http://HOST:PORT (a missing scheme is taken as http://);
    BadOption with a sentence when it is not one."""
    text = text.strip()
    if "://" not in text:
        text = f"http://{text}"
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or len(text) > MAX_URL
        or any(c.isspace() for c in text)
    ):
        raise BadOption(
            f"{text[:80]!r} is not a collector's address: give it as http://HOST:PORT, as the "
            f"instructor's LinkLab shows it."
        )
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}:{port or (443 if parts.scheme == 'https' else 80)}"


def check_token(token: str, where: str = "The class token") -> str:
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        raise BadOption(
            f"{where} must be 8 to {MAX_TOKEN} letters, digits or - _ . ~: copy it as the "
            f"instructor's LinkLab shows it."
        )
    return token


def collector_from_dict(value: object) -> Collector | None:
    """The collector named in an exercise file, or None; BadOption when it is malformed."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("url"), str):
        raise BadOption("names a collector without an address (url)")
    token = value.get("token", "")
    if not isinstance(token, str):
        raise BadOption("names a collector whose token is not text")
    return Collector(collector_url(value["url"]), check_token(token) if token else "")
