"""The conditions the user states about the link: security, medium, link rate, frame overhead,
tags and notes.

Security, medium and link rate sit on the Study page, the frame overhead, tags and notes on the
Advanced page; this object owns the controls and turns them into Conditions.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.domain.plan import Conditions, Medium, Security
from app.domain.tags import TagError, parse_tags, tags_text
from app.domain.units import parse_rate, plain_rate
from app.study.host.detected_conditions import detected_medium, detected_rate
from app.study.host.environment import DetectedLink
from app.study.host.wifi_reading import LOCATION_SETTINGS_URI, WifiReading, WifiState
from app.ui.common.widgets import ValueCombo, _combo, accessible

RATE_SUFFIXES = (("T", 10**12), ("G", 10**9), ("M", 10**6), ("K", 10**3))


def rate_text(bps: int) -> str:
    """A rate as a person types it: 100000000 -> '100M', 144400000 -> '144.4M'."""
    for suffix, scale in RATE_SUFFIXES:
        if bps >= scale:
            text = f"{bps / scale:g}{suffix}"
            if parse_rate(text) == bps:
                return text
    return str(bps)


#: Outcomes the window says nothing about beside the security: no Wi-Fi on the way to the
#: peer, so no Wi-Fi security to state.
QUIET = frozenset({WifiState.NOT_WIRELESS, WifiState.NO_ADAPTER})


def open_location_settings() -> bool:
    """Ask the system to open Windows' Settings › Privacy & security › Location page (the
    ms-settings: URI is Windows' own; the shell opens the Settings app on it)."""
    return QDesktopServices.openUrl(QUrl(LOCATION_SETTINGS_URI))


