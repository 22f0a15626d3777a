"""Bots that reach for what the kernel shares across namespaces, for the sandbox tests:
`python tests/bot_programs/kernel_bot.py MODE [NAME] [ENDPOINT]`. Each plays correctly (option 0) apart from its
attack, and says on stderr what it got, so that the test reads the outcome from its log:

  plant NAME     (no endpoint: a build step or a host process) adds a key `arena-test:NAME:WHERE` holding
                 `secret of NAME` to its user, session and persistent keyrings (each expiring after 120 s), says
                 which it could add, and exits
  keys NAME      plants as above at its start, then at each of its first three decisions reads every key it can
                 find (in its user, session and persistent keyrings, and each listed in /proc/keys) that another
                 planted or that is named `arena-secret`, and says `read DESCRIPTION: PAYLOAD` for each it read
                 (and `saw arena-secret in /proc/keys` where the list shows it that key)
  inotify_hog    at its start opens inotify instances until the kernel refuses one (at most 1024), says how many
                 it holds, and holds them for its life
  inotify_try    at each of its first three decisions opens one inotify instance and says whether it could
  perf           at its first decision opens a performance counter of its own process (user space only, as an
                 unprivileged process may) and says whether it could
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from typing import Any

# keyctl operations and special keyring ids (linux/keyctl.h)
KEYCTL_DESCRIBE, KEYCTL_READ, KEYCTL_SET_TIMEOUT, KEYCTL_GET_PERSISTENT = 6, 11, 15, 22
USER_KEYRING, SESSION_KEYRING, PROCESS_KEYRING = -4, -3, -2
KEYCTL, ADD_KEY, PERF_EVENT_OPEN = 250, 248, 298  # x86-64 system call numbers (the tests run there)
PREFIX = "arena-test:"
SECRET = "arena-secret"

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_held: list[int] = []


def say(text: str) -> None:
    print(f"kernel_bot: {text}", file=sys.stderr, flush=True)


def keyctl(*args: int | bytes | None) -> int:
    """keyctl(2): its result, or minus the errno."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    result = _libc.syscall(ctypes.c_long(KEYCTL), *converted)
    return result if result >= 0 else -ctypes.get_errno()


def persistent() -> tuple[int | None, int]:
    """This uid's persistent keyring (linked into the process keyring) and 0, or None and the errno."""
    ring = keyctl(KEYCTL_GET_PERSISTENT, -1, PROCESS_KEYRING)
    return (ring, 0) if ring >= 0 else (None, -ring)


def rings() -> list[tuple[str, int | None, int]]:
    """The user, session and persistent keyrings: (where, id or None, errno)."""
    return [("user", USER_KEYRING, 0), ("session", SESSION_KEYRING, 0), ("persistent", *persistent())]


def plant(name: str) -> None:
    """Add a key to each of the user, session and persistent keyrings, and say which worked."""
    for where, ring, error in rings():
        payload = f"secret of {name}".encode()
        key = -1
        if ring is not None:
            key = _libc.syscall(ctypes.c_long(ADD_KEY), b"user", f"{PREFIX}{name}:{where}".encode(), payload,
                                ctypes.c_size_t(len(payload)), ctypes.c_long(ring))
            error = ctypes.get_errno()
        if key >= 0:
            keyctl(KEYCTL_SET_TIMEOUT, key, 120)
            say(f"{name} added a key to its {where} keyring")
        else:
            say(f"{name} could not add to its {where} keyring: {os.strerror(error)}")


def _payload(key: int) -> bytes | None:
    buffer = ctypes.create_string_buffer(4096)
    size = keyctl(KEYCTL_READ, key, buffer, 4096)
    return buffer.raw[:min(size, 4096)] if size >= 0 else None


def read(key: int) -> str | None:
    """A key's payload, or None where it cannot be read."""
    payload = _payload(key)
    return None if payload is None else payload.decode(errors="replace")


def describe(key: int) -> str | None:
    """A key's description (the last field of type;uid;gid;perm;description), or None."""
    buffer = ctypes.create_string_buffer(4096)
    size = keyctl(KEYCTL_DESCRIBE, key, buffer, 4096)
    return buffer.value.decode(errors="replace").split(";", 4)[-1] if size >= 0 else None


