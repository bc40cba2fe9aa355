"""The Server tab's pool for a class: an iperf3 server for each of N stations (iperf3 serves
one test at a time) on consecutive ports, announced to the class's collector, which gives each
station its own port, so that no student types one. Registering servers takes the instructor
token (the Class tab's Copy instructor token), never the class token the students have."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.domain.collector import check_token, collector_url
from app.domain.errors import LinkLabError
from app.study.host.server_pool import MAX_POOL, pool_for, pool_ports
from app.study.lab.class_station import announce_pool
from app.ui.common.background import Background
from app.ui.common.widgets import SpinBox, accessible, hint, typed_refusal
from app.ui.server.local_servers import LocalServers


class PoolControls(QGroupBox):
    def __init__(self, servers: LocalServers, parent: QWidget | None = None) -> None:
        super().__init__("A class's stations", parent)
        self._servers = servers
        self._teller = Background(self)
        self.count = SpinBox()
        self.count.setRange(1, MAX_POOL)
        self.count.setValue(30)
        accessible(self.count, "Stations")
        self.count.setToolTip(
            f"How many stations measure at once: one {servers.main_driver().server_label} each."
        )
        self.first_port = SpinBox()
        self.first_port.setRange(1, 65535 - MAX_POOL)
        self.first_port.setValue(5301)
        accessible(self.first_port, "First port")
        self.first_port.setToolTip("The first server's port; the others follow it.")
        self.collector = QLineEdit()
        accessible(self.collector, "Collector")
        hint(self.collector, "http://HOST:PORT")
        self.collector.setToolTip(
            "The collector's address, as the Class tab shows it once Collect live is on."
        )
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        accessible(self.token, "Instructor token")
        hint(self.token, "from Copy instructor token")
        self.token.setToolTip(
            "The instructor token of the collector (instructor.token beside its class.token): "
            "only the instructor registers the class's servers. The class token is refused."
        )
        self.start_button = QPushButton("Start the pool")
        self.start_button.setToolTip(
            "Start the servers and tell the collector: it gives each station its own port."
        )
        self.stop_button = QPushButton("Stop the pool")
        self.status = QLabel()
        self.status.setWordWrap(True)
        accessible(self.status, "Pool status")
        grid = QGridLayout(self)
        for row, (text, widget) in enumerate(
            (
                ("Stations", self.count),
                ("First port", self.first_port),
                ("Collector", self.collector),
                ("Instructor token", self.token),
            )
        ):
            label = QLabel(text)
            label.setBuddy(widget)
            grid.addWidget(label, row, 0)
            grid.addWidget(widget, row, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 4, 0, 1, 2)
        grid.addWidget(self.status, 5, 0, 1, 2)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.refresh()

    def refresh(self) -> None:
        running = bool(self._servers.pool)
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)

    def start(self) -> None:
        if refusal := typed_refusal(self):
            self.status.setText(refusal)
            return
        try:
            url = collector_url(self.collector.text()) if self.collector.text().strip() else ""
            token = check_token(self.token.text(), "The instructor token") if url else ""
            driver = self._servers.main_driver()
            ports = pool_ports(driver.name, self.first_port.value(), self.count.value())
            self._servers.start_pool(ports)
        except LinkLabError as err:
            self.status.setText(err.sentence)
            return
        started = f"{len(ports)} {driver.server_label}s on ports {ports[0]}–{ports[-1]}."
        self.status.setText(started + (" Telling the collector…" if url else ""))
        self.refresh()
        if url:
            pool = pool_for(driver.name, ports)
            self._teller.run(
                lambda: announce_pool(url, token, pool.ports, pool.engine, None, pool.shared),
                lambda said: self.status.setText(f"{started} {said}"),
                lambda sentence: self.status.setText(f"{started} {sentence}"),
            )

    def stop(self) -> None:
        self._servers.stop_pool()
        self.status.setText("The pool's servers are stopped.")
        self.refresh()
