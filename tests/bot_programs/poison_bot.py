"""A hostile bot that answers with poisoned replies: `python poison_bot.py STATE STEP POISON... ENDPOINT`.

STEP is `ready` or `decide`. At `ready`, each process of the bot (the arena starts a fresh one after a failed
handshake) sends the next POISON instead of its ready, counting processes in the file STATE, and answers
correctly once the list is used up. At `decide`, each decide is answered with the next POISON, then with
option 0. Every other request gets a correct reply. Each process appends its pid to STATE.

Written with a raw ROUTER socket, so that it can send any bytes at all: the reply goes back under the
request's envelope (every frame before the message).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import msgpack
import zmq

MIB = 1 << 20


def nested(depth: int) -> Any:
    """A list nested depth deep (built as bytes: msgpack's packer stops at 512)."""
    return Raw(b"\x91" * depth + b"\x01")


class Raw(bytes):
    """A value already in msgpack bytes."""


def pack_map(pairs: list[tuple[Any, Any]]) -> bytes:
    """A msgpack map of exactly these pairs, in order, duplicates and all."""
    body = b"".join(v if isinstance(v, Raw) else msgpack.packb(v, use_bin_type=True) for pair in pairs for v in pair)
    return b"\xdf" + len(pairs).to_bytes(4, "big") + body


def header(request: dict[str, Any], answer: str) -> list[tuple[Any, Any]]:
    return [("type", answer), ("version", 1), ("id", request["id"])]


def fields(request: dict[str, Any], answer: str) -> list[tuple[Any, Any]]:
    """The fields of a correct reply besides the header."""
    if answer == "ready":
        return [("name", "poison"), ("bot_version", "1")]
    return [("index", 0)] if answer == "action" else []


def replace(pairs: list[tuple[Any, Any]], key: str, value: Any) -> list[tuple[Any, Any]]:
    return [(k, value if k == key else v) for k, v in pairs]


# name -> the poisoned reply to request, which expects a reply of type answer
POISONS: dict[str, Callable[[dict[str, Any], str], bytes]] = {
    "deep_type": lambda r, a: pack_map(replace(header(r, a), "type", nested(1000)) + fields(r, a)),
    "deep_version": lambda r, a: pack_map(replace(header(r, a), "version", nested(1000)) + fields(r, a)),
    "deep_id": lambda r, a: pack_map(replace(header(r, a), "id", nested(1000)) + fields(r, a)),
    "str_bin_keys": lambda r, a: pack_map(header(r, a) + fields(r, a) + [("zzz", 1), (b"aaa", 2)]),
    "float_version": lambda r, a: pack_map(replace(header(r, a), "version", 1.0) + fields(r, a)),
    "version_2": lambda r, a: pack_map(replace(header(r, a), "version", 2) + fields(r, a)),
    "duplicate_key": lambda r, a: pack_map(header(r, a) + fields(r, a) + [("type", a)]),
    "huge_string": lambda r, a: pack_map(replace(header(r, a), "type", "x" * 1_000_000) + fields(r, a)),
    "million_maps": lambda r, a: pack_map(header(r, a) + fields(r, a) + [("padding", Raw(
        b"\xdd" + (1_000_000).to_bytes(4, "big") + b"\x80" * 1_000_000))]),
}
ANSWERS = {"hello": "ready", "decide": "action"}


def started(state: Path) -> int:
    """Record this process in state; the number of processes started before it."""
    with state.open("a+", encoding="utf-8") as file:
        file.seek(0)
        before = len(file.read().split())
        file.write(f"{os.getpid()}\n")
    return before


def main(state: Path, step: str, poisons: list[str], endpoint: str) -> None:
    """Serve the arena, poisoning the replies at step."""
    before = started(state)
    queue = poisons[before:] if step == "ready" else list(poisons)
    socket = zmq.Context().socket(zmq.ROUTER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    while True:
        *envelope, data = socket.recv_multipart()
        request = msgpack.unpackb(data)
        answer = ANSWERS.get(request["type"], "ack")
        if queue and request["type"] == ("hello" if step == "ready" else "decide"):
            reply = POISONS[queue.pop(0)](request, answer)
            if step == "ready":
                queue.clear()  # one poison per process at the handshake
        else:
            reply = pack_map(header(request, answer) + fields(request, answer))
        socket.send_multipart([*envelope, reply])
        if request["type"] == "shutdown":
            return


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:-1], sys.argv[-1])
