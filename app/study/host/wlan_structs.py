"""The Native Wifi API's and GetAdaptersAddresses' structures and constants (wlanapi.h,
windot11.h, iptypes.h) as ctypes declares them, and pure decoders from them to LinkLab's
values: the association, its security, the radio state, the adapters and their medium.

The structures are declared with fixed-size fields (WCHAR arrays as 16-bit units, strings
behind pointers read as UTF-16), so that their layout is Windows' on every platform and the
decoders can be fed the API's structures in tests anywhere."""

from __future__ import annotations

import ctypes
from ctypes import (
    POINTER,
    Structure,
    c_int32,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from dataclasses import dataclass
from typing import Any

from app.study.host.wifi import WifiInfo, frequency_from_channel

WLAN_API = "Native Wifi API"
ADAPTERS_API = "GetAdaptersAddresses"

# -- constants (wlanapi.h, windot11.h, iptypes.h, winerror.h) -----------------------------------

ERROR_SUCCESS = 0
ERROR_ACCESS_DENIED = 5
ERROR_BUFFER_OVERFLOW = 111
ERROR_SERVICE_NOT_ACTIVE = 1062
ERROR_MOD_NOT_FOUND = 126
#: What LinkLab calls the absence of wlanapi.dll: Windows' "module not found".
ERROR_NO_WLANAPI = ERROR_MOD_NOT_FOUND
IF_TYPE_IEEE80211 = 71
IF_TYPE_NAMES = {6: "Ethernet", 24: "loopback", 71: "IEEE 802.11", 131: "tunnel", 243: "WWAN"}

WLAN_CLIENT_VERSION = 2  # Windows Vista and later
OPCODE_RADIO_STATE = 4
OPCODE_CURRENT_CONNECTION = 7
OPCODE_CHANNEL_NUMBER = 8
OPCODE_RSSI = 0x10000102
STATE_CONNECTED = 1
RADIO_OFF = 2  # dot11_radio_state_off
BSS_TYPE_INFRASTRUCTURE = 1

#: DOT11_AUTH_ALGORITHM, in the words netsh prints for it (so that one reading of a security
#: serves both); OWE ("Enhanced Open", 10) is none of LinkLab's security values.
AUTH_ALGORITHMS = {
    1: "Open",
    2: "Shared",
    3: "WPA-Enterprise",
    4: "WPA-Personal",
    5: "WPA-None",
    6: "WPA2-Enterprise",
    7: "WPA2-Personal",
    8: "WPA3-Enterprise 192 Bits",
    9: "WPA3-Personal",
    10: "OWE",
    11: "WPA3-Enterprise",
}
#: DOT11_CIPHER_ALGORITHM values that are WEP (40- and 104-bit keys, and WEP of either size).
WEP_CIPHERS = frozenset({0x01, 0x05, 0x101})
#: DOT11_PHY_TYPE as the standard it is.
PHY_STANDARDS = {
    4: "802.11a",
    5: "802.11b",
    6: "802.11g",
    7: "802.11n",
    8: "802.11ac",
    9: "802.11ad",
    10: "802.11ax",
    11: "802.11be",
}
#: PHY types that never use 6 GHz (802.11ax's 6E and later do): their channel tells the band.
NOT_6GHZ = frozenset({1, 2, 3, 4, 5, 6, 7, 8})

# -- structures ---------------------------------------------------------------------------------


# The API's own names for its structures, so that they read as its documentation does.


class GUID(Structure):
    _fields_ = [
        ("Data1", c_uint32),
        ("Data2", c_uint16),
        ("Data3", c_uint16),
        ("Data4", c_uint8 * 8),
    ]

    def text(self) -> str:
        """ "{xxxxxxxx-xxxx-...}" in capitals, as GetAdaptersAddresses names an adapter."""
        tail = bytes(self.Data4)
        return (
            f"{{{self.Data1:08X}-{self.Data2:04X}-{self.Data3:04X}-"
            f"{tail[:2].hex().upper()}-{tail[2:].hex().upper()}}}"
        )


class WLAN_INTERFACE_INFO(Structure):
    _fields_ = [
        ("InterfaceGuid", GUID),
        ("strInterfaceDescription", c_uint16 * 256),
        ("isState", c_uint32),
    ]


class WLAN_INTERFACE_INFO_LIST(Structure):
    _fields_ = [
        ("dwNumberOfItems", c_uint32),
        ("dwIndex", c_uint32),
        ("InterfaceInfo", WLAN_INTERFACE_INFO * 1),
    ]


class DOT11_SSID(Structure):
    _fields_ = [("uSSIDLength", c_uint32), ("ucSSID", c_uint8 * 32)]


class WLAN_ASSOCIATION_ATTRIBUTES(Structure):
    _fields_ = [
        ("dot11Ssid", DOT11_SSID),
        ("dot11BssType", c_uint32),
        ("dot11Bssid", c_uint8 * 6),
        ("dot11PhyType", c_uint32),
        ("uDot11PhyIndex", c_uint32),
        ("wlanSignalQuality", c_uint32),
        ("ulRxRate", c_uint32),  # kbit/s
        ("ulTxRate", c_uint32),
    ]


class WLAN_SECURITY_ATTRIBUTES(Structure):
    _fields_ = [
        ("bSecurityEnabled", c_int32),
        ("bOneXEnabled", c_int32),
        ("dot11AuthAlgorithm", c_uint32),
        ("dot11CipherAlgorithm", c_uint32),
    ]


class WLAN_CONNECTION_ATTRIBUTES(Structure):
    _fields_ = [
        ("isState", c_uint32),
        ("wlanConnectionMode", c_uint32),
        ("strProfileName", c_uint16 * 256),
        ("wlanAssociationAttributes", WLAN_ASSOCIATION_ATTRIBUTES),
        ("wlanSecurityAttributes", WLAN_SECURITY_ATTRIBUTES),
    ]


class WLAN_PHY_RADIO_STATE(Structure):
    _fields_ = [
        ("dwPhyIndex", c_uint32),
        ("dot11SoftwareRadioState", c_uint32),
        ("dot11HardwareRadioState", c_uint32),
    ]


class WLAN_RADIO_STATE(Structure):
    _fields_ = [("dwNumberOfPhys", c_uint32), ("PhyRadioState", WLAN_PHY_RADIO_STATE * 64)]


class WLAN_RATE_SET(Structure):
    _fields_ = [("uRateSetLength", c_uint32), ("usRateSet", c_uint16 * 126)]


class WLAN_BSS_ENTRY(Structure):
    _fields_ = [
        ("dot11Ssid", DOT11_SSID),
        ("uPhyId", c_uint32),
        ("dot11Bssid", c_uint8 * 6),
        ("dot11BssType", c_uint32),
        ("dot11BssPhyType", c_uint32),
        ("lRssi", c_int32),
        ("uLinkQuality", c_uint32),
        ("bInRegDomain", c_uint8),
        ("usBeaconPeriod", c_uint16),
        ("ullTimestamp", c_uint64),
        ("ullHostTimestamp", c_uint64),
        ("usCapabilityInformation", c_uint16),
        ("ulChCenterFrequency", c_uint32),  # kHz
        ("wlanRateSet", WLAN_RATE_SET),
        ("ulIeOffset", c_uint32),
        ("ulIeSize", c_uint32),
    ]


class WLAN_BSS_LIST(Structure):
    _fields_ = [
        ("dwTotalSize", c_uint32),
        ("dwNumberOfItems", c_uint32),
        ("wlanBssEntries", WLAN_BSS_ENTRY * 1),
    ]


class IP_ADAPTER_ADDRESSES(Structure):
    """The first fields of IP_ADAPTER_ADDRESSES_LH, up to IfType: LinkLab reads no further,
    and walks the list by Next, so the rest need not be declared."""


IP_ADAPTER_ADDRESSES._fields_ = [
    ("Length", c_uint32),
    ("IfIndex", c_uint32),
    ("Next", POINTER(IP_ADAPTER_ADDRESSES)),
    ("AdapterName", c_void_p),  # char *: "{GUID}"
    ("FirstUnicastAddress", c_void_p),
    ("FirstAnycastAddress", c_void_p),
    ("FirstMulticastAddress", c_void_p),
    ("FirstDnsServerAddress", c_void_p),
    ("DnsSuffix", c_void_p),  # WCHAR *
    ("Description", c_void_p),
    ("FriendlyName", c_void_p),
    ("PhysicalAddress", c_uint8 * 8),
    ("PhysicalAddressLength", c_uint32),
    ("Flags", c_uint32),
    ("Mtu", c_uint32),
    ("IfType", c_uint32),
]

# -- decoding the structures (pure: tests feed them) --------------------------------------------


def utf16_text(units: Any) -> str:
    """A WCHAR array's text, up to its NUL."""
    values = list(units)
    end = values.index(0) if 0 in values else len(values)
    return bytes(b for unit in values[:end] for b in unit.to_bytes(2, "little")).decode(
        "utf-16-le", "replace"
    )


def utf16_at(address: int | None, limit: int = 512) -> str:
    """The NUL-ended UTF-16 string at address (a WCHAR * field); "" for a null pointer."""
    if not address:
        return ""
    return utf16_text((c_uint16 * limit).from_address(address))


def ssid_text(ssid: DOT11_SSID) -> str | None:
    """A DOT11_SSID's bytes, which are mostly UTF-8; None for a hidden (empty) SSID."""
    length = min(int(ssid.uSSIDLength), 32)
    raw = bytes(ssid.ucSSID[:length])
    return raw.decode("utf-8", "replace") if raw else None


def interface_infos(listing: WLAN_INTERFACE_INFO_LIST) -> list[WLAN_INTERFACE_INFO]:
    """The items of a WLAN_INTERFACE_INFO_LIST (its array runs past the declared one item)."""
    count = min(int(listing.dwNumberOfItems), 64)
    if count == 0:
        return []
    array = (WLAN_INTERFACE_INFO * count).from_address(ctypes.addressof(listing.InterfaceInfo))
    return list(array)


def bss_entries(listing: WLAN_BSS_LIST) -> list[WLAN_BSS_ENTRY]:
    count = min(int(listing.dwNumberOfItems), 512)
    if count == 0:
        return []
    return list((WLAN_BSS_ENTRY * count).from_address(ctypes.addressof(listing.wlanBssEntries)))


def security_words(security: WLAN_SECURITY_ATTRIBUTES) -> str | None:
    """The security of the association in netsh's English words; None for an algorithm no
    one names here (a vendor's own)."""
    if not security.bSecurityEnabled:
        return "Open"
    words = AUTH_ALGORITHMS.get(int(security.dot11AuthAlgorithm))
    if words is not None and int(security.dot11CipherAlgorithm) in WEP_CIPHERS:
        return f"{words} WEP"  # open or shared-key authentication, WEP encryption
    return words


def radio_off(state: WLAN_RADIO_STATE) -> bool:
    """Whether every radio of the adapter is switched off (software or hardware)."""
    count = min(int(state.dwNumberOfPhys), 64)
    phys = list(state.PhyRadioState[:count])
    return bool(phys) and all(
        RADIO_OFF in (int(p.dot11SoftwareRadioState), int(p.dot11HardwareRadioState)) for p in phys
    )


def connection_info(
    attributes: WLAN_CONNECTION_ATTRIBUTES,
    interface: str | None,
    *,
    channel: int | None = None,
    rssi_dbm: int | None = None,
    frequency_khz: int | None = None,
) -> WifiInfo:
    """The association WlanQueryInterface(current_connection) describes, with the channel,
    RSSI and the BSS's centre frequency where those queries answered."""
    association = attributes.wlanAssociationAttributes
    phy = int(association.dot11PhyType)
    frequency = round(frequency_khz / 1000) if frequency_khz else None
    if frequency is None and phy in NOT_6GHZ:
        frequency = frequency_from_channel(channel, None)
    tx_kbps = int(association.ulTxRate)
    return WifiInfo(
        ssid=ssid_text(association.dot11Ssid),
        security=security_words(attributes.wlanSecurityAttributes),
        phy_rate_mbps=tx_kbps / 1000 if tx_kbps else None,
        channel=channel,
        frequency_mhz=frequency,
        signal_dbm=rssi_dbm,
        signal_pct=min(int(association.wlanSignalQuality), 100),
        standard=PHY_STANDARDS.get(phy),
        interface=interface,
    )


def bss_frequency_khz(entries: list[WLAN_BSS_ENTRY], bssid: bytes) -> int | None:
    """The centre frequency of the BSS the interface is associated with."""
    for entry in entries:
        if bytes(entry.dot11Bssid) == bssid and entry.ulChCenterFrequency:
            return int(entry.ulChCenterFrequency)
    return None


@dataclass(frozen=True)
class Adapter:
    """One adapter of GetAdaptersAddresses: its name as psutil and netsh show it, its GUID
    (the Native Wifi API's key) and its medium."""

    friendly_name: str
    guid: str
    if_type: int

    @property
    def medium(self) -> str:
        return IF_TYPE_NAMES.get(self.if_type, f"IfType {self.if_type}")


def adapters_from(first: IP_ADAPTER_ADDRESSES | None) -> list[Adapter]:
    """Walk GetAdaptersAddresses' list."""
    found: list[Adapter] = []
    node = first
    while node is not None and len(found) < 256:
        guid = ctypes.string_at(node.AdapterName) if node.AdapterName else b""
        name = utf16_at(node.FriendlyName)
        found.append(Adapter(name, guid.decode("ascii", "replace").upper(), int(node.IfType)))
        node = node.Next.contents if node.Next else None
    return found
