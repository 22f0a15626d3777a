"""The decoder fuzzed: random bytes, random msgpack, replies with random fields, mutated replies and adversarial
shapes (deep nesting, duplicate keys, lying length headers, extension types) go through codec.unpack,
codec.decode under every set of limits and the arena's own reply check, and nothing comes out but a message
or a short typed error.

The default suite runs a few hundred inputs per kind; the soak run, at least 1,000,000 inputs in all:

    python -m pytest -m soak -s -n0 tests/protocol/test_fuzz.py
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.channel import Channel
from arena.errors import MAX_DETAIL, ProtocolError
from protocol import Clock, Decide, Hello, Message, MessageError, NewGame, TimeControl, decode
from protocol.codec import DEFAULT_LIMITS, REPLY_LIMITS, Limits
from protocol.messages import MAX_ID
from tests.helpers import quick_run

SHORT_EXAMPLES, SHORT_MUTANTS = 25, 15  # per kind in the default suite: about 400 inputs, a few seconds in all
SOAK_INPUTS, SOAK_MUTANTS = 1_000_000, 99
MAX_ERROR = 300  # characters of a MessageError's text, whatever the input
LIMITS: tuple[Limits | None, ...] = (REPLY_LIMITS, DEFAULT_LIMITS, None)
# One request of each reply type the arena expects: ready, action and ack.
REQUESTS: tuple[Message, ...] = (
    Hello(id=0, arena="fuzz", max_message=1 << 20),
    Decide(id=0, game_index=0, decision={"kind": "turn"}, view={}, events=[], event_index=0, options=[{}],
           time=Clock(remaining=1.0, bank=0.0)),
    NewGame(id=0, game="g", game_index=0, options={}, seat=0, num_players=2, seed=1, time=TimeControl()),
)
REPLIES: tuple[dict[str, Any], ...] = (
    {"type": "ready", "version": 1, "id": 1, "name": "bot", "bot_version": "1"},
    {"type": "action", "version": 1, "id": 1, "index": 0},
    {"type": "ack", "version": 1, "id": 1},
)

# --- strategies ------------------------------------------------------------------------------------------------
KEYS = st.one_of(st.sampled_from(["type", "version", "id", "index", "name", "bot_version", "kind"]),
                 st.text(max_size=8),
                 st.binary(max_size=8))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(1 << 63), (1 << 64) - 1), st.floats(), st.text(max_size=80),
    st.binary(max_size=40), st.sampled_from(["ready", "action", "ack", "hello", 1, 0, -1, 1.0, MAX_ID, MAX_ID + 1]),
    st.builds(msgpack.Timestamp, st.integers(0, 1 << 32), st.integers(0, 999_999_999)),
    st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8)),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(KEYS, inner, max_size=6)), max_leaves=30)


def pack(value: Any, use_bin_type: bool = True) -> bytes:
    return msgpack.packb(value, use_bin_type=use_bin_type, strict_types=False)


class Packed(bytes):
    """A value already in msgpack bytes (one too deep for msgpack's packer, for instance)."""


def raw_map(pairs: list[tuple[Any, Any]]) -> bytes:
    """A msgpack map of exactly these pairs, duplicate keys and all."""
    header = b"\xde" + len(pairs).to_bytes(2, "big")
    return header + b"".join(v if isinstance(v, Packed) else pack(v) for pair in pairs for v in pair)


@st.composite
def replies(draw: st.DrawFn) -> bytes:
    """A reply with some fields replaced, removed, repeated or added."""
    fields = list(draw(st.sampled_from(REPLIES)).items())
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["replace", "remove", "repeat", "add"]))
        if action == "add" or not fields:
            fields.append((draw(KEYS), draw(VALUES)))
            continue
        at = draw(st.integers(0, len(fields) - 1))
        if action == "replace":
            fields[at] = (fields[at][0], draw(VALUES))
        elif action == "remove":
            del fields[at]
        else:
            fields.insert(draw(st.integers(0, len(fields))), (fields[at][0], draw(VALUES)))
    return raw_map(fields)


# Byte strings that, dropped into a message, lie about lengths, nest, or name extension and reserved types.
POISON_BYTES = [b"\xc1", b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\x7f\xff\xff\xff",
                b"\xc6\xff\xff\xff\xff", b"\xc9\x00\x00\x10\x00\x05", b"\xd6\xff\x00\x00\x00\x01", b"\xd4\x05\x00",
                b"\x91" * 2000, b"\x81\xa1a" * 1500, b"\xdc\x00\x10", b"\x80" * 64, b"\xcb\x7f\xf8" + b"\x00" * 6,
                b"\xa3\xff\xfe\xfd", b"\x92\x80\x80"]


@st.composite
def adversarial(draw: st.DrawFn) -> bytes:
    """Shapes made to crash or slow a decoder: deep nesting, many containers, huge strings, duplicate keys."""
    reply = dict(draw(st.sampled_from(REPLIES)))
    field = draw(st.sampled_from([*reply, "extra"]))
    shape = draw(st.sampled_from(["deep", "wide", "tree", "long", "duplicates", "ext"]))
    if shape == "deep":
        opener = draw(st.sampled_from([b"\x91", b"\x81\xa1k", b"\x92\x80", b"\x82\xa1a\x01\xa1b"]))
        reply[field] = Packed(opener * draw(st.integers(1, 1500)) + pack(draw(SCALARS)))
    elif shape == "wide":
        reply[field] = [draw(st.sampled_from([{}, [], 0, ""]))] * draw(st.integers(0, 70_000))
    elif shape == "tree":
        reply[field] = [[{}] * draw(st.integers(1, 100))] * draw(st.integers(1, 100))
    elif shape == "long":
        reply[field] = draw(st.sampled_from(["x", "\U0010ffff", b"\xff"])) * draw(st.integers(0, 1 << 20))
    elif shape == "ext":
        reply[field] = draw(st.sampled_from([msgpack.Timestamp(0, 1), msgpack.ExtType(0, b""),
                                             msgpack.ExtType(9, b"z" * 9000)]))
    else:
        return raw_map([*reply.items(), (draw(st.sampled_from([*reply, b"id"])), draw(VALUES))])
    return raw_map(list(reply.items()))


