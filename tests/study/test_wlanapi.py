"""The Native Wifi API reader fed the API's own structures (laid out as Windows lays them
out), its calls' answers played by stand-ins for wlanapi.dll and iphlpapi.dll; and, on
Windows builds (under Wine, which implements wlanapi with no adapters), the real API."""

from __future__ import annotations

import ctypes
import sys
from ctypes import addressof, c_uint16, c_void_p, create_string_buffer, pointer, sizeof
from typing import Any

import pytest

from app.study.host import wlan_structs, wlanapi
from app.study.host.wifi import WifiInfo, security_from_text
from app.study.host.wifi_query import WifiTools
from app.study.host.wifi_reading import WifiState
from app.study.host.wlan_structs import (
    GUID,
    IP_ADAPTER_ADDRESSES,
    WLAN_BSS_ENTRY,
    WLAN_CONNECTION_ATTRIBUTES,
    WLAN_INTERFACE_INFO,
    WLAN_RADIO_STATE,
    Adapter,
    adapters_from,
    bss_frequency_khz,
    connection_info,
    interface_infos,
    radio_off,
    security_words,
)
from app.study.host.wlanapi import NativeWifi
from tests.conftest import under_wine

WINDOWS = sys.platform == "win32"
BSSID = bytes.fromhex("94 83 c4 06 d0 36")
GUID_TEXT = "{463086FD-A786-4485-9294-72E2A5819ECB}"


def guid() -> GUID:
    value = GUID()
    value.Data1, value.Data2, value.Data3 = 0x463086FD, 0xA786, 0x4485
    value.Data4[:] = list(bytes.fromhex("929472e2a5819ecb"))
    return value


def attributes(
    *, ssid: bytes = b"Lab", phy: int = 10, auth: int = 9, cipher: int = 4, secured: bool = True
) -> WLAN_CONNECTION_ATTRIBUTES:
    """A WLAN_CONNECTION_ATTRIBUTES as WlanQueryInterface(current_connection) fills it."""
    value = WLAN_CONNECTION_ATTRIBUTES()
    value.isState = 1
    association = value.wlanAssociationAttributes
    association.dot11Ssid.uSSIDLength = len(ssid)
    association.dot11Ssid.ucSSID[: len(ssid)] = list(ssid)
    association.dot11BssType = 1
    association.dot11Bssid[:] = list(BSSID)
    association.dot11PhyType = phy
    association.wlanSignalQuality = 92
    association.ulRxRate = 433_300  # kbit/s
    association.ulTxRate = 1_200_900
    security = value.wlanSecurityAttributes
    security.bSecurityEnabled = int(secured)
    security.dot11AuthAlgorithm = auth
    security.dot11CipherAlgorithm = cipher
    return value


def test_the_structures_have_windows_sizes() -> None:
    """The sizes wlanapi.h gives them on 64-bit Windows (WCHAR is 2 bytes there)."""
    assert sizeof(GUID) == 16
    assert sizeof(WLAN_INTERFACE_INFO) == 16 + 512 + 4
    # The association: SSID 36, BSS type 4, BSSID 6 (+2 of padding), five ULONGs 20.
    assert sizeof(wlan_structs.WLAN_ASSOCIATION_ATTRIBUTES) == 36 + 4 + 6 + 2 + 20
    assert sizeof(WLAN_CONNECTION_ATTRIBUTES) == 4 + 4 + 512 + 68 + 16
    assert sizeof(WLAN_BSS_ENTRY) == 360
    assert sizeof(WLAN_RADIO_STATE) == 4 + 64 * 12
    assert guid().text() == GUID_TEXT


def test_a_connection_is_read_from_its_attributes() -> None:
    info = connection_info(attributes(), "Wi-Fi", channel=37, rssi_dbm=-52, frequency_khz=6_135_000)
    assert info == WifiInfo(
        ssid="Lab",
        security="WPA3-Personal",
        phy_rate_mbps=1200.9,
        channel=37,
        frequency_mhz=6135,
        signal_dbm=-52,
        signal_pct=92,
        standard="802.11ax",
        interface="Wi-Fi",
    )
    assert security_from_text(info.security) == "WPA3"


