"""iperf3's own errors: another program found where iperf3 was expected."""

from __future__ import annotations

from app.engine.errors import EngineError, ParseError
from app.engine.install_hint import install_hint


class NotIperf3(ParseError):
    """The program run as iperf3 is iperf 2, a different program with other options."""

    def __init__(self, seen: str) -> None:
        EngineError.__init__(
            self,
            f"The program LinkLab ran as iperf3 is iperf 2 (it printed {seen[:80]!r}), a "
            f"different program with other options and output: iperf3 3.1 or newer is needed; "
            f"{install_hint('iperf3', bundled_on_windows=True)}.",
            detail=seen,
        )
