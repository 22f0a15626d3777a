"""A bot for the wire tests: it appends every message it receives, exactly as unpacked, to $RECORD_DIR/<pid>.bin
and plays at random from the seed it is given. Plain pyzmq and msgpack, so nothing is decoded for it."""

import os
import random
import sys

import msgpack
import zmq


def main() -> None:
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(sys.argv[-1])
    rng = random.Random(0)
    with open(os.path.join(os.environ["RECORD_DIR"], f"{os.getpid()}.bin"), "wb") as record:
        while True:
            data = socket.recv()
            record.write(data)
            record.flush()
            request = msgpack.unpackb(data)
            answer = {"type": "ack", "version": 1, "id": request["id"]}
            if request["type"] == "hello":
                answer.update(type="ready", name="recorder", bot_version="1")
            elif request["type"] == "new_game":
                rng = random.Random(request["seed"])
            elif request["type"] == "decide":
                answer.update(type="action", index=rng.randrange(len(request["options"])))
            socket.send(msgpack.packb(answer))
            if request["type"] == "shutdown":
                return


if __name__ == "__main__":
    main()
