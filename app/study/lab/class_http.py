"""Talking to a class's collector over HTTP (the standard library's client, no proxy: a
collector is on the lab's own network): one request, its status, its JSON and the collector's
sentence; a collector that cannot be reached is said in a sentence too."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answer", "call"]

#: How long one request may take: a push is a short transaction, a class view a few
#: hundred milliseconds.
TIMEOUT_S = 15.0
_MAX_ANSWER = 64 * 1024 * 1024

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True)
class Answer:
    status: int  # 0: the collector could not be reached
    data: Any = None  # the JSON answered, when there is one
    sentence: str = ""  # the collector's words, or why it could not be reached
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case

    @property
    def reached(self) -> bool:
        return self.status != 0


def call(
    url: str,
    token: str,
    path: str,
    body: bytes | None = None,
    *,
    etag: str = "",
    timeout: float = TIMEOUT_S,
) -> Answer:
    """GET (or, with a body, POST JSON to) the collector at url."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if etag:
        headers["If-None-Match"] = etag
    if not url.startswith(("http://", "https://")):
        return Answer(0, None, f"{url[:80]!r} is not a collector's address (http://HOST:PORT)")
    target = url.rstrip("/") + path
    request = urllib.request.Request(target, data=body, headers=headers)  # noqa: S310 (http only)
    try:
        with _opener.open(request, timeout=timeout) as response:
            return _answer(response.status, response.read(_MAX_ANSWER), dict(response.headers))
    except urllib.error.HTTPError as err:
        with err:
            return _answer(err.code, err.read(_MAX_ANSWER), dict(err.headers or {}))
    except (TimeoutError, urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return Answer(0, None, f"the collector at {url} cannot be reached ({reason})")


def _answer(status: int, raw: bytes, given: dict[str, str]) -> Answer:
    headers = {k.lower(): v for k, v in given.items()}
    data: Any = None
    if raw:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = None
    sentence = data.get("sentence", "") if isinstance(data, dict) else ""
    if not sentence and status >= 400:
        sentence = f"the collector answered {status} without saying why"
    return Answer(status, data, str(sentence), headers)
