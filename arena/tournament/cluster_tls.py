"""The credentials a Dask cluster of the arena requires: a private certificate authority and the scheduler's, the
workers' and the client's certificates signed by it, made with `cryptography`; and which clusters the arena
agrees to send submissions to.

A Dask scheduler runs whatever its clients send, and its workers run it as their user (root where bots get uids
of their own), so a cluster without credentials is a root shell for whoever reaches one of its ports. Dask's TLS
is mutual: every listener asks for a certificate its CA signed, so only holders of one can connect.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from arena.bots import leftovers
from arena.errors import ConfigError

ROLES = ("scheduler", "worker", "client")  # one certificate each, as Dask's TLS settings name them
CA_NAME = "ca"
DAYS = 825  # a certificate's life when none is asked for (about what browsers accept for a server's)
TLS = "tls://"


@dataclass(frozen=True)
class ClusterAccess:
    """How the arena may reach a scheduler it did not start: with the certificates in `certs` (a folder made by
    `arena cluster certs`), else Dask's own TLS settings; `insecure` lets a tcp:// scheduler in, at its risk."""

    certs: Path | None = None
    insecure: bool = False


@dataclass(frozen=True)
class CertFiles:
    """The files of a folder of cluster credentials, by role."""

    folder: Path

    def cert(self, role: str) -> Path:
        """The role's certificate (PEM)."""
        return self.folder / f"{role}.pem"

    def key(self, role: str) -> Path:
        """The role's private key (PEM), readable by its owner only."""
        return self.folder / f"{role}-key.pem"

    def security(self, *roles: str) -> Any:
        """Dask's Security with encryption required, the CA and the given roles' certificates."""
        from distributed.security import Security

        given = {f"tls_{role}_{what}": str(path) for role in roles
                 for what, path in (("cert", self.cert(role)), ("key", self.key(role)))}
        return Security(require_encryption=True, tls_ca_file=str(self.cert(CA_NAME)), **given)


def make_certs(folder: Path, hosts: tuple[str, ...] = (), days: int = DAYS) -> CertFiles:
    """A new CA and the scheduler's, workers' and client's certificates in folder (made 0700 if new; keys 0600);
    ConfigError if it holds cluster credentials already (nothing is overwritten) or cannot be written."""
    _require_crypto()
    files = CertFiles(folder)
    taken = [p.name for role in (CA_NAME, *ROLES) for p in (files.cert(role), files.key(role)) if p.exists()]
    if taken:
        raise ConfigError(f"{folder} holds cluster credentials already ({', '.join(taken)}); give an empty or new "
                          "folder (nothing was overwritten)")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        ca_key = _key()
        ca = _certificate("bali-arena cluster CA", ca_key.public_key(), ca_key, None, (), days, is_ca=True)
        _write(files, CA_NAME, ca, ca_key)
        for role in ROLES:
            key = _key()
            _write(files, role, _certificate(f"bali-arena {role}", key.public_key(), ca_key, ca, hosts, days), key)
    except OSError as exc:
        raise ConfigError(f"cannot write the cluster credentials to {folder}: {exc.strerror or exc}") from None
    return files


@contextlib.contextmanager
def private_credentials() -> Iterator[CertFiles]:
    """Credentials made for one run in a temporary folder only this user can enter, removed after it."""
    # Mode 0700, and marked as this process's: what a killed arena leaves is swept by the next one (leftovers.sweep).
    folder = leftovers.private_dir()
    try:
        yield make_certs(folder / "tls", hosts=("127.0.0.1", "localhost"), days=2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def security_for(address: str, access: ClusterAccess) -> Any:
    """The Security to reach the scheduler at address with (None: a plain connection, allowed by
    access.insecure); ConfigError if the arena may not send submissions there."""
    if address.startswith(TLS):
        if access.certs is not None:
            files = CertFiles(access.certs)
            missing = [p.name for p in (files.cert(CA_NAME), files.cert("client"), files.key("client"))
                       if not p.is_file()]
            if missing:
                raise ConfigError(f"the cluster certificates folder {access.certs} lacks {', '.join(missing)} "
                                  "(make one with `arena cluster certs DIR`)")
            return files.security("client")
        import dask

        if dask.config.get("distributed.comm.tls.ca-file", None) and \
                dask.config.get("distributed.comm.tls.client.cert", None):
            from distributed.security import Security

            return Security(require_encryption=True)  # Dask's own TLS settings, as configured
        raise ConfigError(f"--cluster {address} needs the client's certificate: --cluster-certs DIR (a folder made "
                          "by `arena cluster certs DIR`), or Dask's TLS settings (docs/cluster.md)")
    if access.insecure:
        return None
    raise ConfigError(f"--cluster {address} has no credentials: whoever reaches it runs code on its workers and "
                      "reads every submission; use tls://HOST:PORT with --cluster-certs DIR (`arena cluster certs`), "
                      "or --insecure-cluster if only trusted machines can reach it")


def dask_settings(files: CertFiles) -> str:
    """The Dask configuration (YAML) that gives every role its certificate and turns off the HTTP routes that
    Dask serves without credentials, for a `distributed.yaml`."""
    lines = ["distributed:", "  scheduler:", "    http: {routes: []}", "  worker:", "    http: {routes: []}",
             "  comm:", "    require-encryption: true", "    tls:", f"      ca-file: {files.cert(CA_NAME)}"]
    lines += [f"      {role}: {{cert: {files.cert(role)}, key: {files.key(role)}}}" for role in ROLES]
    return "\n".join(lines)


def instructions(files: CertFiles, host: str) -> str:
    """What an organiser does with new credentials: which files go where, the Dask settings, the commands."""
    folder = files.folder
    return "\n".join([
        f"made in {folder}: {CA_NAME}.pem (the CA; keep {CA_NAME}-key.pem offline), and a certificate and key for "
        + ", ".join(ROLES) + ".",
        f"the scheduler's machine needs {CA_NAME}.pem and scheduler*.pem, each worker's {CA_NAME}.pem and "
        f"worker*.pem, the arena's {CA_NAME}.pem and client*.pem (at the same paths, or edit the settings below).",
        "",
        "Dask settings for the scheduler and the workers (~/.config/dask/distributed.yaml, or the file DASK_CONFIG "
        "names):",
        "",
        dask_settings(files),
        "",
        "then, on the private network only:",
        "",
        f"dask scheduler --host {host} --port 8786 --protocol tls --no-dashboard --dashboard-address 127.0.0.1:0",
        f"dask worker tls://{host}:8786 --host WORKER_ADDRESS --nthreads 1 --no-dashboard "
        "--dashboard-address 127.0.0.1:0",
        f"arena serve GAME --cluster tls://{host}:8786 --cluster-certs {folder}",
    ])


def _require_crypto() -> None:
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise ConfigError("cluster credentials need the cryptography package: pip install 'bali-arena[cluster]' "
                          "(or pip install -e \".[cluster]\" in a checkout)") from None


def _key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _certificate(name: str, public_key: Any, signer: Any, issuer: Any, hosts: tuple[str, ...], days: int,
                 is_ca: bool = False) -> Any:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(subject if issuer is None else issuer.subject).public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days))
               .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True))
    if hosts:
        builder = builder.add_extension(x509.SubjectAlternativeName([_host(h) for h in hosts]), critical=False)
    return builder.sign(signer, hashes.SHA256())


def _host(host: str) -> Any:
    from cryptography import x509

    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _write(files: CertFiles, role: str, cert: Any, key: Any) -> None:
    from cryptography.hazmat.primitives import serialization

    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    descriptor = os.open(files.key(role), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(key_bytes)
    files.cert(role).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
