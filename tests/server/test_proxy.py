"""The nginx configuration of docs/serving.md in front of a real `arena serve`: TLS on a certificate made for the
test, the proxy's address trusted with --proxy (each client counted at its own address), and slow-header
connections from many addresses held off at the proxy while a normal client is served."""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
import select
import shutil
import socket
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.storage import Store
from tests.helpers import PATIENCE, ROOT, wait_until
from tests.server.conftest import ENV, stop

pytestmark = pytest.mark.slow

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
HOST = "bali.example.org"
SLOW_ADDRESSES = [f"127.0.0.{n}" for n in range(2, 9)]  # 7 addresses
SLOW_PER_ADDRESS = 32  # as many as the server itself holds from one address: 224 in all
HEADER_TIMEOUT = 10.0  # the docs' client_header_timeout
FAILED_LIMIT = 20  # failed tokens a minute per address before 429 (docs/serving.md)


def require_nginx() -> None:
    """Skip where nginx is not installed; fail instead under ARENA_REQUIRE_NGINX=1 (CI installs it)."""
    if os.access(NGINX, os.X_OK):
        return
    reason = "nginx is not installed (apt-get install -y nginx)"
    if os.environ.get("ARENA_REQUIRE_NGINX") == "1":
        pytest.fail(f"the reverse proxy test is required here but cannot run: {reason}")
    pytest.skip(reason)


def documented_server_block() -> str:
    """The nginx `server { ... }` block of docs/serving.md, as written there."""
    text = (ROOT / "docs" / "serving.md").read_text()
    found = re.search(r"With nginx:\n\n```\n(server \{\n.*?\n\})\n```", text, re.S)
    assert found, "docs/serving.md has no nginx server block"
    return found.group(1)


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for HOST and 127.0.0.1, made for this test: (certificate, key) files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "fullchain.pem", folder / "privkey.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Proxied:
    """nginx in front of arena serve: the proxy's https address, the CA to trust, the server's store."""

    url: str
    port: int
    tls: ssl.SSLContext
    results: Path

    def client(self, address: str) -> httpx.Client:
        """A client connecting from `address` (one of 127.0.0.0/8), trusting the test's certificate."""
        transport = httpx.HTTPTransport(verify=self.tls, local_address=address)
        return httpx.Client(base_url=self.url, transport=transport, timeout=PATIENCE)


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    require_nginx()
    results = tmp_path / "results"
    with Store(results / "arena.sqlite"):
        pass
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--no-play",
                               "--results", str(results), "--proxy", "127.0.0.1"], cwd=ROOT, env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), line
    upstream = line.split()[-1].rsplit(":", 1)[1]
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    cert_file, key_file = certificate(prefix)
    port = free_port()
    block = documented_server_block()
    for documented, here in (("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
                             (f"/etc/letsencrypt/live/{HOST}/fullchain.pem", str(cert_file)),
                             (f"/etc/letsencrypt/live/{HOST}/privkey.pem", str(key_file)),
                             ("proxy_pass http://127.0.0.1:8000;", f"proxy_pass http://127.0.0.1:{upstream};")):
        assert documented in block, documented
        block = block.replace(documented, here)
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};" for kind in
                     ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # The main context a Debian nginx.conf has around its sites (the user the workers run as: this one's).
    (prefix / "nginx.conf").write_text(
        f"{'user root;' if os.geteuid() == 0 else ''}\nworker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'};\nevents {{ worker_connections 768; }}\n"
        f"http {{\n    access_log {prefix / 'access.log'};\n{temp}\n{block}\n}}\n")
    nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c",
                              str(prefix / "nginx.conf"), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    tls = ssl.create_default_context(cafile=str(cert_file))
    try:
        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                return False

        if not wait_until(lambda: answers() or nginx.poll() is not None) or nginx.poll() is not None:
            nginx.kill()
            pytest.fail(f"nginx did not start: {nginx.communicate()[1]}{(prefix / 'error.log').read_text()}")
        yield Proxied(f"https://127.0.0.1:{port}", port, tls, results)
    finally:
        nginx.terminate()
        try:
            nginx.wait(PATIENCE)
        except subprocess.TimeoutExpired:
            nginx.kill()
            nginx.wait()
        stop(server)