@pytest.mark.parametrize(
    ("auth", "cipher", "secured", "security"),
    [
        (1, 0, False, "open"),
        (1, 1, True, "WEP"),  # open authentication, WEP-40
        (2, 5, True, "WEP"),  # shared key, WEP-104
        (3, 2, True, "WPA"),
        (4, 2, True, "WPA"),
        (6, 4, True, "WPA2"),  # RSNA: WPA2-Enterprise
        (7, 4, True, "WPA2"),  # RSNA_PSK: WPA2-Personal
        (8, 9, True, "WPA3"),  # WPA3-Enterprise 192-bit
        (9, 4, True, "WPA3"),  # SAE
        (11, 4, True, "WPA3"),  # WPA3-Enterprise
        (10, 4, True, None),  # OWE: none of LinkLab's values
        (0x80000001, 4, True, None),  # a vendor's own algorithm: not named
    ],
)
def test_auth_and_cipher_enums_are_linklabs_security(
    auth: int, cipher: int, secured: bool, security: str | None
) -> None:
    value = attributes(auth=auth, cipher=cipher, secured=secured).wlanSecurityAttributes
    assert security_from_text(security_words(value)) == security


def test_a_channel_gives_a_frequency_only_where_it_cannot_be_6_ghz() -> None:
    ht = connection_info(attributes(phy=7), "Wi-Fi", channel=6)
    assert ht.frequency_mhz == 2437 and ht.standard == "802.11n"
    # 802.11ax on channel 5 could be 2.4 GHz or 6 GHz: without the BSS's frequency, unknown.
    he = connection_info(attributes(phy=10), "Wi-Fi", channel=5)
    assert he.frequency_mhz is None and he.channel == 5
    hidden = connection_info(attributes(ssid=b""), "Wi-Fi")
    assert hidden.ssid is None and hidden.channel is None


def test_the_bss_list_names_the_frequency_of_the_associated_bss() -> None:
    entries = (WLAN_BSS_ENTRY * 2)()
    entries[0].dot11Bssid[:] = list(bytes(6))
    entries[0].ulChCenterFrequency = 2_412_000
    entries[1].dot11Bssid[:] = list(BSSID)
    entries[1].ulChCenterFrequency = 5_180_000
    assert bss_frequency_khz(list(entries), BSSID) == 5_180_000
    assert bss_frequency_khz(list(entries), bytes.fromhex("010203040506")) is None


def _interface_list(items: list[tuple[GUID, str, int]]) -> Any:
    """A WLAN_INTERFACE_INFO_LIST with len(items) entries, as WlanEnumInterfaces allocates."""

    class Listing(ctypes.Structure):
        _fields_ = [
            ("dwNumberOfItems", ctypes.c_uint32),
            ("dwIndex", ctypes.c_uint32),
            ("InterfaceInfo", WLAN_INTERFACE_INFO * max(len(items), 1)),
        ]

    listing = Listing()
    listing.dwNumberOfItems = len(items)
    for index, (key, description, state) in enumerate(items):
        entry = listing.InterfaceInfo[index]
        entry.InterfaceGuid = key
        units = list(description.encode("utf-16-le"))
        entry.strInterfaceDescription[: len(units) // 2] = [
            units[i] | units[i + 1] << 8 for i in range(0, len(units), 2)
        ]
        entry.isState = state
    return listing


def test_the_interface_list_is_read_past_its_declared_item() -> None:
    other = GUID()
    other.Data1 = 7
    listing = _interface_list([(other, "USB adapter", 4), (guid(), "Intel AX211", 1)])
    infos = interface_infos(wlan_structs.WLAN_INTERFACE_INFO_LIST.from_address(addressof(listing)))
    assert [i.InterfaceGuid.text() for i in infos][1] == GUID_TEXT
    assert [wlan_structs.utf16_text(i.strInterfaceDescription) for i in infos] == [
        "USB adapter",
        "Intel AX211",
    ]
    assert [i.isState for i in infos] == [4, 1]


