"""PROTOCOL.md stays true: every example is a valid message, and the decide example is a real game's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgpack

from arena.errors import MAX_DETAIL
from arena.games import get_game
from protocol import MESSAGE_TYPES, PROTOCOL_VERSION, Action, decode, encode
from protocol.codec import REPLY_LIMITS
from protocol.errors import SHOWN

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"


def examples() -> list[dict]:
    text = SPEC.read_text(encoding="utf-8")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]


def test_every_message_type_has_an_example_and_every_example_decodes() -> None:
    found = examples()
    for wire in found:
        message = decode(msgpack.packb(wire, use_bin_type=True))
        assert msgpack.unpackb(encode(message)) == wire
    assert {w["type"] for w in found} == set(MESSAGE_TYPES)


def test_examples_come_in_request_reply_pairs_with_echoed_ids() -> None:
    found = examples()
    for request, reply in zip(found[::2], found[1::2]):
        assert request["id"] == reply["id"] and request["version"] == reply["version"] == PROTOCOL_VERSION


def test_the_decide_example_is_what_the_engine_shows_seat_1_of_seed_7() -> None:
    decide = next(w for w in examples() if w["type"] == "decide")
    state = get_game("bali-2001").new_state(3, 7)
    assert decide["view"] == state.view(1)
    assert decide["events"] == state.events(1, 0)
    assert decide["options"] == state.options()
    assert decide["decision"] == state.decision()


def test_the_byte_example_is_the_encoding() -> None:
    spelled = re.search(r"is these (\d+) bytes:\n\s*`([0-9a-f ]+)`", SPEC.read_text(encoding="utf-8"))
    assert spelled is not None
    data = encode(Action(id=3, index=3))
    assert bytes.fromhex(spelled.group(2)) == data and int(spelled.group(1)) == len(data)


def test_the_limits_stated_are_the_decoders() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert f"| nesting | {REPLY_LIMITS.depth} levels" in text
    assert f"| maps, lists and their entries, all told | {REPLY_LIMITS.items:,} |" in text
    assert f"| one string (or binary value, or map key) | {REPLY_LIMITS.length:,} bytes |" in text
    assert f"in at most {MAX_DETAIL} characters" in text and f"by its first {SHOWN} characters" in text
