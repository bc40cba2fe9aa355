"""Windows' own answer about Wi-Fi, whatever the display language: the Native Wifi API
(wlanapi.dll: WlanOpenHandle, WlanEnumInterfaces, WlanQueryInterface, WlanGetNetworkBssList)
and the adapter's medium from GetAdaptersAddresses (iphlpapi.dll, IfType 71 is IEEE 802.11),
which needs no location consent. Through ctypes: the standard library, no extra dependency.
The structures and their decoders are in app/study/host/wlan_structs.py."""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from ctypes import byref, c_int32, c_uint32, c_void_p
from typing import Any

from app.study.host.wifi_reading import WifiReading, WifiState
from app.study.host.wlan_structs import (
    ADAPTERS_API,
    BSS_TYPE_INFRASTRUCTURE,
    DOT11_SSID,
    ERROR_ACCESS_DENIED,
    ERROR_BUFFER_OVERFLOW,
    ERROR_NO_WLANAPI,
    ERROR_SERVICE_NOT_ACTIVE,
    ERROR_SUCCESS,
    GUID,
    IF_TYPE_IEEE80211,
    IP_ADAPTER_ADDRESSES,
    OPCODE_CHANNEL_NUMBER,
    OPCODE_CURRENT_CONNECTION,
    OPCODE_RADIO_STATE,
    OPCODE_RSSI,
    STATE_CONNECTED,
    WLAN_API,
    WLAN_BSS_LIST,
    WLAN_CLIENT_VERSION,
    WLAN_CONNECTION_ATTRIBUTES,
    WLAN_INTERFACE_INFO_LIST,
    WLAN_RADIO_STATE,
    Adapter,
    adapters_from,
    bss_entries,
    bss_frequency_khz,
    connection_info,
    interface_infos,
    radio_off,
)

# -- the live API (Windows) ---------------------------------------------------------------------


class WlanError(Exception):
    """A Native Wifi or IP Helper call that returned an error code."""

    def __init__(self, call: str, code: int) -> None:
        super().__init__(f"{call} returned error {code}")
        self.call = call
        self.code = code


def _check(call: str, code: int) -> None:
    if code != ERROR_SUCCESS:
        raise WlanError(call, code)