def test_radio_state() -> None:
    state = WLAN_RADIO_STATE()
    state.dwNumberOfPhys = 2
    state.PhyRadioState[0].dot11SoftwareRadioState = 2  # off
    state.PhyRadioState[0].dot11HardwareRadioState = 1
    state.PhyRadioState[1].dot11SoftwareRadioState = 1
    state.PhyRadioState[1].dot11HardwareRadioState = 2  # off
    assert radio_off(state)
    state.PhyRadioState[1].dot11HardwareRadioState = 1
    assert not radio_off(state)
    assert not radio_off(WLAN_RADIO_STATE())  # no radio said: not "off"


class Adapters:
    """GetAdaptersAddresses' linked list, the strings behind its pointers kept alive."""

    def __init__(self, adapters: list[Adapter]) -> None:
        self.keep: list[Any] = []
        self.nodes = [IP_ADAPTER_ADDRESSES() for _ in adapters]
        for node, adapter, following in zip(
            self.nodes, adapters, [*self.nodes[1:], None], strict=True
        ):
            name = create_string_buffer(adapter.friendly_name.encode("utf-16-le") + b"\0\0")
            key = create_string_buffer(adapter.guid.encode("ascii"))
            self.keep += [name, key]
            node.FriendlyName = addressof(name)
            node.AdapterName = addressof(key)
            node.IfType = adapter.if_type
            if following is not None:
                node.Next = pointer(following)


def test_adapters_name_their_medium() -> None:
    wifi = Adapter("Wi-Fi", GUID_TEXT, 71)
    ethernet = Adapter("Ethernet 2", "{0A1B2C3D-0000-0000-0000-000000000001}", 6)
    table = Adapters([ethernet, wifi])
    assert adapters_from(table.nodes[0]) == [ethernet, wifi]
    assert wifi.medium == "IEEE 802.11" and ethernet.medium == "Ethernet"
    assert adapters_from(None) == []


# -- the calls: error codes as outcomes ---------------------------------------------------------


def _out(ref: Any, value: int) -> None:
    """Write an address or number into a byref() argument, as the API writes its results."""
    ref._obj.value = value


class FakeWlan:
    """Stand-in for wlanapi.dll: WlanOpenHandle's code, the interfaces WlanEnumInterfaces
    lists, and WlanQueryInterface's code and structure per opcode."""

    def __init__(
        self,
        *,
        open_code: int = 0,
        interfaces: list[tuple[GUID, str, int]] | None = None,
        answers: dict[int, tuple[int, Any]] | None = None,
    ) -> None:
        self.open_code = open_code
        self.listing = _interface_list(interfaces or [])
        self.answers = answers or {}
        self.freed: list[int | None] = []
        self.closed = 0

    def WlanOpenHandle(self, version: int, _reserved: None, negotiated: Any, handle: Any) -> int:
        assert version == 2
        if self.open_code == 0:
            _out(handle, 0x1234)
        return self.open_code

    def WlanCloseHandle(self, _handle: Any, _reserved: None) -> int:
        self.closed += 1
        return 0

    def WlanEnumInterfaces(self, _handle: Any, _reserved: None, listing: Any) -> int:
        _out(listing, addressof(self.listing))
        return 0

    def WlanQueryInterface(
        self, _h: Any, _guid: Any, opcode: int, _r: None, size: Any, data: Any, kind: Any
    ) -> int:
        code, value = self.answers.get(opcode, (87, None))  # 87: ERROR_INVALID_PARAMETER
        if code == 0 and value is not None:
            _out(data, addressof(value))
        return code

    def WlanGetNetworkBssList(self, *args: Any) -> int:
        return 87

    def WlanFreeMemory(self, memory: c_void_p) -> None:
        self.freed.append(memory.value)


