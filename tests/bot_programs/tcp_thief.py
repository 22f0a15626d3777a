"""A bot that answers for the other bots of its match over tcp: `python tests/bot_programs/tcp_thief.py ENDPOINT`.

It plays correctly (option 0). At its first decision it looks in /proc/net/tcp for sockets listening on
127.0.0.1 (the tcp ports of its network namespace), keeps those the arena holds when it can see the arena's file
descriptors (so that on a shared machine it attacks only its own match), else every one in view, leaves out its
own, and connects a REP socket to each: where the arena listens for the other bots over tcp, it receives their
requests and answers them with an illegal index. It says on stderr how many ports it found ("tcp_thief: N ports").
At most 64 ports, so that a broken sandbox cannot make it connect without end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import msgpack
import zmq

LISTEN = "0A"  # the state of a listening socket in /proc/net/tcp
LOOPBACK = "0100007F"  # 127.0.0.1 as /proc/net/tcp writes it
MOST = 64


def reply(request: dict[str, Any], **fields: Any) -> bytes:
    """A well-formed reply to request."""
    return msgpack.packb({"version": 1, "id": request["id"], **fields})


def listening() -> dict[str, int]:
    """Socket inode -> port of every socket listening on 127.0.0.1 in this network namespace."""
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        address, port = fields[1].split(":")
        if fields[3] == LISTEN and address == LOOPBACK:
            found[fields[9]] = int(port, 16)
    return found


def held_by(pid: str) -> set[str]:
    """The socket inodes among the open files of pid (empty where they cannot be read)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
    except OSError:
        pass
    return inodes


def targets(mine: str) -> list[int]:
    """The ports to attack: the arena's listening ports if it can see them, else all in view; never its own."""
    ports = listening()
    arena = held_by(os.environ.get("ARENA_PID", "")) & set(ports)
    own = int(mine.rsplit(":", 1)[1]) if mine.startswith("tcp://") else -1
    return sorted({ports[inode] for inode in (arena or ports)} - {own})[:MOST]


def main(endpoint: str) -> None:
    """Serve the arena; at the first decision, connect to every port found and answer for whoever is there."""
    context = zmq.Context()
    socket = context.socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    poller = zmq.Poller()
    poller.register(socket, zmq.POLLIN)
    attacked = False
    while True:
        for ready, _ in poller.poll(1000):
            request = msgpack.unpackb(ready.recv())
            kind = request["type"]
            if ready is not socket:
                print(f"tcp_thief: got another bot's {kind}", file=sys.stderr, flush=True)
                ready.send(reply(request, type="action", index=len(request["options"]) + 7) if kind == "decide"
                           else reply(request, type="ack"))
                continue
            if kind == "decide" and not attacked:
                attacked = True
                ports = targets(endpoint)
                print(f"tcp_thief: {len(ports)} ports", file=sys.stderr, flush=True)
                for port in ports:
                    thief = context.socket(zmq.REP)
                    thief.setsockopt(zmq.LINGER, 0)
                    thief.connect(f"tcp://127.0.0.1:{port}")
                    poller.register(thief, zmq.POLLIN)
            if kind == "decide":
                socket.send(reply(request, type="action", index=0))
            elif kind == "hello":
                socket.send(reply(request, type="ready", name="tcp-thief", bot_version="1.0"))
            else:
                socket.send(reply(request, type="ack"))
                if kind == "shutdown":
                    return


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: tcp_thief.py ENDPOINT\n")
        sys.exit(2)
    main(sys.argv[1])
