"""Bots that attack the machine, for the sandbox tests: `python tests/bots/threat_bot.py MODE [ARG] ENDPOINT`.

Each plays correctly (option 0) apart from its attack, which it starts at its first decision. Every attack is
bounded, so that a broken sandbox cannot take the machine down:

  memory         allocates 64 MiB blocks, up to 2 GiB, and dies of the MemoryError
  fork_bomb      forks children that sleep 5 s, up to 300 of them or for 5 s
  cpu_spin       spins two threads (itself and another) for up to 30 s
  disk_fill      writes one file in $HOME (else the working directory), up to 256 MiB, and dies of the error
  open_files     opens /dev/null up to 10000 times and dies of the error
  connect PORT   connects to 127.0.0.1:PORT at every decision; if that works it says so and answers an
                 illegal index, so the test sees that the network was reachable
  peek [FILE]    writes a secret in its $HOME; at every decision reads the other bots' secrets next to it
                 (and FILE, another bot's file), and answers an illegal index if it could read one
  signal_parent  sends SIGTERM to the arena ($ARENA_PID) and to its parent process
"""

from __future__ import annotations

import os
import signal
import socket as net
import sys
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

MODES = ("memory", "fork_bomb", "cpu_spin", "disk_fill", "open_files", "connect", "peek", "signal_parent")
MIB = 1 << 20


def reply(request: dict[str, Any], **fields: Any) -> bytes:
    """A well-formed reply to request."""
    return msgpack.packb({"version": 1, "id": request["id"], **fields})


def home() -> Path:
    """The bot's private directory (the sandbox sets HOME)."""
    return Path(os.environ.get("HOME") or ".")


def hog_memory() -> None:
    blocks = []
    for _ in range(32):
        blocks.append(bytearray(64 * MIB))  # bytearray touches its pages: real memory, not just address space
    print(f"threat_bot: holding {len(blocks) * 64} MiB and no limit stopped me", file=sys.stderr, flush=True)


def fork_bomb() -> None:
    start = time.monotonic()
    for _ in range(300):
        if time.monotonic() - start > 5:
            break
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
    print("threat_bot: forked without being stopped", file=sys.stderr, flush=True)


def spin() -> None:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        pass


def fill_disk() -> None:
    folder = home() if os.access(home(), os.W_OK) else Path(".")
    with open(folder / "fill.bin", "wb") as out:
        for _ in range(256):
            out.write(b"\0" * MIB)
            out.flush()
    print("threat_bot: wrote 256 MiB without being stopped", file=sys.stderr, flush=True)


def open_files() -> None:
    kept = [open(os.devnull, "rb") for _ in range(10000)]
    print(f"threat_bot: holding {len(kept)} files without being stopped", file=sys.stderr, flush=True)


def connected(port: int) -> bool:
    """True if a tcp connection to 127.0.0.1:port got through."""
    try:
        with net.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"threat_bot got through\n")
        return True
    except OSError:
        return False


def others_secrets(extra: str) -> list[str]:
    """The secrets of the other bots whose directories sit beside this bot's own (and the file extra), as far as
    it can read them."""
    mine = home().resolve()
    found = []
    for other in [*mine.parent.parent.glob("*/home/secret.txt"), *([Path(extra)] if extra else [])]:
        if other.parent.resolve() != mine:
            try:
                found.append(other.read_text())
            except OSError:
                continue
    return found


def attack(mode: str, arg: str, request: dict[str, Any], decisions: int) -> bytes:
    """The answer to a decision, after this mode's attack."""
    if decisions == 1:
        if mode == "memory":
            hog_memory()
        elif mode == "fork_bomb":
            fork_bomb()
        elif mode == "cpu_spin":
            threading.Thread(target=spin, daemon=True).start()
            spin()
        elif mode == "disk_fill":
            fill_disk()
        elif mode == "open_files":
            open_files()
        elif mode == "signal_parent":
            for target in {int(os.environ.get("ARENA_PID", "0") or 0), os.getppid()} - {0}:
                try:
                    os.kill(target, signal.SIGTERM)
                except OSError as exc:
                    print(f"threat_bot: cannot signal {target}: {exc}", file=sys.stderr, flush=True)
    if mode == "connect" and connected(int(arg)):
        print("threat_bot: the network is reachable", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    if mode == "peek" and others_secrets(arg):
        print("threat_bot: read another bot's secret", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    return reply(request, type="action", index=0)


def main(mode: str, arg: str, endpoint: str) -> None:
    """Serve the arena, attacking it."""
    if mode == "peek":
        (home() / "secret.txt").write_text(f"secret of {os.getpid()}")
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    decisions = 0
    while True:
        request = msgpack.unpackb(socket.recv())
        kind = request["type"]
        if kind == "decide":
            decisions += 1
            socket.send(attack(mode, arg, request, decisions))
        elif kind == "hello":
            socket.send(reply(request, type="ready", name=f"threat-{mode}", bot_version="1.0"))
        else:
            socket.send(reply(request, type="ack"))
            if kind == "shutdown":
                return


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3) or args[0] not in MODES or (args[0] == "connect" and len(args) != 3) or \
            (args[0] not in ("connect", "peek") and len(args) != 2):
        sys.stderr.write(f"usage: threat_bot.py MODE [PORT] ENDPOINT, MODE one of {', '.join(MODES)}\n")
        sys.exit(2)
    main(args[0], args[1] if len(args) == 3 else "", args[-1])