def test_the_documented_proxy_serves_over_tls_and_counts_each_client_at_its_own_address(proxied: Proxied) -> None:
    with proxied.client("127.0.0.9") as c:
        front = c.get("/")
        assert front.status_code == 200 and "<html" in front.text.lower()
    with Store(proxied.results / "arena.sqlite") as store:
        _, token, _ = store.add_author("alice")
        _, _, code = store.add_author("bob")
    guess = {"Authorization": f"Bearer {token.split('.', 1)[0]}.guess"}
    # One client's failed tokens are counted at its own address (the proxy's X-Forwarded-For, believed with
    # --proxy): it is cut off, and another client behind the same proxy is not.
    with proxied.client("127.0.0.2") as guesser:
        answers = [guesser.get("/api/submissions/1", headers=guess).status_code for _ in range(FAILED_LIMIT + 1)]
    assert answers[:FAILED_LIMIT] == [401] * FAILED_LIMIT and answers[-1] == 429, answers
    with proxied.client("127.0.0.3") as other:
        assert other.get("/api/submissions/1", headers=guess).status_code == 401
        assert other.get("/api/submissions/1", headers={"Authorization": f"Bearer {token}"}).status_code == 404
        # A sign-in form sent from the site's own page (its origin, port included, as a browser names it) is taken;
        # the proxy says the request came over https (X-Forwarded-Proto): the session cookie is Secure.
        signed = other.post("/signin", data={"code": code}, headers={"Origin": proxied.url})
    assert signed.status_code == 303, signed.text
    assert any("secure" in cookie.lower() for cookie in signed.headers.get_list("set-cookie")), signed.headers


def slow_connection(proxied: Proxied, address: str) -> ssl.SSLSocket:
    """A TLS connection from address that has sent the start of a request's headers and no end to them."""
    raw = socket.create_connection(("127.0.0.1", proxied.port), timeout=PATIENCE, source_address=(address, 0))
    conn = proxied.tls.wrap_socket(raw, server_hostname="127.0.0.1")
    conn.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
    conn.setblocking(False)
    return conn


def test_slow_headers_from_many_addresses_are_held_off_at_the_proxy(proxied: Proxied) -> None:
    slow = [slow_connection(proxied, address) for address in SLOW_ADDRESSES for _ in range(SLOW_PER_ADDRESS)]
    opened = time.monotonic()
    try:
        # While all 224 are held open, a normal client is served each time.
        with proxied.client("127.0.0.9") as c:
            for _ in range(10):
                assert c.get("/").status_code == 200
                assert c.get("/api/leaderboard").status_code == 200
        # The slow ones drip a header line a second; the proxy ends each at its header timeout, whatever they send.
        open_ = set(slow)
        deadline = opened + HEADER_TIMEOUT + 3 * PATIENCE
        while open_ and time.monotonic() < deadline:
            readable, _, _ = select.select(list(open_), [], [], 1.0)
            for conn in readable:
                try:
                    data = conn.recv(4096)
                except ssl.SSLWantReadError:
                    continue
                except OSError:
                    data = b""
                if not data or b" 408 " in data:
                    open_.discard(conn)
            for conn in list(open_):
                try:
                    conn.sendall(b"X-Drip: 1\r\n")
                except (ssl.SSLWantWriteError, ssl.SSLWantReadError):
                    pass
                except OSError:
                    open_.discard(conn)
        assert not open_, f"{len(open_)} of {len(slow)} slow connections still open"
        with proxied.client("127.0.0.9") as c:
            assert c.get("/").status_code == 200
    finally:
        for conn in slow:
            conn.close()
