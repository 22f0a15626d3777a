"""Deliberately faulty bots for the tests: `python tests/bot_programs/faulty_bot.py MODE ENDPOINT`.

Each mode answers the handshake, new_game, game_over and shutdown correctly and misbehaves at
decisions (all of them, unless the mode says otherwise), so that the arena disqualifies it; only
stall_new_game and hold_new_game misbehave at new_game instead:

  sleep         answers every decision after sleeping for one and a half times its remaining time (charged as thinking)
  think         answers every decision after computing for one and a half times its remaining time (its CPU time)
  die_at_start  exits with status 3 before connecting
  die_mid_game  plays two decisions correctly, then exits with status 1 at the third
  garbage       answers bytes that are not msgpack
  illegal       answers an index past the last option
  stale_id      answers with the id of the previous request
  silent        never answers a decision
  flood         writes to stdout without end instead of answering
  oversized     answers a valid action padded past the 1 MiB cap
  stall_new_game  sleeps a quarter of its init timeout (`time.init`) before each new_game's ack, well within it,
                and answers every decision at once
  hold_new_game   sleeps half a second less than its init timeout (9.5 s at the default 10 s) before each
                new_game's ack, to hold its table up each game, and answers every decision at once

Written with plain pyzmq and msgpack (not the SDK) because the SDK never sends anything this wrong.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import msgpack
import zmq

MODES = ("sleep", "think", "die_at_start", "die_mid_game", "garbage", "illegal", "stale_id", "silent", "flood",
         "oversized", "stall_new_game", "hold_new_game")
STALL_SHARE = 0.25  # of the init timeout, that stall_new_game sleeps in each new_game
HOLD_MARGIN = 0.5  # seconds under the init timeout that hold_new_game sleeps in each new_game


def reply(request: dict[str, Any], **fields: Any) -> bytes:
    """A well-formed reply to request."""
    return msgpack.packb({"version": 1, "id": request["id"], **fields})


def misbehave(mode: str, request: dict[str, Any], decisions: int) -> bytes | None:
    """The faulty answer to a decide request (None: no answer at all)."""
    if mode == "sleep":
        time.sleep(1.5 * request["time"]["remaining"])
        return reply(request, type="action", index=0)
    if mode == "think":
        until = time.process_time() + 1.5 * request["time"]["remaining"]
        while time.process_time() < until:
            pass
        return reply(request, type="action", index=0)
    if mode == "die_mid_game" and decisions > 2:
        print("faulty_bot: dying mid-game on purpose", file=sys.stderr, flush=True)
        sys.exit(1)
    if mode == "garbage":
        return b"\xc1 this is not msgpack"
    if mode == "illegal":
        return reply(request, type="action", index=len(request["options"]) + 5)
    if mode == "stale_id":
        return msgpack.packb({"type": "action", "version": 1, "id": request["id"] - 1, "index": 0})
    if mode == "oversized":
        return msgpack.packb({"type": "action", "version": 1, "id": request["id"], "index": 0,
                              "padding": "x" * (2 << 20)})
    if mode in ("silent", "flood"):
        while True:
            if mode == "flood":
                sys.stdout.write("flood " * 1000 + "\n")
            else:
                time.sleep(1)
    return reply(request, type="action", index=0)


def main(mode: str, endpoint: str) -> None:
    """Serve the arena the faulty way."""
    if mode == "die_at_start":
        print("faulty_bot: dying at start on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    decisions = 0
    while True:
        request = msgpack.unpackb(socket.recv())
        kind = request["type"]
        if kind == "decide":
            decisions += 1
            answer = misbehave(mode, request, decisions)
            if answer is not None:
                socket.send(answer)
            continue
        if kind == "new_game" and mode == "stall_new_game":
            time.sleep(STALL_SHARE * request["time"]["init"])
        if kind == "new_game" and mode == "hold_new_game":
            time.sleep(request["time"]["init"] - HOLD_MARGIN)
        if kind == "hello":
            socket.send(reply(request, type="ready", name=f"faulty-{mode}", bot_version="1.0"))
        else:
            socket.send(reply(request, type="ack"))
        if kind == "shutdown":
            return


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MODES:
        sys.stderr.write(f"usage: faulty_bot.py MODE ENDPOINT, MODE one of {', '.join(MODES)}\n")
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
