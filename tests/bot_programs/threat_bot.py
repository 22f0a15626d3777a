"""Bots that attack the machine, for the sandbox tests: `python tests/bot_programs/threat_bot.py MODE [ARG] ENDPOINT`.

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
  signal_others  sends SIGKILL to every other bot it can see in /proc
  hijack         connects a second REP socket to every other bot's endpoint it can find (sockets beside its own
                 and in the temporary directory, endpoints in the command lines and environments of /proc) and
                 answers their requests with an illegal index
  write FILE     at every decision writes FILE (a file of the arena or another bot), and answers an illegal
                 index if that worked
  spread_memory  starts six children holding 150 MiB each for up to 20 s: more than its memory limit together,
                 less than it for each
  daemon         leaves a daemon (double fork, setsid, a process group of its own) that sleeps for up to 60 s
  disk_flood     writes 4 MiB files in $HOME, up to 128 MiB in all, and dies of the error
  steal          at every decision reads each file listed in targets.txt (in its working directory: its
                 submission folder), and answers an illegal index if it could read one
  host_uid       says on stderr at its start which uid it is to the host (its uid through its namespace's map),
                 and plays on
  daemon_spin    leaves the same daemon, spinning the CPU for up to 40 s, and takes 0.3 s over each decision
                 until the daemon has used 6 CPU seconds, so that the game lasts while the daemon spins
"""

from __future__ import annotations

import glob
import os
import select
import signal
import socket as net
import sys
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

MODES = ("memory", "fork_bomb", "cpu_spin", "disk_fill", "open_files", "connect", "peek", "signal_parent",
         "signal_others", "hijack", "write", "spread_memory", "daemon", "daemon_spin", "disk_flood", "steal",
         "host_uid")
WITH_ARG = ("connect", "write")
OPTIONAL_ARG = ("peek",)
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


def flood_disk() -> None:
    for n in range(32):
        with open(home() / f"flood-{n}.bin", "wb") as out:
            out.write(b"\1" * (4 * MIB))
    print("threat_bot: wrote 128 MiB without being stopped", file=sys.stderr, flush=True)


def stolen_files() -> list[str]:
    """The files listed in targets.txt that this bot can read."""
    found = []
    for target in Path("targets.txt").read_text().split():
        try:
            Path(target).read_bytes()
            found.append(target)
        except OSError:
            continue
    return found


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


def others() -> dict[int, str]:
    """Pid -> endpoint of every other bot of its own match (same $ARENA_PID) this one can see in /proc."""
    found = {}
    arena = f"ARENA_PID={os.environ.get('ARENA_PID', '')}".encode()
    for entry in glob.glob("/proc/[0-9]*"):
        pid = int(entry.rsplit("/", 1)[1])
        if pid == os.getpid():
            continue
        try:
            words = Path(entry, "cmdline").read_bytes().split(b"\0")
            if arena not in Path(entry, "environ").read_bytes().split(b"\0"):
                continue
        except OSError:
            continue
        endpoints = [w.decode() for w in words if w.startswith((b"ipc://", b"tcp://"))]
        if endpoints and "threat_bot" not in " ".join(w.decode(errors="replace") for w in words):
            found[pid] = endpoints[-1]
    return found


def other_endpoints(mine: str) -> set[str]:
    """Every endpoint of another bot of its match that it can find: beside its own socket, and in /proc."""
    found = set(others().values())
    if mine.startswith("ipc://"):
        match = Path(mine[len("ipc://"):]).parent.parent  # the match's directory of private directories
        found.update(f"ipc://{p}" for p in glob.glob(f"{match}/*/bot.sock"))
    return found - {mine}


DAEMON: list[int] = []  # the pid of the daemon this bot left


def daemonize(spin: bool) -> None:
    """Leave a process behind: fork, setsid, fork again, a process group of its own; the middle one exits."""
    read, write = os.pipe()
    if os.fork() != 0:
        os.close(write)
        DAEMON.append(int(os.read(read, 32) or b"0"))
        os.close(read)
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    os.setpgid(0, 0)
    os.write(write, str(os.getpid()).encode())
    end = time.monotonic() + (40 if spin else 60)
    while time.monotonic() < end:
        if not spin:
            time.sleep(0.5)
    os._exit(0)


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spread_memory() -> None:
    """Six children of 150 MiB each; returns once they all hold it, or they are gone (8 s at most)."""
    read, write = os.pipe()
    for _ in range(6):
        if os.fork() == 0:
            block = bytearray(150 * MIB)  # touched: resident
            os.write(write, b"!")
            time.sleep(20)
            os._exit(len(block) & 0)
    os.close(write)
    held, end = 0, time.monotonic() + 8
    while held < 6 and time.monotonic() < end:
        if not select.select([read], [], [], max(0.0, end - time.monotonic()))[0]:
            break
        got = os.read(read, 6)
        if not got:
            break  # every child is gone: something stopped them
        held += len(got)
    print(f"threat_bot: {held} children hold 150 MiB each", file=sys.stderr, flush=True)


