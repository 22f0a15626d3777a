"""A bot written from protocol/PROTOCOL.md alone, with plain pyzmq and msgpack: no import from this project.

It proves that the spec stands on its own. It plays at random, seeded with the seed of each game,
and keeps the game's log by appending the events it is sent (section 8 of the spec).
"""

import os
import random
import sys

import msgpack
import zmq

VERSION = 1


def endpoint():
    """$ARENA_ENDPOINT, else the last command-line argument (section 1)."""
    return os.environ.get("ARENA_ENDPOINT") or sys.argv[-1]


def reply(request, kind, **fields):
    """A reply to request: the header with the echoed id, then the fields (section 2)."""
    return msgpack.packb({"type": kind, "version": VERSION, "id": request["id"], **fields}, use_bin_type=True)


def main():
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RECONNECT_IVL, 10)
    socket.connect(endpoint())
    parent = os.getppid()
    rng = random.Random(0)
    log = []
    while True:
        if not socket.poll(1000):
            if os.getppid() != parent:
                return  # the arena is gone
            continue
        request = msgpack.unpackb(socket.recv(), raw=False)
        if request.get("version") != VERSION:
            sys.stderr.write(f"plain_bot: protocol version {request.get('version')!r} is not supported\n")
            sys.exit(1)
        kind = request["type"]
        if kind == "hello":
            socket.send(reply(request, "ready", name="plain", bot_version="1.0"))
        elif kind == "new_game":
            rng = random.Random(request["seed"])
            log = []
            socket.send(reply(request, "ack"))
        elif kind == "decide":
            log.extend(request["events"])
            socket.send(reply(request, "action", index=rng.randrange(len(request["options"]))))
        elif kind == "game_over":
            log.extend(request["events"])
            socket.send(reply(request, "ack"))
        elif kind == "shutdown":
            socket.send(reply(request, "ack"))
            socket.close()
            return
        else:
            sys.stderr.write(f"plain_bot: unknown message type {kind!r}\n")
            sys.exit(1)


if __name__ == "__main__":
    main()