class ConditionsBox(QObject):
    """Detection may pre-fill the security, the medium and the link rate (each marked
    detected, with what said it); the user's choice wins. A wired adapter's speed is shown as
    the adapter's and never fills the link rate: it is not the path's."""

    changed = Signal()

    def __init__(
        self, parent: QObject | None = None, is_locked: Callable[[str], bool] | None = None
    ) -> None:
        super().__init__(parent)
        #: Whether a lab exercise states a condition (key: medium, link_rate): detection
        #: leaves it alone then.
        self.is_locked: Callable[[str], bool] = is_locked or (lambda _key: False)
        self.security: ValueCombo = _combo(
            [(s.value if s is not Security.OPEN else "open (no security)", s) for s in Security],
            "The link's security, as you set it up: LinkLab cannot change it, but records it "
            "to compare sessions.",
        )
        accessible(self.security, "Security")
        self.security.setCurrentIndex(self.security.findData(Security.UNKNOWN))
        self.security_note = QLabel()
        self.security_note.setObjectName("security_note")
        self.medium: ValueCombo = _combo(
            [(m.value, m) for m in Medium], "The medium of the link under test."
        )
        accessible(self.medium, "Medium")
        self.medium.setCurrentIndex(self.medium.findData(Medium.UNKNOWN))
        self.tags = QLineEdit()
        self.tags.setObjectName("tags")
        accessible(self.tags, "Tags")
        self.tags.setPlaceholderText("open, room=B12, os=Windows 7")
        self.tags.setToolTip(
            "Free tags separated by commas, to find and compare sessions later: plain labels "
            "(open) or KEY=VALUE (room=B12)."
        )
        self.notes = QPlainTextEdit()
        self.notes.setPlaceholderText("Anything else worth knowing about this session")
        self.notes.setMaximumHeight(56)
        accessible(self.notes, "Notes")
        self.notes.setToolTip("Anything else worth knowing about this session.")
        self.link_rate = QLineEdit()
        self.link_rate.setObjectName("link_rate")
        self.link_rate.setPlaceholderText("unknown (e.g. 1G)")
        self.link_rate.setToolTip(
            "The rate of the link under test, its slowest hop: Ethernet's line rate, Wi-Fi's "
            "PHY rate (e.g. 100M, 1G, 866.7M); filled from the Wi-Fi PHY rate detected until "
            "you type (a wired adapter's speed is the adapter's, not the path's, and never "
            "fills it). With it, every point gets the goodput the headers allow, charts draw "
            "it and Sessions explains the gap."
        )
        accessible(self.link_rate, "Link rate")
        self.link_rate_note = QLabel()
        self.link_rate_note.setObjectName("link_rate_note")
        #: What the system says of the link to the peer, in a sentence under the conditions.
        self.detected_note = QLabel()
        self.detected_note.setObjectName("detected_link")
        self.detected_note.setAccessibleName("Detected link")
        self.detected_note.setWordWrap(True)
        self.detected_note.setVisible(False)
        self.frame_overhead = QLineEdit()
        self.frame_overhead.setObjectName("frame_overhead")
        self.frame_overhead.setPlaceholderText("the medium's")
        self.frame_overhead.setToolTip(
            "Bytes per frame a shaped test link counts instead of the medium's (a Linux tc "
            "shaper counts 14, the Ethernet header); empty for a real link."
        )
        accessible(self.frame_overhead, "Frame overhead")
        # What asking about the Wi-Fi gave, said under the security: connected and what was
        # detected, or why nothing could be (location refused, the service stopped, ...).
        self.wifi_note = QLabel()
        self.wifi_note.setObjectName("wifi_note")
        self.wifi_note.setWordWrap(True)
        accessible(self.wifi_note, "Wi-Fi detection")
        self.location_button = QPushButton("Open location settings")
        self.location_button.setToolTip(
            "Opens Settings › Privacy & security › Location, where Windows lets desktop apps "
            "read the Wi-Fi network."
        )
        self.location_button.clicked.connect(open_location_settings)
        self._wifi_row = QWidget()
        self._wifi_row.setObjectName("wifi_row")
        wifi_layout = QVBoxLayout(self._wifi_row)
        wifi_layout.setContentsMargins(0, 0, 0, 0)
        wifi_layout.addWidget(self.wifi_note)
        button_row = QHBoxLayout()
        button_row.addWidget(self.location_button)
        button_row.addStretch(1)
        wifi_layout.addLayout(button_row)
        self._wifi_row.setVisible(False)
        self._wifi_source = ""
        self._detected = False
        self._quiet = False
        self._link: DetectedLink | None = None  # what the latest detection said
        self._unreached = ""  # why it found no way to the peer ("the name … not resolved")
        self._medium_by = ""  # the medium shown is the detected one: what said it
        self._rate_by = ""  # the rate shown is the detected one: what said it
        self._rate_typed = False  # the user's word: detection no longer fills the link rate
        self.security.currentIndexChanged.connect(self._security_changed)
        self.medium.currentIndexChanged.connect(self._medium_changed)
        # Chosen, even the option detection had shown: the user's word from then on.
        self.medium.activated.connect(lambda _index: self._medium_changed())
        self.tags.textChanged.connect(self.changed)
        self.notes.textChanged.connect(self.changed)
        self.link_rate.textEdited.connect(self._rate_edited)
        self.link_rate.textChanged.connect(self.changed)
        self.frame_overhead.textChanged.connect(self.changed)

    def security_row(self) -> QWidget:
        """The security box with its "(detected)" note beside it."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.security, 1)
        layout.addWidget(self.security_note)
        return row

    def wifi_row(self) -> QWidget:
        """What the Wi-Fi detection found, or why it could not, with the button that opens
        Windows' location settings when those are why; hidden while there is nothing to say."""
        return self._wifi_row

    def set_wifi_reading(self, reading: WifiReading | None) -> None:
        """Say what asking the system about the link's Wi-Fi gave."""
        said = reading is not None and reading.state not in QUIET
        self.wifi_note.setText(reading.sentence() if reading is not None and said else "")
        self.location_button.setVisible(reading is not None and reading.needs_location)
        self._wifi_source = reading.source if reading is not None else ""
        self._wifi_row.setVisible(said)

    def link_rate_row(self) -> QWidget:
        """The link rate with its "(detected)" note beside it."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.link_rate, 1)
        layout.addWidget(self.link_rate_note)
        return row

    def _rate_edited(self) -> None:
        # A rate typed is the user's word; emptied, the field is unknown again, and the next
        # detection (another peer) may fill it. Not at once: that would undo the emptying.
        self._rate_typed = bool(self.link_rate.text().strip())
        self._rate_by = ""
        self._show_detected()

    def _medium_changed(self) -> None:
        if not self._quiet:
            self._medium_by = ""  # chosen by the user: the user's word
            self._apply_detected()
        self.changed.emit()

    def set_detected_link(self, link: DetectedLink | None, unreached: str = "") -> None:
        """What the system says of the link to the peer (None: nothing, e.g. the loopback, or
        no way to the peer was found: `unreached` says why): an unknown medium is filled from
        the adapter, the link rate from a Wi-Fi PHY rate the model can use with the medium
        and security shown, until the user types one; what an earlier detection filled and
        this one does not say is taken back."""
        self._link = link
        self._unreached = unreached if link is None else ""
        self._apply_detected()

    def _apply_detected(self) -> None:
        link = self._link
        quiet, self._quiet = self._quiet, True
        try:
            self._apply_medium(link)
            self._apply_rate(link)
        finally:
            self._quiet = quiet
        self._show_detected()

    def _apply_medium(self, link: DetectedLink | None) -> None:
        if self.is_locked("medium"):
            return
        wanted = detected_medium(link, self.security.currentData())
        current = self.medium.currentData()
        if not self._medium_by and current is not Medium.UNKNOWN:
            return  # the user's medium
        if wanted is None:
            if self._medium_by:
                self._medium_by = ""
                self.medium.setCurrentIndex(self.medium.findData(Medium.UNKNOWN))
            return
        assert link is not None
        if current is not wanted:
            self.medium.setCurrentIndex(self.medium.findData(wanted))
        self._medium_by = link.medium_source

    def _apply_rate(self, link: DetectedLink | None) -> None:
        if self._rate_typed or self.is_locked("link_rate"):
            return
        rate = detected_rate(link, self.medium.currentData(), self.security.currentData())
        if rate is not None:
            assert link is not None
            text = rate_text(rate)
            if self.link_rate.text() != text:
                self.link_rate.setText(text)
            self._rate_by = link.rate_source
        elif self._rate_by:  # another peer, another link: the old rate is not it
            self._rate_by = ""
            self.link_rate.setText("")

    def _show_detected(self) -> None:
        """The "(detected)" mark beside the rate, and the sentence on what the system said."""
        self.link_rate_note.setText("(detected)" if self._rate_by else "")
        text = self.detected_text()
        self.detected_note.setText(text)
        self.detected_note.setVisible(bool(text))

    def detected_text(self) -> str:
        """What detection said of the link and what the form took from it, naming each
        figure as what it is; "" when it said nothing."""
        link = self._link
        if link is None:
            if self._unreached:
                return f"Nothing could be detected of the link to the peer: {self._unreached}."
            return ""
        said = []
        if self._medium_by:
            medium = self.medium.currentData().value
            said.append(f"Medium {medium} detected from {self._medium_by}.")
        typed = self._rate_typed or bool(self.link_rate.text().strip())
        if self._rate_by:
            rate = plain_rate(link.rate_bps or 0)
            said.append(f"Link rate detected: {self._rate_by}, {rate}.")
        elif link.rate_bps is not None:
            phy = f"{link.rate_source} is {plain_rate(link.rate_bps)}"
            usable = detected_rate(link, self.medium.currentData(), self.security.currentData())
            if typed:
                said.append(f"{phy}: the link rate typed is used instead.")
            elif usable is not None:  # the user emptied the rate detection had filled
                said.append(f"{phy}: type it as the link rate to use it, or leave it unknown.")
            else:
                said.append(
                    f"{phy}: choose the security and medium of that Wi-Fi link to take it as "
                    "the link rate."
                )
        if link.adapter_speed_bps is not None:
            speed = f"{link.interface} runs at {plain_rate(link.adapter_speed_bps)}"
            said.append(
                f"{speed}: the adapter's own speed, not the path's, so it is not taken as the "
                "link rate."
                if typed
                else f"{speed}: the adapter's own speed, not the path's, so the link rate stays "
                "unknown until you state it."
            )
        return " ".join(said)

    def _security_changed(self) -> None:
        if not self._quiet:
            self._detected = False
            self.security_note.setText("")
            self.security_note.setToolTip("")
            self._apply_detected()
        self.changed.emit()

    def set_detected_security(self, value: str) -> None:
        if self.security.currentData() is not Security.UNKNOWN:
            return
        try:
            index = self.security.findData(Security(value))
        except ValueError:
            return
        if index < 0:
            return
        self._quiet = True
        self.security.setCurrentIndex(index)
        self._quiet = False
        self._detected = True
        self.security_note.setText("(detected)")
        by = f" by {self._wifi_source}" if self._wifi_source else ""
        self.security_note.setToolTip(f"Detected{by}; choose another security to state it.")
        self._apply_detected()
        self.changed.emit()

    def problems(self) -> list[tuple[str, str]]:
        """(field, sentence) for text that does not read as tags, a rate or a byte count."""
        found = []
        try:
            parse_tags(self.tags.text())
        except TagError as err:
            found.append(("tags", str(err)))
        rate = self._link_rate()
        if rate == -1:
            found.append(
                ("link_rate", "Write the link rate such as 100M or 1G, or leave it empty.")
            )
        elif self._unreached and rate is not None and self._frame_overhead() is None:
            if self.medium.currentData() is Medium.UNKNOWN and not self.is_locked("medium"):
                # The expected goodput needs the medium, and it is unknown because of the
                # peer: that is what to fix (or the medium to choose), not an omission.
                found.append(
                    (
                        "medium",
                        f"The medium could not be detected: {self._unreached}. Correct the "
                        "peer, or choose the medium (or leave the link rate empty).",
                    )
                )
        if self._frame_overhead() == -1:
            found.append(
                (
                    "frame_overhead",
                    "Write the frame overhead in bytes (e.g. 14), or leave it empty.",
                )
            )
        return found

    def _link_rate(self) -> int | None:
        """The rate typed; None when empty, -1 when it is not a rate."""
        text = self.link_rate.text().strip()
        if not text:
            return None
        try:
            return parse_rate(text)
        except ValueError:
            return -1

    def _frame_overhead(self) -> int | None:
        text = self.frame_overhead.text().strip().removesuffix("B").strip()
        if not text:
            return None
        return int(text) if text.isdigit() and len(text) < 10 else -1

    def conditions(self) -> Conditions:
        try:
            tags = parse_tags(self.tags.text())
        except TagError:
            tags = {}
        rate, overhead = self._link_rate(), self._frame_overhead()
        return Conditions(
            security=self.security.currentData(),
            medium=self.medium.currentData(),
            tags=tuple(sorted(tags.items())),
            notes=self.notes.toPlainText(),
            security_detected=self._detected,
            link_rate_bps=None if rate == -1 else rate,
            frame_overhead=None if overhead == -1 else overhead,
            medium_detected_by=self._medium_by,
            link_rate_detected_by=self._rate_by if rate not in (None, -1) else "",
        )

    def set_conditions(self, conditions: Conditions) -> None:
        """Fill the fields from a plan's conditions (a preset, a stored session, the last
        form): what was stated stays the user's word; what was detected is detected again,
        so a restart says what the first use said."""
        self._quiet = True
        try:
            self.security.setCurrentIndex(self.security.findData(conditions.security))
            self.medium.setCurrentIndex(self.medium.findData(conditions.medium))
            self._medium_by = conditions.medium_detected_by
            self.tags.setText(tags_text(conditions.tags))
            if self.notes.toPlainText() != conditions.notes:
                self.notes.setPlainText(conditions.notes)
            rate = conditions.link_rate_bps
            self.link_rate.setText(rate_text(rate) if rate is not None else "")
            self._rate_by = conditions.link_rate_detected_by if rate is not None else ""
            self._rate_typed = rate is not None and not self._rate_by  # the user's word
            overhead = conditions.frame_overhead
            self.frame_overhead.setText(str(overhead) if overhead is not None else "")
        finally:
            self._quiet = False
        self._detected = conditions.security_detected
        self.security_note.setText("(detected)" if self._detected else "")
        if self._link is not None:
            self._apply_detected()
        else:
            self._show_detected()