KINDS: dict[str, st.SearchStrategy[bytes]] = {
    "random bytes": st.binary(max_size=256),
    "random msgpack": st.one_of(VALUES.map(pack), st.dictionaries(KEYS, VALUES, max_size=8).map(pack)),
    "fuzzed replies": st.one_of(st.sampled_from([pack(r) for r in REPLIES]), replies()),
    "adversarial": adversarial(),
}
BIG = 1 << 16  # bytes: an input larger than this gets only a few mutants, which cost as much to decode
INTERESTING = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc4, 0xc7, 0xc9, 0xca, 0xcb,
               0xcf, 0xd3, 0xd4, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff]


def mutate(data: bytes, rnd: random.Random) -> bytes:
    """data with one to four random edits: bytes flipped, set to a msgpack marker, inserted, removed, cut,
    repeated (which nests) or replaced by a poison."""
    out = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        at = rnd.randint(0, len(out))
        edit = rnd.randrange(8)
        if edit == 0 and at < len(out):
            out[at] ^= 1 << rnd.randrange(8)
        elif edit == 1 and at < len(out):
            out[at] = rnd.choice(INTERESTING)
        elif edit == 2:
            out[at:at] = rnd.randbytes(rnd.randint(1, 8))
        elif edit == 3:
            out[at:at] = rnd.choice(POISON_BYTES)
        elif edit == 4:
            del out[at:at + rnd.randint(1, 8)]
        elif edit == 5:
            del out[at:]
        elif edit == 6:
            chunk = out[at:at + rnd.randint(1, 4)]
            out[at:at] = chunk * rnd.randint(1, 600)
        else:
            out[at:at + 4] = rnd.randbytes(4)
    return bytes(out)


def batches(kind: str, mutants: int) -> st.SearchStrategy[list[bytes]]:
    """An input of the kind, followed by mutants of it made with a random generator hypothesis controls."""
    def expand(base: bytes, rnd: random.Random) -> list[bytes]:
        return [base, *(mutate(base, rnd) for _ in range(mutants if len(base) <= BIG else min(mutants, 2)))]
    return st.builds(expand, KINDS[kind], st.randoms(use_true_random=False))


# --- the property ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def channel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Channel]:
    """An arena channel on a real socket; only its reply check is used."""
    context = zmq.Context()
    folder: Path = tmp_path_factory.mktemp("fuzz")
    link = Channel(context, f"ipc://{folder}/fuzz.sock")
    yield link
    link.close()
    context.term()


class Tally:
    """Inputs tried, and what each target made of them."""

    def __init__(self) -> None:
        self.inputs = 0
        self.outcomes: Counter[str] = Counter()


def check_one(data: bytes, channel: Channel, tally: Tally) -> None:
    """Every decoder entry point on data: a message, or a short typed error; anything else fails the test."""
    tally.inputs += 1
    for limits in LIMITS:
        try:
            decode(data, limits=limits)  # unpack, then the checks of every field
            tally.outcomes["decoded"] += 1
        except MessageError as exc:
            assert len(str(exc)) <= MAX_ERROR, str(exc)
            tally.outcomes[type(exc).__name__] += 1
    for request in REQUESTS:
        try:
            channel._check(request, 1, [data], 0.0)
        except ProtocolError as fault:
            assert len(fault.detail) <= MAX_DETAIL
            tally.outcomes[fault.kind.value] += 1


def fuzz(kind: str, examples: int, mutants: int, channel: Channel, tally: Tally) -> None:
    """Run examples batches of one kind (each an input and its mutants) through check_one."""
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(batches(kind, mutants))
    def run(batch: list[bytes]) -> None:
        for data in batch:
            check_one(data, channel, tally)
    run()


@pytest.mark.parametrize("kind", quick_run(KINDS, set(KINDS) - {"adversarial"}))  # its large inputs: slow
def test_the_decoder_survives_fuzzing(kind: str, channel: Channel) -> None:
    tally = Tally()
    fuzz(kind, SHORT_EXAMPLES, SHORT_MUTANTS, channel, tally)
    assert tally.inputs >= SHORT_EXAMPLES


@pytest.mark.soak
def test_the_decoder_survives_a_million_inputs(channel: Channel) -> None:
    tally = Tally()
    start = time.monotonic()
    per_kind = -(-SOAK_INPUTS // len(KINDS))
    for kind in KINDS:
        done = tally.inputs
        while tally.inputs - done < per_kind:  # big inputs get fewer mutants: go again until the count is reached
            left = per_kind - (tally.inputs - done)
            fuzz(kind, -(-left // (SOAK_MUTANTS + 1)), SOAK_MUTANTS, channel, tally)
    elapsed = time.monotonic() - start
    print(f"\nfuzz: {tally.inputs:,} inputs in {elapsed:.0f} s, 0 untyped exceptions; "
          f"outcomes (per decoder entry point): {dict(tally.outcomes)}")
    assert tally.inputs >= SOAK_INPUTS
