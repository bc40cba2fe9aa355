"""What LinkLab could read of a Wi-Fi interface: connected (and what to), or why it could not,
in a sentence that says what to do; with the tool or API that said it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.study.host.wifi import WifiInfo, optional_str, security_from_text

#: The Settings page Windows' location gate is opened on (Privacy & security › Location).
LOCATION_SETTINGS_URI = "ms-settings:privacy-location"
#: Where that switch is, in the words of Windows 11's Settings app.
LOCATION_SETTING = (
    "Settings › Privacy & security › Location › Let desktop apps access your location"
)


class WifiState(StrEnum):
    """Each outcome of asking the system about a Wi-Fi interface."""

    CONNECTED = "connected"
    DISCONNECTED = "disconnected"  # a Wi-Fi adapter, associated with no network
    RADIO_OFF = "radio-off"  # Wi-Fi switched off (software switch, airplane mode, hardware)
    REFUSED_LOCATION = "refused-location"  # Windows 11 24H2+: location access is off
    SERVICE_OFF = "service-off"  # Windows' WLAN AutoConfig service (wlansvc) is stopped
    NO_ADAPTER = "no-adapter"  # this computer has no Wi-Fi adapter at all
    NOT_WIRELESS = "not-wireless"  # the interface asked about is not a Wi-Fi one
    UNREADABLE = "unreadable"  # the tools gave no answer LinkLab can read (detail says)


_WIRELESS = frozenset({WifiState.CONNECTED, WifiState.DISCONNECTED, WifiState.RADIO_OFF})
#: Outcomes after which the Wi-Fi security can only be stated by the user.
MUST_STATE = frozenset({WifiState.REFUSED_LOCATION, WifiState.SERVICE_OFF, WifiState.UNREADABLE})


@dataclass(frozen=True)
class WifiReading:
    """One interface's outcome: state, the tool or API that said it, and (connected) what
    it said; detail carries the system's own words or error code where it gave some."""

    state: WifiState
    source: str
    interface: str | None = None
    info: WifiInfo | None = None
    detail: str = ""
    #: Whether the interface is a Wi-Fi one (its medium), where the source said so; the
    #: states that say it themselves set it.
    wireless: bool | None = None

    def __post_init__(self) -> None:
        if self.state in _WIRELESS:
            object.__setattr__(self, "wireless", True)
        elif self.state in (WifiState.NOT_WIRELESS, WifiState.NO_ADAPTER):
            object.__setattr__(self, "wireless", False)

    @property
    def security(self) -> str | None:
        """LinkLab's security value of a connected interface, or None."""
        if self.state is not WifiState.CONNECTED or self.info is None:
            return None
        return security_from_text(self.info.security)

    @property
    def needs_location(self) -> bool:
        return self.state is WifiState.REFUSED_LOCATION

    def sentence(self) -> str:
        """What the outcome means and what to do, then the tool or API that said it."""
        return f"{self._said()} Source: {self.source}." if self.source else self._said()

    def _said(self) -> str:
        where = self.interface or "the Wi-Fi adapter"
        match self.state:
            case WifiState.CONNECTED:
                info = self.info or WifiInfo()
                network = f"“{info.ssid}”" if info.ssid else "a hidden network"
                security = self.security
                secured = f"{security} detected" if security else "its security not said"
                return f"{where} is connected to {network}, {secured}."
            case WifiState.DISCONNECTED:
                return (
                    f"{where} is not connected to a Wi-Fi network: connect it, or state the "
                    "security yourself."
                )
            case WifiState.RADIO_OFF:
                return (
                    f"Wi-Fi is switched off on {where}: turn it on (the Wi-Fi switch, or "
                    "airplane mode off), or state the security yourself."
                )
            case WifiState.REFUSED_LOCATION:
                return (
                    "Windows lets LinkLab read the Wi-Fi network only with location access "
                    f"on: {LOCATION_SETTING}. Until then, state the security yourself."
                )
            case WifiState.SERVICE_OFF:
                return (
                    "The WLAN AutoConfig service (wlansvc) is stopped, so Windows tells "
                    "LinkLab nothing about Wi-Fi: start it (Services › WLAN AutoConfig › "
                    "Start), or state the security yourself."
                )
            case WifiState.NO_ADAPTER:
                return "This computer has no Wi-Fi adapter."
            case WifiState.NOT_WIRELESS:
                return f"{where} is not a Wi-Fi interface: no Wi-Fi security applies."
            case _:
                because = f": {self.detail}" if self.detail else ""
                return (
                    f"LinkLab could not read the Wi-Fi of {where}{because}. State the "
                    "security yourself."
                )

    def facts(self) -> list[str]:
        """The association's figures in words ("channel 36", "5180 MHz", "-47 dBm", "866.7
        Mbit/s PHY", "802.11ac"), each only where it was read."""
        info = self.info
        if info is None or self.state is not WifiState.CONNECTED:
            return []
        said = [
            f"channel {info.channel}" if info.channel is not None else "",
            f"{info.frequency_mhz} MHz" if info.frequency_mhz is not None else "",
            f"{info.signal_dbm} dBm" if info.signal_dbm is not None else "",
            f"signal {info.signal_pct} %" if info.signal_pct is not None else "",
            f"{info.phy_rate_mbps:g} Mbit/s PHY" if info.phy_rate_mbps is not None else "",
            info.standard or "",
        ]
        links = [
            f"link {link.link_id}"
            + (f" {link.frequency_mhz} MHz" if link.frequency_mhz is not None else "")
            for link in info.links
        ]
        if links:
            said.append(f"multi-link ({', '.join(links)})")
        return [word for word in said if word]

    def to_dict(self) -> dict[str, Any]:
        """The outcome as stored with a session (the association itself is stored apart)."""
        return {
            "state": self.state.value,
            "source": self.source,
            "interface": self.interface,
            "detail": self.detail,
            "wireless": self.wireless,
        }

    @classmethod
    def from_dict(cls, data: object, info: WifiInfo | None = None) -> WifiReading | None:
        """Read stored data; None for anything that is not a reading."""
        if not isinstance(data, Mapping):
            return None
        try:
            state = WifiState(str(data.get("state")))
        except ValueError:
            return None
        return cls(
            state=state,
            source=optional_str(data.get("source")) or "",
            interface=optional_str(data.get("interface")),
            info=info if state is WifiState.CONNECTED else None,
            detail=optional_str(data.get("detail")) or "",
            wireless=wireless if isinstance(wireless := data.get("wireless"), bool) else None,
        )


def not_detected(environment: Mapping[str, Any]) -> str | None:
    """Why a stored snapshot's Wi-Fi security could not be detected, and what to do (said
    before the first run of a session that states none); None when nothing stands in the way."""
    reading = WifiReading.from_dict(environment.get("wifi_reading"))
    if reading is None or reading.state not in MUST_STATE:
        return None
    return f"The Wi-Fi security was not detected: {reading.sentence()}"
