"""iperf3 authentication for real: the password travels only in iperf3's environment."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from app.domain.errors import BadOption
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.errors import AuthenticationFailed, AuthenticationRequired
from app.engine.drivers.iperf3.options import PASSWORD_ENV, Iperf3Options
from app.engine.process.process import ManagedProcess
from app.engine.process.tools import Capability, Tool
from tests.conftest import free_port, linklab

USER, PASSWORD = "student", "s3cret-Pa55"


@pytest.fixture
def auth_server(iperf3_tool: Tool, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    if not iperf3_tool.has(Capability.AUTHENTICATION):
        pytest.skip("this iperf3 was built without authentication support")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test's RSA key pair")
    private, public = tmp_path / "private.pem", tmp_path / "public.pem"
    subprocess.run(
        ["openssl", "genrsa", "-out", str(private), "2048"], check=True, capture_output=True
    )
    subprocess.run(
        ["openssl", "rsa", "-in", str(private), "-pubout", "-out", str(public)],
        check=True,
        capture_output=True,
    )
    digest = hashlib.sha256(f"{{{USER}}}{PASSWORD}".encode()).hexdigest()
    users = tmp_path / "users.csv"
    users.write_text(f"{USER},{digest}\n")
    port = free_port()
    server = ManagedProcess(
        [
            iperf3_tool.path,
            "-s",
            "-p",
            str(port),
            "--rsa-private-key-path",
            str(private),
            "--authorized-users-path",
            str(users),
        ]
    )
    server.start()
    try:
        for _ in range(100):
            if any(c.laddr.port == port for c in psutil.Process(server.pid).net_connections()):
                break
            time.sleep(0.05)
        yield port, public
    finally:
        server.cancel()
        server.wait(2)


def test_password_reaches_iperf3_only_through_its_environment(
    iperf3_tool: Tool, auth_server: tuple[int, Path]
) -> None:
    port, public = auth_server
    opts = Iperf3Options(
        host="127.0.0.1",
        port=port,
        duration_s=2,
        username=USER,
        password=PASSWORD,
        rsa_public_key_path=str(public),
    )
    assert PASSWORD not in repr(opts)
    run = start_iperf3(iperf3_tool, opts)
    assert PASSWORD not in " ".join(run.argv)
    environ: dict[str, str] = {}
    for _event in run.events():
        if not environ and run.pid:  # read while the client runs
            environ = psutil.Process(run.pid).environ()
    result = run.result
    assert result is not None and result.throughput_bps
    assert environ.get(PASSWORD_ENV) == PASSWORD
    assert PASSWORD not in result.raw_output and PASSWORD not in " ".join(result.argv)
    assert "--username" in result.argv


def test_measure_reads_the_password_from_the_variable_iperf3_reads(
    auth_server: tuple[int, Path],
) -> None:
    """`linklab measure --username` takes the password from IPERF3_PASSWORD (no terminal to
    ask on): the authenticating server lets the run through with it, and refuses a wrong one."""
    port, public = auth_server
    args = (
        "measure", "--peer", "127.0.0.1", "--port", str(port), "--duration", "1",
        "--username", USER, "--rsa-public-key", str(public), "--json",
    )  # fmt: skip
    done = linklab(*args, env={PASSWORD_ENV: PASSWORD})
    assert done.returncode == 0, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    refused = linklab(*args, env={PASSWORD_ENV: "wrong"})
    assert refused.returncode != 0 and "user name or password" in refused.stderr


def test_wrong_password_is_a_sentence(iperf3_tool: Tool, auth_server: tuple[int, Path]) -> None:
    port, public = auth_server
    opts = Iperf3Options(
        host="127.0.0.1",
        port=port,
        duration_s=1,
        username=USER,
        password="wrong",
        rsa_public_key_path=str(public),
    )
    with pytest.raises(AuthenticationFailed) as info:
        start_iperf3(iperf3_tool, opts).run()
    assert "user name or password" in str(info.value)
    with pytest.raises(BadOption, match="needs a password"):
        start_iperf3(iperf3_tool, replace(opts, password=None))


def test_a_server_that_demands_credentials_says_so(
    iperf3_tool: Tool, auth_server: tuple[int, Path]
) -> None:
    """Without a user name, an authenticating server is one that demands credentials, not one
    that refused them; the sentence says where to give them."""
    port, _ = auth_server
    with pytest.raises(AuthenticationRequired) as info:
        start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)).run()
    sentence = str(info.value)
    assert "demands a user name and password" in sentence
    assert "--username NAME --rsa-public-key FILE" in sentence and "IPERF3_PASSWORD" in sentence
