"""A bot that floods the arena's socket: `python -m tests.bot_programs.flood_bot MODE COUNT SIZE ENDPOINT`.

Written with a raw ROUTER socket, which can send whatever it likes whenever it likes. It answers the handshake,
new_game, game_over and shutdown correctly, and plays option 0.

  unsolicited  answers its first three decisions with an illegal index, so that it is disqualified and asked nothing
               more in that game, then sends COUNT messages of SIZE bytes that nobody asked for, each in the
               envelope of the last request (so that they look like late replies); it plays option 0 afterwards
  oversized    answers every decision with a reply of SIZE bytes (COUNT is ignored)

The messages share one buffer, so the bot needs only SIZE bytes of its own memory, however many it sends.
"""

from __future__ import annotations

import sys
from typing import Any

import msgpack
import zmq

MODES = ("unsolicited", "oversized")
DISQUALIFYING = 3  # illegal answers that disqualify a bot for the rest of the game


def reply(request: dict[str, Any], **fields: Any) -> bytes:
    """A well-formed reply to request."""
    return msgpack.packb({"version": 1, "id": request["id"], **fields})


def padded(request: dict[str, Any], size: int) -> bytes:
    """An action for request, padded to about size bytes."""
    return msgpack.packb({"type": "action", "version": 1, "id": request["id"], "index": 0,
                          "padding": b"x" * max(0, size - 64)})


def main(mode: str, count: int, size: int, endpoint: str) -> None:
    """Serve the arena over a ROUTER socket, flooding it as the mode says."""
    socket = zmq.Context().socket(zmq.ROUTER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SNDHWM, 0)  # queue everything on this side: the arena decides how much it takes
    socket.connect(endpoint)
    decisions = 0
    while True:
        *envelope, body = socket.recv_multipart()
        request = msgpack.unpackb(body)
        kind = request["type"]
        if kind == "hello":
            socket.send_multipart([*envelope, reply(request, type="ready", name=f"flood-{mode}", bot_version="1")])
        elif kind != "decide":
            socket.send_multipart([*envelope, reply(request, type="ack")])
            if kind == "shutdown":
                return
        elif mode == "oversized":
            socket.send_multipart([*envelope, padded(request, size)])
        elif decisions >= DISQUALIFYING:
            socket.send_multipart([*envelope, reply(request, type="action", index=0)])
        else:
            decisions += 1
            socket.send_multipart([*envelope, reply(request, type="action", index=len(request["options"]) + 1)])
            if decisions == DISQUALIFYING:
                junk = zmq.Frame(padded(request, size))
                for _ in range(count):
                    socket.send_multipart([*envelope, junk], copy=False)
                print(f"flood_bot: sent {count} unsolicited messages of {size} bytes", file=sys.stderr, flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) != 4 or args[0] not in MODES or not args[1].isdigit() or not args[2].isdigit():
        sys.stderr.write(f"usage: flood_bot.py MODE COUNT SIZE ENDPOINT, MODE one of {', '.join(MODES)}\n")
        sys.exit(2)
    main(args[0], int(args[1]), int(args[2]), args[3])
