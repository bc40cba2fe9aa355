"""Who may ask the class collector what, and how much: the credential each route takes (the
class token, or only the instructor's), the requests one address may send a second (a token
bucket per address), and a refusal with its status and sentence."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

__all__ = ["INSTRUCTOR_ONLY", "REASONS", "ROUTES", "Buckets", "Credential", "Limits", "Refusal"]

REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    411: "Length Required",
    413: "Content Too Large",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class Credential(Enum):
    """Who may call a route: a station (the class token, or the instructor's), or only the
    instructor (the instructor token)."""

    STATION = "class token"
    INSTRUCTOR = "instructor token"


#: Every route and the credential it takes (docs/guide/class.md says the same in words).
ROUTES: dict[tuple[str, str], Credential] = {
    ("POST", "/v1/push"): Credential.STATION,
    ("GET", "/v1/station"): Credential.STATION,
    ("GET", "/v1/exercises"): Credential.STATION,
    ("GET", "/v1/health"): Credential.STATION,
    ("POST", "/v1/together/clock"): Credential.STATION,
    ("POST", "/v1/together/checkin"): Credential.STATION,
    ("GET", "/v1/together/next"): Credential.STATION,
    ("POST", "/v1/pool"): Credential.INSTRUCTOR,
    ("GET", "/v1/class"): Credential.INSTRUCTOR,
    ("POST", "/v1/together/start"): Credential.INSTRUCTOR,
    ("GET", "/v1/together"): Credential.INSTRUCTOR,
}

#: What needing the instructor token means, per route, for the refusal's sentence.
INSTRUCTOR_ONLY = {
    "/v1/pool": "Registering the class's servers",
    "/v1/class": "Reading the whole class",
    "/v1/together/start": "Starting the class together",
    "/v1/together": "Reading what the class measured together",
}


@dataclass(frozen=True)
class Limits:
    """What one collector accepts: a push's size, and requests per second from one address
    (a burst of up to `burst` at once, then `rate` a second)."""

    max_body: int = 8 * 1024 * 1024
    rate: float = 50.0
    burst: int = 200
    addresses: int = 4096  # addresses remembered for their rate (the oldest forgotten)


class Buckets:
    """A token bucket per client address, in bounded memory."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str) -> float:
        """0 when a request may go ahead, else the seconds until it may."""
        now = time.monotonic()
        limits = self.limits
        with self._lock:
            tokens, when = self._buckets.pop(address, (float(limits.burst), now))
            tokens = min(float(limits.burst), tokens + (now - when) * limits.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / limits.rate
            self._buckets[address] = (tokens - 1 if wait == 0 else tokens, now)
            while len(self._buckets) > limits.addresses:
                self._buckets.popitem(last=False)
        return wait


class Refusal(Exception):
    def __init__(self, status: int, sentence: str, headers: Iterable[tuple[str, str]] = ()):
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence
        self.headers = list(headers)