class NativeWifi:
    """The Native Wifi API and GetAdaptersAddresses of this Windows computer. Raises OSError
    where the DLLs are missing (not Windows)."""

    def __init__(self, wlan: Any = None, iphlp: Any = None) -> None:
        """wlan and iphlp stand in for the two DLLs (tests give objects with their calls)."""
        load: Any = getattr(ctypes, "WinDLL", None)  # ctypes has it on Windows only
        if load is None and (wlan is None or iphlp is None):
            raise OSError("the Native Wifi API exists on Windows only")
        self._iphlp: Any = iphlp if iphlp is not None else load("iphlpapi.dll")
        if wlan is None:
            try:
                wlan = load("wlanapi.dll")
            except OSError:
                wlan = None  # Windows Server without its Wireless LAN Service feature
            else:
                wlan.WlanFreeMemory.argtypes = [c_void_p]
                wlan.WlanFreeMemory.restype = None
        self._wlan: Any = wlan

    # -- adapters --------------------------------------------------------------------------
    def adapters(self) -> list[Adapter]:
        size = c_uint32(32_768)
        for _attempt in range(4):
            buffer = ctypes.create_string_buffer(size.value)
            code = self._iphlp.GetAdaptersAddresses(0, 0x0F, None, buffer, byref(size))
            if code == ERROR_BUFFER_OVERFLOW:
                continue
            _check("GetAdaptersAddresses", code)
            if size.value == 0:
                return []
            return adapters_from(IP_ADAPTER_ADDRESSES.from_buffer(buffer))
        raise WlanError("GetAdaptersAddresses", ERROR_BUFFER_OVERFLOW)

    # -- the WLAN service ------------------------------------------------------------------
    @contextmanager
    def _handle(self) -> Iterator[c_void_p]:
        if self._wlan is None:
            raise WlanError("WlanOpenHandle", ERROR_NO_WLANAPI)
        negotiated = c_uint32()
        handle = c_void_p()
        _check(
            "WlanOpenHandle",
            self._wlan.WlanOpenHandle(WLAN_CLIENT_VERSION, None, byref(negotiated), byref(handle)),
        )
        try:
            yield handle
        finally:
            self._wlan.WlanCloseHandle(handle, None)

    def _owned(self, pointer: c_void_p, read: Callable[[int], Any]) -> Any:
        """read(address) of API-allocated memory, freed afterwards."""
        try:
            return read(pointer.value or 0)
        finally:
            self._wlan.WlanFreeMemory(pointer)

    def _query(self, handle: c_void_p, guid: GUID, opcode: int) -> tuple[int, c_void_p]:
        size = c_uint32()
        data = c_void_p()
        kind = c_uint32()
        code = self._wlan.WlanQueryInterface(
            handle, byref(guid), opcode, None, byref(size), byref(data), byref(kind)
        )
        return code, data

    def _query_value(self, handle: c_void_p, guid: GUID, opcode: int, ctype: Any) -> Any:
        code, data = self._query(handle, guid, opcode)
        if code != ERROR_SUCCESS or not data.value:
            return None
        return self._owned(data, lambda a: ctype.from_address(a).value)

    def _interfaces(self, handle: c_void_p) -> list[tuple[GUID, int]]:
        listing = c_void_p()
        _check("WlanEnumInterfaces", self._wlan.WlanEnumInterfaces(handle, None, byref(listing)))

        def read(address: int) -> list[tuple[GUID, int]]:
            infos = interface_infos(WLAN_INTERFACE_INFO_LIST.from_address(address))
            return [(GUID.from_buffer_copy(i.InterfaceGuid), int(i.isState)) for i in infos]

        return list(self._owned(listing, read))

    def _frequency_khz(self, handle: c_void_p, guid: GUID, attributes: Any) -> int | None:
        association = attributes.wlanAssociationAttributes
        ssid = DOT11_SSID.from_buffer_copy(association.dot11Ssid)
        listing = c_void_p()
        code = self._wlan.WlanGetNetworkBssList(
            handle,
            byref(guid),
            byref(ssid),
            BSS_TYPE_INFRASTRUCTURE,
            attributes.wlanSecurityAttributes.bSecurityEnabled,
            None,
            byref(listing),
        )
        if code != ERROR_SUCCESS or not listing.value:
            return None
        bssid = bytes(association.dot11Bssid)
        return self._owned(  # type: ignore[no-any-return]
            listing,
            lambda a: bss_frequency_khz(bss_entries(WLAN_BSS_LIST.from_address(a)), bssid),
        )

    def _read(self, handle: c_void_p, guid: GUID, state: int, name: str | None) -> WifiReading:
        if state != STATE_CONNECTED:
            radio = self._query_radio(handle, guid)
            off = WifiState.RADIO_OFF if radio else WifiState.DISCONNECTED
            return WifiReading(off, f"{WLAN_API}, WlanQueryInterface", name)
        code, data = self._query(handle, guid, OPCODE_CURRENT_CONNECTION)
        source = f"{WLAN_API}, WlanQueryInterface"
        if code == ERROR_ACCESS_DENIED:
            return WifiReading(
                WifiState.REFUSED_LOCATION, source, name, detail="error 5", wireless=True
            )
        if code != ERROR_SUCCESS or not data.value:
            return WifiReading(
                WifiState.UNREADABLE, source, name, detail=f"error {code}", wireless=True
            )
        attributes = self._owned(
            data,
            lambda a: WLAN_CONNECTION_ATTRIBUTES.from_buffer_copy(
                WLAN_CONNECTION_ATTRIBUTES.from_address(a)
            ),
        )
        info = connection_info(
            attributes,
            name,
            channel=self._query_value(handle, guid, OPCODE_CHANNEL_NUMBER, c_uint32),
            rssi_dbm=self._query_value(handle, guid, OPCODE_RSSI, c_int32),
            frequency_khz=self._frequency_khz(handle, guid, attributes),
        )
        return WifiReading(WifiState.CONNECTED, source, name, info)

    def _query_radio(self, handle: c_void_p, guid: GUID) -> bool:
        code, data = self._query(handle, guid, OPCODE_RADIO_STATE)
        if code != ERROR_SUCCESS or not data.value:
            return False
        return bool(self._owned(data, lambda a: radio_off(WLAN_RADIO_STATE.from_address(a))))

    # -- what LinkLab asks -----------------------------------------------------------------
    def survey(self) -> list[WifiReading]:
        """Every Wi-Fi interface of this computer, or the one outcome that stands for all."""
        try:
            names = {a.guid: a.friendly_name for a in self.adapters()}
        except WlanError:
            names = {}
        try:
            with self._handle() as handle:
                interfaces = self._interfaces(handle)
                if not interfaces:
                    return [WifiReading(WifiState.NO_ADAPTER, f"{WLAN_API}, WlanEnumInterfaces")]
                return [
                    self._read(handle, guid, state, names.get(guid.text()))
                    for guid, state in interfaces
                ]
        except WlanError as err:
            return [_failed(err)]

    def reading(self, interface: str) -> WifiReading | None:
        """The outcome for the interface psutil names; None when the adapters cannot be
        listed or do not include it (then the fallback is asked)."""
        try:
            adapter = next((a for a in self.adapters() if a.friendly_name == interface), None)
        except WlanError:
            return None
        if adapter is None:
            return None
        if adapter.if_type != IF_TYPE_IEEE80211:
            source = f"{ADAPTERS_API}, IfType {adapter.if_type}: {adapter.medium}"
            return WifiReading(WifiState.NOT_WIRELESS, source, interface)
        try:
            with self._handle() as handle:
                for guid, state in self._interfaces(handle):
                    if guid.text() == adapter.guid:
                        return self._read(handle, guid, state, interface)
        except WlanError as err:
            return _failed(err, interface, wireless=True)
        return WifiReading(
            WifiState.UNREADABLE,
            f"{WLAN_API}, WlanEnumInterfaces",
            interface,
            detail="the WLAN service does not list this IEEE 802.11 adapter",
            wireless=True,
        )


def _failed(
    err: WlanError, interface: str | None = None, *, wireless: bool | None = None
) -> WifiReading:
    """A failed call as its outcome: the WLAN service stopped, access refused, or its code."""
    source = f"{WLAN_API}, {err.call}"
    state = {
        ERROR_SERVICE_NOT_ACTIVE: WifiState.SERVICE_OFF,
        ERROR_ACCESS_DENIED: WifiState.REFUSED_LOCATION,
    }.get(err.code, WifiState.UNREADABLE)
    detail = str(err) if state is WifiState.UNREADABLE else f"error {err.code}"
    if err.code == ERROR_NO_WLANAPI:
        detail = "wlanapi.dll is not installed (Windows Server: the Wireless LAN Service feature)"
    return WifiReading(state, source, interface, detail=detail, wireless=wireless)


def native_wifi() -> NativeWifi | None:
    """This computer's Native Wifi API, or None where there is none."""
    try:
        return NativeWifi()
    except OSError:
        return None
