"""The host user a bot or a build runs as under bubblewrap when the arena is root: never root itself, but a uid of
its own, leased from a range for as long as the process runs (the organiser's, else DEFAULT_UIDS), with the group
nogroup, no other groups, no capabilities and no way to gain any. No two running processes hold one uid, across
every arena of the machine, so that no two share what the kernel keeps per user (inotify instances, processes,
message queues, keyrings).

Run unprivileged, bubblewrap maps its sandbox's user to the arena's own, which is then what the host sees; run as
root it would map it to root, so as root the arena makes the sandbox's mounts as root and only then drops to the
leased uid (setpriv, inside the sandbox). The bot's files reach it through the group: a submission folder and a
bot's own directory are given to the group nogroup, readable (and, for a build, its folder writable) by it alone.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pwd
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError

NOBODY = 65534  # the uid of a sandbox given no range (the bench's measure of what a uid of its own costs)
NOGROUP = 65534  # the group of every bot and build: how their own files, and only those, reach them
LEASES = Path("/run/bali-arena/uids")  # a lock file per uid in use, held by the process that leased it
MAX_RANGE = 1 << 20
# The capabilities bubblewrap keeps as root: to enter a folder the leased uid owns (its build's), and for setpriv,
# which changes the uid and so loses every one of them for good.
DROPPING_CAPS = ("CAP_DAC_READ_SEARCH", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")


@dataclass(frozen=True)
class HostUids:
    """A range of host uids the organiser set aside for bots and builds, first to last inclusive."""

    first: int
    last: int

    @classmethod
    def parse(cls, text: str) -> "HostUids":
        """A range from 'FIRST-LAST'; ConfigError naming the problem for a malformed or unsafe one."""
        first, dash, last = text.partition("-")
        if not dash or not first.strip().isdigit() or not last.strip().isdigit():
            raise ConfigError(f"bot uids {text[:40]!r}: give a range FIRST-LAST, for example 200000-200999")
        uids = cls(int(first), int(last))
        uids.check()
        return uids

    def check(self) -> None:
        """ConfigError for a range holding root, the arena's user, an account of this machine, or too many uids."""
        if not 0 < self.first <= self.last or self.last - self.first >= MAX_RANGE or self.last >= (1 << 32) - 1:
            raise ConfigError(f"bot uids {self.first}-{self.last}: give a range of 1 to {MAX_RANGE} uids above 0")
        if self.first <= os.geteuid() <= self.last:
            raise ConfigError(f"bot uids {self.first}-{self.last} hold the arena's own uid {os.geteuid()}")
        taken = sorted(p.pw_name for p in pwd.getpwall() if self.first <= p.pw_uid <= self.last
                       and p.pw_uid != NOBODY)
        if taken:
            raise ConfigError(f"bot uids {self.first}-{self.last} hold accounts of this machine "
                              f"({', '.join(taken[:3])}): choose uids that belong to no one")

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


# The default range: 65,536 uids from 1,900,000,000, in the block that systemd leaves unused (above the uids it
# hands containers, below 2^31, which some tools take for negative); no distribution gives accounts there.
DEFAULT_UIDS = HostUids(1_900_000_000, 1_900_065_535)


def dropping() -> bool:
    """True where a sandboxed process must drop to a host user of its own: the arena runs as root."""
    return os.geteuid() == 0


class Lease:
    """One host uid held for one process's life (a lock on its file under LEASES); nobody (no range) holds no lock."""

    def __init__(self, uids: HostUids | None) -> None:
        """Lease the first free uid of uids (nobody where uids is None); OSError where none is free, or where no
        lease can be kept, for the start to fail: never a uid another process holds."""
        self.uid, self._fd = NOBODY, -1
        if uids is None:
            return
        with contextlib.suppress(OSError):
            LEASES.mkdir(parents=True, exist_ok=True, mode=0o700)
        for uid in range(uids.first, uids.last + 1):
            try:
                fd = os.open(LEASES / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise OSError(exc.errno, f"no host uid can be leased ({LEASES}: {exc.strerror})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise OSError(errno.EAGAIN, f"every host uid of {uids} is in use by a running bot or build: name a wider "
                      "range (--bot-uids)")

    def release(self) -> None:
        """Give the uid back (once its processes are gone)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def setpriv(uid: int) -> list[str]:
    """The command that becomes uid (group nogroup, no other groups) with no capability left, before the bot's."""
    return ["setpriv", f"--reuid={uid}", f"--regid={NOGROUP}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--"]


def open_directory(private: Path) -> None:
    """Let the group nogroup reach a bot's own directory (its socket), and nothing in it by that alone."""
    os.chown(private, -1, NOGROUP)
    os.chmod(private, 0o710)


def open_socket(socket: Path) -> None:
    """Let the group nogroup connect to an ipc socket the arena bound (again, after each lazy-pirate rebind)."""
    os.chown(socket, -1, NOGROUP)
    os.chmod(socket, 0o660)
