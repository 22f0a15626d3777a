"""A bot for the stopping test: it plays at random, and once asked to shut down it notes so in FOLDER (its first
argument) and stays until COUNT bots (its second) have been asked, then notes that it left by itself and exits; it
gives up waiting after 10 s. Plain pyzmq and msgpack."""

import os
import random
import sys
import time

import msgpack
import zmq


def main() -> None:
    folder, count = sys.argv[1], int(sys.argv[2])
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(sys.argv[-1])
    rng = random.Random(0)
    while True:
        request = msgpack.unpackb(socket.recv())
        answer = {"type": "ack", "version": 1, "id": request["id"]}
        if request["type"] == "hello":
            answer.update(type="ready", name="lingering", bot_version="1")
        elif request["type"] == "decide":
            answer.update(type="action", index=rng.randrange(len(request["options"])))
        socket.send(msgpack.packb(answer))
        if request["type"] == "shutdown":
            break
    open(os.path.join(folder, f"asked-{os.getpid()}"), "w").close()
    deadline = time.monotonic() + 10.0
    while sum(name.startswith("asked-") for name in os.listdir(folder)) < count:
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)
    open(os.path.join(folder, f"left-{os.getpid()}"), "w").close()


if __name__ == "__main__":
    main()