class FakeIphlp:
    """Stand-in for iphlpapi.dll's GetAdaptersAddresses: copies its list into the buffer."""

    def __init__(self, adapters: list[Adapter]) -> None:
        self.table = Adapters(adapters)

    def GetAdaptersAddresses(
        self, _family: int, _flags: int, _r: None, buffer: Any, size: Any
    ) -> int:
        if not self.table.nodes:
            _out(size, 0)
            return 0
        ctypes.memmove(buffer, addressof(self.table.nodes[0]), sizeof(IP_ADAPTER_ADDRESSES))
        return 0


def native(wlan: FakeWlan, adapters: list[Adapter] | None = None) -> NativeWifi:
    return NativeWifi(wlan=wlan, iphlp=FakeIphlp(adapters or [Adapter("Wi-Fi", GUID_TEXT, 71)]))


def connected(answers: dict[int, tuple[int, Any]]) -> FakeWlan:
    return FakeWlan(interfaces=[(guid(), "Intel AX211", 1)], answers=answers)


def test_a_connected_adapter_through_the_calls() -> None:
    connection = attributes(phy=8, auth=7)
    channel, rssi = ctypes.c_uint32(36), ctypes.c_int32(-47)
    wlan = connected({7: (0, connection), 8: (0, channel), 0x10000102: (0, rssi)})
    reading = native(wlan).reading("Wi-Fi")
    assert reading is not None and reading.state is WifiState.CONNECTED
    assert reading.security == "WPA2" and reading.source.startswith("Native Wifi API")
    assert reading.info is not None
    assert (reading.info.channel, reading.info.signal_dbm, reading.info.frequency_mhz) == (
        36,
        -47,
        5180,  # VHT is 5 GHz only: its channel says the frequency
    )
    assert addressof(connection) in wlan.freed and wlan.closed == 1


def test_location_refused_is_error_5_of_the_current_connection() -> None:
    wlan = connected({7: (5, None)})
    reading = native(wlan).reading("Wi-Fi")
    assert reading is not None and reading.state is WifiState.REFUSED_LOCATION
    assert reading.wireless is True and reading.needs_location
    assert "Let desktop apps access your location" in reading.sentence()


def test_a_stopped_wlan_service_is_said() -> None:
    reading = native(FakeWlan(open_code=1062)).reading("Wi-Fi")  # ERROR_SERVICE_NOT_ACTIVE
    assert reading is not None and reading.state is WifiState.SERVICE_OFF
    assert reading.source == "Native Wifi API, WlanOpenHandle"
    assert native(FakeWlan(open_code=1062)).survey()[0].state is WifiState.SERVICE_OFF


def test_disconnected_and_radio_off() -> None:
    radio = WLAN_RADIO_STATE()
    radio.dwNumberOfPhys = 1
    radio.PhyRadioState[0].dot11SoftwareRadioState = 2
    off = FakeWlan(interfaces=[(guid(), "Intel AX211", 4)], answers={4: (0, radio)})
    reading = native(off).reading("Wi-Fi")
    assert reading is not None and reading.state is WifiState.RADIO_OFF
    idle = FakeWlan(interfaces=[(guid(), "Intel AX211", 4)])
    reading = native(idle).reading("Wi-Fi")
    assert reading is not None and reading.state is WifiState.DISCONNECTED


def test_the_medium_needs_no_location_consent() -> None:
    """An Ethernet adapter is said not to be Wi-Fi by its IfType alone: the WLAN service is
    not even asked (it would refuse, or be stopped)."""
    ethernet = Adapter("Ethernet", "{0A1B2C3D-0000-0000-0000-000000000001}", 6)
    wlan = FakeWlan(open_code=1062)
    reading = native(wlan, [ethernet]).reading("Ethernet")
    assert reading is not None and reading.state is WifiState.NOT_WIRELESS
    assert reading.source == "GetAdaptersAddresses, IfType 6: Ethernet"
    assert reading.wireless is False
    assert native(wlan, [ethernet]).reading("Bluetooth") is None  # not listed: ask netsh


def test_no_adapter_when_the_service_lists_none() -> None:
    [reading] = native(FakeWlan(), []).survey()
    assert reading.state is WifiState.NO_ADAPTER
    assert reading.sentence() == (
        "This computer has no Wi-Fi adapter. Source: Native Wifi API, WlanEnumInterfaces."
    )


