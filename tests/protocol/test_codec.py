"""The message schema and codec: every message round-trips, and every bad field is a typed error naming it."""

from __future__ import annotations

import math
from typing import Any

import msgpack
import pytest

from protocol import (
    Ack,
    Action,
    Clock,
    Decide,
    DecodeError,
    GameOver,
    Hello,
    Message,
    MessageError,
    NewGame,
    Outcome,
    OversizedError,
    Ready,
    SchemaError,
    Shutdown,
    TimeControl,
    VersionError,
    decode,
    encode,
)

EXAMPLES: list[Message] = [
    Hello(id=1, arena="bali-arena 0.1.0", max_message=1 << 20),
    Ready(id=1, name="my-bot", bot_version="1.2"),
    NewGame(id=2, game="bali-2001", game_index=0, options={"max_turns": 50}, seat=2, num_players=4, seed=12345,
            time=TimeControl(timeout=1.0, init=10.0, bank=5.0, increment=0.1)),
    Ack(id=2),
    Decide(id=3, game_index=0, decision={"kind": "turn", "seat": 2}, view={"hand": [{"id": 1, "kind": "priest"}]},
           events=[{"type": "turn", "turn": 1}], event_index=0, options=[{"action": "end_turn"}, {"action": "play"}],
           time=Clock(remaining=1.5, bank=0.5)),
    Action(id=3, index=1),
    GameOver(id=4, game_index=0, seat=2, result=Outcome(scores=(3, 9, 1, 4), ranks=(3, 1, 4, 2),
             reason="the last mask was handed out", cut_short=False, disqualified=()),
             events=[{"type": "game_over"}], event_index=17),
    Shutdown(id=5, reason="match over"),
]
BOT_REPLIES = (Ready, Action, Ack)


def packed(wire: dict[str, Any]) -> bytes:
    return msgpack.packb(wire, use_bin_type=True)


def wrong_value(value: Any) -> Any:
    """A value of another type than value."""
    return 7 if isinstance(value, (str, dict, list, tuple, bool)) else "seven"


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE.value)
def test_every_message_round_trips(message: Message) -> None:
    assert decode(encode(message)) == message
    assert decode(encode(message), type(message)) == message


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE.value)
def test_encode_can_set_the_request_id(message: Message) -> None:
    assert decode(encode(message, 99)).id == 99


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE.value)
def test_every_missing_field_is_named(message: Message) -> None:
    for field in ("type", "version", "id", *message.SCHEMA):
        wire = message.to_wire()
        del wire[field]
        with pytest.raises(SchemaError) as caught:
            decode(packed(wire))
        assert caught.value.field == field
        assert field in str(caught.value) and "missing" in str(caught.value)


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE.value)
def test_every_field_of_the_wrong_type_is_named(message: Message) -> None:
    for field in message.SCHEMA:
        wire = message.to_wire()
        wire[field] = wrong_value(wire[field])
        with pytest.raises(SchemaError) as caught:
            decode(packed(wire))
        assert caught.value.field == field, field


@pytest.mark.parametrize("path, value", [
    (("time", "timeout"), -1.0), (("time", "bank"), math.inf), (("time", "init"), math.nan),
    (("time", "increment"), "soon"), (("options",), {b"k": "a"}), (("seat",), True), (("seat",), -1),
])
def test_nested_and_range_errors_name_the_full_path(path: tuple[str, ...], value: Any) -> None:
    wire = EXAMPLES[2].to_wire()
    target = wire
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(MessageError) as caught:
        decode(msgpack.packb(wire, use_bin_type=True, strict_types=False))
    assert ".".join(path) in str(caught.value)


def test_decide_checks_its_lists_and_decision() -> None:
    base = EXAMPLES[4].to_wire()
    for field, value, where in [("options", [], "options"), ("options", [1], "options[0]"),
                                ("events", [{"a": 1}, "x"], "events[1]"), ("decision", {"seat": 1}, "decision.kind"),
                                ("time", {"remaining": 1.0}, "time.bank")]:
        with pytest.raises(SchemaError) as caught:
            decode(packed({**base, field: value}))
        assert caught.value.field == where


@pytest.mark.parametrize("reply", BOT_REPLIES, ids=lambda c: c.TYPE.value)
def test_bot_replies_may_not_carry_unknown_fields(reply: type[Message]) -> None:
    message = next(m for m in EXAMPLES if isinstance(m, reply))
    with pytest.raises(SchemaError) as caught:
        decode(packed({**message.to_wire(), "idx": 1}))
    assert caught.value.field == "idx" and "unknown" in str(caught.value)


@pytest.mark.parametrize("message", [m for m in EXAMPLES if not isinstance(m, BOT_REPLIES)],
                         ids=lambda m: m.TYPE.value)
def test_arena_messages_may_grow_fields_that_bots_ignore(message: Message) -> None:
    assert decode(packed({**message.to_wire(), "added_in_a_later_release": [1, 2]})) == message


@pytest.mark.parametrize("wire, error, text", [
    ({"version": 1, "id": 1}, SchemaError, "type"),
    ({"type": "move", "version": 1, "id": 1}, SchemaError, "expected one of"),
    ({"type": "ack", "version": 2, "id": 1}, VersionError, "version 2"),
    ({"type": "ack", "version": True, "id": 1}, VersionError, "True"),
    ({"type": "ack", "id": 1}, SchemaError, "version"),
    ({"type": "ack", "version": 1, "id": -3}, SchemaError, "id"),
    ({"type": "ack", "version": 1, "id": "3"}, SchemaError, "id"),
    ({"type": "action", "version": 1, "id": 3, "index": 1.0}, SchemaError, "index"),
    ({"type": "ready", "version": 1, "id": 1, "name": "", "bot_version": "1"}, SchemaError, "name"),
    ({"type": "ready", "version": 1, "id": 1, "name": "a\nb", "bot_version": "1"}, SchemaError, "printable"),
    ({"type": "ready", "version": 1, "id": 1, "name": "x" * 65, "bot_version": "1"}, SchemaError, "65"),
])
def test_bad_headers_and_values(wire: dict[str, Any], error: type[Exception], text: str) -> None:
    with pytest.raises(error) as caught:
        decode(packed(wire))
    assert text in str(caught.value)


@pytest.mark.parametrize("data", [
    b"", b"\xc1", b"\x93\x01\x02", packed({"type": "ack"})[:-2],
    packed({"type": "ack", "version": 1, "id": 1}) + b"\x00",
    msgpack.packb(msgpack.ExtType(5, b"xx")), msgpack.packb({"type": b"ack"}, use_bin_type=True) + b"junk",
    b"\x81\xa4type\xa2\xff\xfe", "not bytes",
])
def test_garbage_is_a_decode_error_never_a_crash(data: Any) -> None:
    with pytest.raises(MessageError):
        decode(data)


def test_oversized_messages_are_refused_before_unpacking() -> None:
    data = encode(Ready(id=1, name="x", bot_version="y" * 60))
    with pytest.raises(OversizedError) as caught:
        decode(data, max_size=len(data) - 1)
    assert caught.value.size == len(data) and caught.value.limit == len(data) - 1
    assert decode(data, max_size=len(data)).id == 1


def test_expecting_one_type_refuses_another() -> None:
    with pytest.raises(SchemaError) as caught:
        decode(encode(Ack(id=3)), Action)
    assert caught.value.field == "type" and "'action'" in str(caught.value)


def test_errors_form_one_tree() -> None:
    for error in (DecodeError, SchemaError, VersionError, OversizedError):
        assert issubclass(error, MessageError) and issubclass(error, ValueError)
