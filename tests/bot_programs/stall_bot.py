"""A bot that stalls one step for good: `python tests/bot_programs/stall_bot.py STEP ENDPOINT`.

It answers every request correctly until the first one of type STEP (hello, new_game, decide or game_over), and
never answers that one: the arena must count the fault against it alone, whatever seat it has at the table.
"""

from __future__ import annotations

import sys
import time

import msgpack
import zmq

STEPS = ("hello", "new_game", "decide", "game_over")


def main(step: str, endpoint: str) -> None:
    """Serve the arena until the stalled step, then sleep until killed."""
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    while True:
        request = msgpack.unpackb(socket.recv())
        kind = request["type"]
        if kind == step:
            while True:
                time.sleep(60)
        fields = {"type": "ready", "name": f"stall-{step}", "bot_version": "1.0"} if kind == "hello" else \
            {"type": "action", "index": 0} if kind == "decide" else {"type": "ack"}
        socket.send(msgpack.packb({"version": 1, "id": request["id"], **fields}))
        if kind == "shutdown":
            return


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in STEPS:
        sys.stderr.write(f"usage: stall_bot.py STEP ENDPOINT, STEP one of {', '.join(STEPS)}\n")
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
