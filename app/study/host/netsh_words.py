"""The words `netsh wlan show interfaces` prints in each Windows display language LinkLab reads,
labels and values, each from real output (the language's source is named beside it).

netsh speaks the display language in its labels and in some values. Labels are compared with
their spaces taken out and case folded: real localized output pads them raggedly, and French
puts a no-break space before the colon. Where a label is not in these tables the reader falls
back on the shapes every language shares (a value like "802.11ax", "85%", "5 GHz").

Sources (each a real capture unless said):
- en: English Windows 7, 10 and 11 (24H2 too) captures.
- de: German Windows 11 capture (labels "Bereich" for the band, "Funktyp", "Kanal").
- fr: French Windows 11 capture.
- es: Spanish Windows 11 capture.
- it: an Italian Windows 10 capture published with a Wi-Fi heat-map tool's Italian labels.
- zh: a Simplified Chinese Windows 10 capture (disconnected), and that tool's zh-CN label
  list for the connected fields.
- ja: a Japanese layout published as a test double (labels only; its values are placeholders).
"""

from __future__ import annotations


def key(label: str) -> str:
    """A label as compared: no spaces of any kind (NBSP, thin space), case folded."""
    return "".join(label.split()).casefold()


def _keys(*labels: str) -> frozenset[str]:
    return frozenset(key(label) for label in labels)


#: The label that starts each interface's block.
NAME = _keys("Name", "Nom", "Nombre", "Nome", "名称", "名前")
STATE = _keys("State", "Status", "État", "Estado", "Stato", "状态", "状態")
SSID = _keys("SSID")
AUTHENTICATION = _keys(
    "Authentication",
    "Authentifizierung",
    "Authentification",
    "Autenticación",
    "Autenticazione",
    "身份验证",
    "認証",
)
CIPHER = _keys(
    "Cipher",
    "Verschlüsselungsverfahren",
    "Verschlüsselung",
    "Chiffrement",
    "Cifrado",
    "Crittografia",
    "密码",
    "暗号",
)
CHANNEL = _keys("Channel", "Kanal", "Canal", "Canale", "通道", "チャネル")
BAND = _keys("Band", "Bereich", "Bande", "Banda", "波段")
RADIO_TYPE = _keys(
    "Radio type",
    "Funktyp",
    "Type de radio",
    "Tipo de radio",
    "Tipo frequenza radio",
    "无线电类型",
    "無線の種類",
)
RECEIVE_RATE = _keys(
    "Receive rate (Mbps)",
    "Empfangsrate (MBit/s)",
    "Réception (Mbits/s)",
    "Velocidad de recepción (Mbps)",
    "Velocità ricezione (Mbps)",
    "接收速率(Mbps)",
    "受信速度 (Mbps)",
)
TRANSMIT_RATE = _keys(
    "Transmit rate (Mbps)",
    "Übertragungsrate (MBit/s)",
    "Transmission (Mbits/s)",
    "Velocidad de transmisión (Mbps)",
    "Velocità trasmissione (Mbps)",
    "传输速率 (Mbps)",
    "送信速度 (Mbps)",
)
SIGNAL = _keys("Signal", "Señal", "Segnale", "信号", "シグナル")
RSSI = _keys("Rssi")
RADIO_STATUS = _keys("Radio status", "无线电状态")
#: Windows 11 24H2's suite selectors, "[ akm = 00-0f-ac:02, cipher = 00-0f-ac:04 ]".
AKM_CIPHER = _keys("Connected Akm-cipher")

#: The State values of a connected interface.
CONNECTED = _keys(
    "connected", "Verbunden", "connecté", "conectado", "connessa", "已连接", "接続されました"
)
#: The State values of an interface that is not (or not yet) connected.
NOT_CONNECTED = _keys(
    "disconnected",
    "disconnecting",
    "associating",
    "authenticating",
    "discovering",
    "not ready",
    "getrennt",
    "déconnecté",
    "desconectado",
    "disconnessa",
    "已断开连接",
    "切断されました",
)
#: What Radio status prints for a switch that is off (English "Software Off"; the other
#: languages' word for it was not found in real output, so their radio state is not read).
RADIO_OFF_WORDS = ("off",)
#: Authentication values that mean no authentication: en "Open", fr "Ouvrir", es "Abierta".
OPEN = _keys("Open", "Ouvrir", "Abierta")
#: Cipher values that mean no encryption: en "None", fr "Aucun", es "Ninguna".
NO_CIPHER = _keys("None", "Aucun", "Ninguna")
#: A rate label in any language ends with its unit in brackets.
RATE_UNITS = ("(mbps)", "(mbit/s)", "(mbits/s)")
