"""The conditions area says why the Wi-Fi security could not be read, and what to do: driven
in the real window, by its visible labels, on a Windows whose netsh prints the real outputs
of ../shared/wifi-outputs/ (Windows 11 refusing without location access; the WLAN AutoConfig
service stopped). The location refusal's button asks the system to open Windows' location
settings; a session measured after the user states the security records it as stated, and
why it was not detected."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtGui import QDesktopServices

from app.domain.plan import Security
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.host.environment import route_to
from app.study.host.wifi_query import WifiTools
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.journey import UrlsOpened
from tests.ui.user import User, wait_for

OUTPUTS = Path(__file__).resolve().parents[3] / "shared" / "wifi-outputs"
REFUSED = "netsh-win11-en-location-denied-accessdenied-tail.txt"
STOPPED = "netsh-win-en-wlansvc-not-running-LITERAL.txt"
LOCATION_SENTENCE = (
    "Windows lets LinkLab read the Wi-Fi network only with location access on: Settings › "
    "Privacy & security › Location › Let desktop apps access your location."
)

pytestmark = pytest.mark.skipif(
    not OUTPUTS.is_dir(), reason=f"the shared Wi-Fi outputs are not here ({OUTPUTS})"
)


@pytest.fixture
def netsh_file(request: pytest.FixtureRequest) -> str:
    """The shared output netsh prints in the test (its parameter)."""
    return str(request.param)


@pytest.fixture
def context(context: AppContext, netsh_file: str) -> AppContext:
    """The window's context on a Windows whose netsh prints netsh_file (there is no Native
    Wifi API on this machine). A capture naming its adapter "Wi-Fi" names the interface this
    computer routes to the peer by instead, so that it is the one asked about."""
    routed = route_to("127.0.0.1")[1] or "lo"
    text = read(netsh_file).replace(": Wi-Fi\n", f": {routed}\n")

    def netsh(argv: Sequence[str]) -> str | None:
        return text if list(argv[:2]) == ["netsh", "wlan"] else None

    context.wifi = WifiTools(runner=netsh, system="Windows", native=lambda: None)
    return context


def read(name: str) -> str:
    return (OUTPUTS / name).read_bytes().decode("utf-8")


@pytest.fixture
def opened() -> Iterator[UrlsOpened]:
    """Where the window's request to open an ms-settings: page goes (no Settings app here)."""
    handler = UrlsOpened()
    QDesktopServices.setUrlHandler("ms-settings", handler, "open")
    try:
        yield handler
    finally:
        QDesktopServices.unsetUrlHandler("ms-settings")


def detection_said(user: User, words: str) -> None:
    wait_for(
        lambda: user.can_see("Wi-Fi detection") and words in user.text("Wi-Fi detection"),
        15,
        f"the Wi-Fi detection to say {words!r}",
    )


@pytest.mark.parametrize("netsh_file", [REFUSED], indirect=True)
def test_location_refused_is_said_where_the_security_is_with_its_settings_button(
    window: MainWindow, user: User, opened: UrlsOpened
) -> None:
    user.tab("Measure")
    detection_said(user, LOCATION_SENTENCE)
    assert "state the security yourself" in user.text("Wi-Fi detection")
    assert "Source: netsh wlan show interfaces." in user.text("Wi-Fi detection")
    assert user.text("Security") == "unknown"  # nothing detected, nothing guessed
    # The button asks the system to open Windows' own location page.
    user.click("Open location settings")
    wait_for(lambda: opened.urls, 5, "the location settings to be asked for")
    assert [url.toString() for url in opened.urls] == ["ms-settings:privacy-location"]


@pytest.mark.parametrize("netsh_file", [REFUSED], indirect=True)
@pytest.mark.usefixtures("iperf3_tool")
def test_a_security_stated_after_the_refusal_is_stored_as_stated(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    detection_said(user, LOCATION_SENTENCE)
    # The user states the security, and measures.
    user.choose("Security", "WPA2")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.type("Session name", "stated WPA2")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 120, "the study to end")
    assert "completed" in user.text("Status"), user.text("Log")
    # Stored: the security as the user stated it, and why it was not detected.
    with Database(window.context.db_path, readonly=True) as db:
        (stored,) = [s for s in SessionStore(db).list_sessions() if s.name == "stated WPA2"]
    assert stored.plan.conditions.security is Security.WPA2
    assert not stored.plan.conditions.security_detected
    assert stored.environment["wifi_reading"]["state"] == "refused-location"
    assert stored.environment["wifi_reading"]["source"] == "netsh wlan show interfaces"
    assert stored.environment["detected_security"] is None
    # The session, reopened, says so.
    user.tab("Sessions")
    wait_for(lambda: any(r[1] == "stated WPA2" for r in user.table_rows("Sessions")), 10, "it")
    row = next(i for i, r in enumerate(user.table_rows("Sessions")) if r[1] == "stated WPA2")
    user.click_row("Sessions", row)
    wait_for(lambda: "stated WPA2" in user.text("Session details"), 10, "the session's view")
    user.tab("Details")
    details = user.text("Session conditions and environment")
    assert "Security: WPA2, stated" in details
    assert f"not detected: {LOCATION_SENTENCE}" in details


@pytest.mark.parametrize("netsh_file", [STOPPED], indirect=True)
def test_a_stopped_wlan_service_is_said_without_the_location_button(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    detection_said(user, "The WLAN AutoConfig service (wlansvc) is stopped")
    assert "Services › WLAN AutoConfig › Start" in user.text("Wi-Fi detection")
    assert not user.can_see("Open location settings")
    assert user.text("Security") == "unknown"


@pytest.mark.parametrize("netsh_file", ["netsh-win11-fr-connected-open.txt"], indirect=True)
def test_a_french_windows_security_is_detected_and_named_with_its_source(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    detection_said(user, "is connected to “SSID-1”, open detected")
    assert "Source: netsh wlan show interfaces." in user.text("Wi-Fi detection")
    wait_for(lambda: user.text("Security") == "open (no security)", 10, "the security")
    assert not user.can_see("Open location settings")