def found_keys() -> set[int]:
    """Every key id this process can name: in its keyrings (one level down) and in /proc/keys."""
    ids: set[int] = set()
    for _, ring, _ in rings():
        listed = _payload(ring) if ring is not None else None
        if listed:
            ids.update(int.from_bytes(listed[i:i + 4], sys.byteorder) for i in range(0, len(listed) - 3, 4))
    try:
        ids.update(int(line.split()[0], 16) for line in Path("/proc/keys").read_text().splitlines() if line)
    except (OSError, ValueError):
        pass
    return ids


def sighted() -> list[str]:
    """The arena's secret as /proc/keys lists it to this process: only where it may view the key, which holding the
    keyring the key is in (the arena's session keyring, if inherited) allows."""
    try:
        lines = Path("/proc/keys").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if f" {SECRET}:" in line]


def loot(name: str) -> None:
    """Say every key of another, or the arena's secret, that this process can read, or see listed."""
    if sighted():
        say(f"{name} saw {SECRET} in /proc/keys")
    for key in sorted(found_keys()):
        description = describe(key) or ""
        if (description.startswith(PREFIX) and f":{name}:" not in description) or description == SECRET:
            payload = read(key)
            if payload is not None:
                say(f"{name} read {description}: {payload}")


def hog_inotify() -> None:
    """Open inotify instances until refused, and keep them."""
    while len(_held) < 1024:
        fd = _libc.inotify_init()
        if fd < 0:
            break
        _held.append(fd)
    say(f"holding {len(_held)} inotify instances")


def try_inotify() -> None:
    fd = _libc.inotify_init()
    if fd >= 0:
        os.close(fd)
        say("opened an inotify instance")
    else:
        say(f"could not open an inotify instance: {os.strerror(ctypes.get_errno())}")


def try_perf() -> None:
    """perf_event_open(2) of a software clock of this process, user space only (what perf_event_paranoid 2 allows)."""
    attr = bytearray(64)  # struct perf_event_attr, its first version's size
    attr[0:4] = (1).to_bytes(4, sys.byteorder)  # PERF_TYPE_SOFTWARE (config 0: the CPU clock)
    attr[4:8] = (64).to_bytes(4, sys.byteorder)
    attr[40:48] = (0x61).to_bytes(8, sys.byteorder)  # disabled, exclude_kernel, exclude_hv
    buffer = ctypes.create_string_buffer(bytes(attr), 64)
    fd = _libc.syscall(ctypes.c_long(PERF_EVENT_OPEN), buffer, ctypes.c_long(0), ctypes.c_long(-1),
                       ctypes.c_long(-1), ctypes.c_long(0))
    if fd >= 0:
        os.close(fd)
        say("opened a performance counter")
    else:
        say(f"could not open a performance counter: {os.strerror(ctypes.get_errno())}")


def main(mode: str, name: str, endpoint: str) -> None:
    """Serve the arena, attacking it."""
    import msgpack
    import zmq

    if mode == "keys":
        plant(name)
    elif mode == "inotify_hog":
        hog_inotify()
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    decisions = 0

    def reply(request: dict[str, Any], **fields: Any) -> None:
        socket.send(msgpack.packb({"version": 1, "id": request["id"], **fields}))

    while True:
        request = msgpack.unpackb(socket.recv())
        kind = request["type"]
        if kind == "decide":
            decisions += 1
            if decisions <= 3 and mode == "keys":
                loot(name)
            elif decisions <= 3 and mode == "inotify_try":
                try_inotify()
            elif decisions == 1 and mode == "perf":
                try_perf()
            reply(request, type="action", index=0)
        elif kind == "hello":
            reply(request, type="ready", name=f"kernel-{mode}", bot_version="1.0")
        else:
            reply(request, type="ack")
            if kind == "shutdown":
                return


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "plant":
        plant(args[1])
    elif len(args) == 3 and args[0] == "keys":
        main(args[0], args[1], args[2])
    elif len(args) == 2 and args[0] in ("inotify_hog", "inotify_try", "perf"):
        main(args[0], "", args[1])
    else:
        sys.stderr.write("usage: kernel_bot.py plant NAME | keys NAME ENDPOINT | inotify_hog ENDPOINT | "
                         "inotify_try ENDPOINT | perf ENDPOINT\n")
        sys.exit(2)