def test_the_api_answer_wins_and_netsh_is_not_asked() -> None:
    asked: list[list[str]] = []

    def runner(argv: list[str]) -> str | None:
        asked.append(argv)
        return None

    api = native(connected({7: (5, None)}))
    tools = WifiTools(runner=runner, system="Windows", native=lambda: api)
    assert tools.reading("Wi-Fi").state is WifiState.REFUSED_LOCATION
    assert asked == []


def test_utf16_strings_behind_pointers() -> None:
    text = create_string_buffer("Wi-Fi 2 ünd".encode("utf-16-le") + b"\0\0")
    assert wlan_structs.utf16_at(addressof(text)) == "Wi-Fi 2 ünd"
    assert wlan_structs.utf16_at(None) == ""
    units = (c_uint16 * 4)(0x57, 0x69, 0, 0x41)
    assert wlan_structs.utf16_text(units) == "Wi"


# -- the real API, on Windows builds ------------------------------------------------------------

windows_only = pytest.mark.skipif(
    not WINDOWS,
    reason="needs Windows' wlanapi.dll and iphlpapi.dll: run under Wine (../shared/wine/run.sh)",
)


@windows_only
def test_the_real_api_answers_without_failing() -> None:
    """Wine's wlanapi has no adapters: "no Wi-Fi adapter", not an error; a real Windows
    computer gives a reading per Wi-Fi interface."""
    api = wlanapi.native_wifi()
    assert api is not None  # iphlpapi.dll is on every Windows, wlanapi.dll perhaps not
    readings = api.survey()
    assert readings
    for reading in readings:
        assert reading.sentence()
    if under_wine():  # Wine implements wlanapi with no adapters at all
        assert all(r.state is WifiState.NO_ADAPTER for r in readings), readings
    if all(r.state is WifiState.NO_ADAPTER for r in readings):
        assert readings[0].source == "Native Wifi API, WlanEnumInterfaces"
    if api._wlan is None:  # a Windows Server without its Wireless LAN Service
        assert readings[0].state is WifiState.UNREADABLE and "wlanapi.dll" in readings[0].detail
    assert api.adapters() is not None


@windows_only
def test_the_snapshot_on_windows_says_why_for_the_loopback() -> None:
    from app.study.host.environment import capture

    snapshot = capture("127.0.0.1")
    reading = snapshot.wifi_reading
    assert reading is not None and reading.sentence()
    assert snapshot.detected_security is None
    # The loopback is no IEEE 802.11 adapter: its type says so, with no location consent.
    assert reading.state is WifiState.NOT_WIRELESS
    assert reading.source == "GetAdaptersAddresses, IfType 24: loopback"
    assert snapshot.interface_wireless is False


@windows_only
def test_doctor_survey_on_windows() -> None:
    [first, *_] = WifiTools().survey()
    assert first.state in set(WifiState)


def test_no_native_api_elsewhere() -> None:
    if not WINDOWS:
        assert wlanapi.native_wifi() is None
        with pytest.raises(OSError, match="Windows only"):
            NativeWifi()


def test_without_wlanapi_the_medium_is_still_read() -> None:
    """Windows Server without the Wireless LAN Service has no wlanapi.dll: adapters' types
    still say what is wired, and a Wi-Fi adapter's reading says why it is unknown."""
    ethernet = Adapter("Ethernet", "{0A1B2C3D-0000-0000-0000-000000000001}", 6)
    api = NativeWifi(wlan=FakeWlan(), iphlp=FakeIphlp([ethernet, Adapter("Wi-Fi", GUID_TEXT, 71)]))
    api._wlan = None  # as __init__ leaves it where wlanapi.dll cannot be loaded
    wired = api.reading("Ethernet")
    assert wired is not None and wired.state is WifiState.NOT_WIRELESS
    wifi = api.reading("Wi-Fi")
    assert wifi is not None and wifi.state is WifiState.UNREADABLE and wifi.wireless is True
    assert "Wireless LAN Service" in wifi.detail
