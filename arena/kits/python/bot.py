"""{{name}}: a bali-arena bot in Python, with pyzmq and msgpack (protocol/PROTOCOL.md of bali-arena).

Write your logic in strategy(); the rest speaks the protocol and need not change.
"""

import json
import os
import random
import sys

import msgpack
import zmq

NAME, BOT_VERSION = "{{name}}", "0.1"
PROTOCOL_VERSION = 1


def strategy(view, options, decision, rng):
    """Return the index of the option to play (0 <= index < len(options)).

    view      everything your seat may know now: view["game"] ("bali-2001" or "bali-2017"), view["seat"],
              view["hand"] (your cards) and more; each game's README lists every field
    options   the legal choices, each a map; option 0 is always the safe default (pass, decline, keep)
    decision  what is being decided: decision["kind"] (the game's README lists the kinds)
    rng       a random generator seeded by the arena for this game, so that a replayed game plays the same
    """
    hand = view.get("hand", [])
    if len(options) == 1:
        return 0
    if LEARNED:  # what learn.py learned from a season's winners: the option they chose most often
        scores = [LEARNED.get(option_key(decision["kind"], option), 0.5) for option in options]
        best = max(scores)
        return rng.choice([i for i, score in enumerate(scores) if score == best])
    # Example logic: with a big hand, play anything but the default; otherwise pick at random.
    if len(hand) >= 5:
        return rng.randrange(1, len(options))
    return rng.randrange(len(options))


def option_key(kind, option):
    """An option's name in learned.json (as learn.py names it): its decision's kind and its fields."""
    return kind + " " + json.dumps({k: v for k, v in option.items() if k != "row"}, sort_keys=True)


def load_learned():
    """The scores learn.py wrote beside this file, or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "learned.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)["scores"]


LEARNED = load_learned()


def endpoint():
    """$ARENA_ENDPOINT, else the last command-line argument."""
    return os.environ.get("ARENA_ENDPOINT") or sys.argv[-1]


def arena_alive():
    """False once the arena process ($ARENA_PID) is gone: then this bot exits by itself."""
    try:
        os.kill(int(os.environ.get("ARENA_PID", "0")) or os.getppid(), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        pass
    return True


def reply(request, kind, **fields):
    """A reply: the header with the request's id echoed, then the fields."""
    return msgpack.packb({"type": kind, "version": PROTOCOL_VERSION, "id": request["id"], **fields})


def main():
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RECONNECT_IVL, 10)
    socket.connect(endpoint())
    rng = random.Random(0)
    while True:
        if not socket.poll(1000):
            if not arena_alive():
                return
            continue
        request = msgpack.unpackb(socket.recv())
        if request.get("version") != PROTOCOL_VERSION:
            sys.exit(f"{NAME}: protocol version {request.get('version')!r} is not supported")
        kind = request.get("type")
        if kind == "hello":
            socket.send(reply(request, "ready", name=NAME, bot_version=BOT_VERSION))
        elif kind == "new_game":
            rng = random.Random(request["seed"])
            socket.send(reply(request, "ack"))
        elif kind == "decide":
            options = request["options"]
            index = strategy(request["view"], options, request["decision"], rng)
            if not (isinstance(index, int) and 0 <= index < len(options)):
                print(f"{NAME}: strategy returned {index!r}, playing the default", file=sys.stderr)
                index = 0
            socket.send(reply(request, "action", index=index))
        elif kind == "shutdown":
            socket.send(reply(request, "ack"))
            return
        else:  # game_over, and any request this bot does not know, is acknowledged
            socket.send(reply(request, "ack"))


if __name__ == "__main__":
    main()