def signal_others() -> None:
    for pid in others():
        try:
            os.kill(pid, signal.SIGKILL)
            print(f"threat_bot: killed bot {pid}", file=sys.stderr, flush=True)
        except OSError:
            continue


def wrote(path: str) -> bool:
    try:
        with open(path, "a") as out:
            out.write("threat_bot was here\n")
        return True
    except OSError:
        return False


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
        elif mode == "disk_flood":
            flood_disk()
        elif mode == "open_files":
            open_files()
        elif mode == "spread_memory":
            spread_memory()
        elif mode in ("daemon", "daemon_spin"):
            daemonize(mode == "daemon_spin")
        elif mode == "signal_others":
            signal_others()
        elif mode == "signal_parent":
            for target in {int(os.environ.get("ARENA_PID", "0") or 0), os.getppid()} - {0}:
                try:
                    os.kill(target, signal.SIGTERM)
                except OSError as exc:
                    print(f"threat_bot: cannot signal {target}: {exc}", file=sys.stderr, flush=True)
    if mode == "connect" and connected(int(arg)):
        print("threat_bot: the network is reachable", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    if mode == "daemon_spin" and cpu_seconds(DAEMON[0]) < 6:
        time.sleep(0.3)  # keep the game going while the daemon spins, however busy the machine
    if mode == "write" and wrote(arg):
        print(f"threat_bot: wrote {arg}", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    if mode == "steal" and (stolen := stolen_files()):
        print(f"threat_bot: read {' '.join(stolen)}", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    if mode == "peek" and others_secrets(arg):
        print("threat_bot: read another bot's secret", file=sys.stderr, flush=True)
        return reply(request, type="action", index=len(request["options"]) + 7)
    return reply(request, type="action", index=0)


def host_uid() -> int:
    """This process's uid as the host sees it: its own mapped through /proc/self/uid_map."""
    uid = os.getuid()
    for line in Path("/proc/self/uid_map").read_text().splitlines():
        inside, outside, count = map(int, line.split())
        if inside <= uid < inside + count:
            return outside + uid - inside
    return -1


def main(mode: str, arg: str, endpoint: str) -> None:
    """Serve the arena, attacking it."""
    if mode == "host_uid":
        print(f"threat_bot: host uid {host_uid()}", file=sys.stderr, flush=True)
    if mode == "peek":
        (home() / "secret.txt").write_text(f"secret of {os.getpid()}")
    context = zmq.Context()
    socket = context.socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    stolen = []
    poller = zmq.Poller()
    poller.register(socket, zmq.POLLIN)
    decisions = 0
    while True:
        if mode == "hijack" and decisions >= 1 and not stolen:
            for other in other_endpoints(endpoint):
                thief = context.socket(zmq.REP)
                thief.setsockopt(zmq.LINGER, 0)
                thief.connect(other)
                poller.register(thief, zmq.POLLIN)
                stolen.append(thief)
                print(f"threat_bot: connected to {other}", file=sys.stderr, flush=True)
        for ready, _ in poller.poll(1000):
            request = msgpack.unpackb(ready.recv())
            if ready is not socket:
                print(f"threat_bot: got another bot's {request['type']}", file=sys.stderr, flush=True)
                index = len(request.get("options", ())) + 7
                ready.send(reply(request, type="action", index=index) if request["type"] == "decide"
                           else reply(request, type="ack"))
                continue
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
    takes = 3 if args and args[0] in WITH_ARG else (2, 3) if args and args[0] in OPTIONAL_ARG else 2
    if not args or args[0] not in MODES or len(args) not in (takes if isinstance(takes, tuple) else (takes,)):
        sys.stderr.write(f"usage: threat_bot.py MODE [ARG] ENDPOINT, MODE one of {', '.join(MODES)}\n")
        sys.exit(2)
    main(args[0], args[1] if len(args) == 3 else "", args[-1])
