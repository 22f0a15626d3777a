"""The message schema and codec: every message round-trips, and every bad field is a typed error naming it."""

from __future__ import annotations

import math
import tracemalloc
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
    codec,
    decode,
    encode,
    unpack,
)
from protocol.codec import DEFAULT_LIMITS, MSGPACK_DEPTH, REPLY_LIMITS, Limits
from protocol.errors import SHOWN, show

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
    ({"type": "ack", "version": True, "id": 1}, SchemaError, "expected an integer, got a boolean"),
    ({"type": "ack", "version": 1.0, "id": 1}, SchemaError, "expected an integer, got a float"),
    ({"type": "ack", "version": 1, "id": 1.0}, SchemaError, "'id': expected an integer, got a float"),
    ({"type": "ack", "version": -7, "id": 1}, VersionError, "version -7"),
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


@pytest.mark.parametrize("name", ["é-bot", "名前", "bot 🤖", "x" * 64, "🤖" * 64, "a b", "Ω≈ç√"])
def test_names_are_unicode_characters_counted_as_code_points(name: str) -> None:
    assert decode(packed({"type": "ready", "version": 1, "id": 1, "name": name, "bot_version": ""})).name == name


@pytest.mark.parametrize("name", ["tab\there", "new\nline", "zero\u200bwidth", "no\u00a0break", "bidi\u202eflip",
                                  "soft\u00adhyphen", "private\ue000use", "line\u2028sep", "🤖" * 65, ""])
def test_names_refuse_what_is_not_printable_or_too_long(name: str) -> None:
    with pytest.raises(SchemaError) as caught:
        decode(packed({"type": "ready", "version": 1, "id": 1, "name": name, "bot_version": ""}))
    assert caught.value.field == "name"


@pytest.mark.parametrize("data", [
    b"", b"\xc1", b"\x93\x01\x02", packed({"type": "ack"})[:-2],
    packed({"type": "ack", "version": 1, "id": 1}) + b"\x00",
    msgpack.packb(msgpack.ExtType(5, b"xx")), msgpack.packb({"type": b"ack"}, use_bin_type=True) + b"junk",
    b"\x81\xa4type\xa2\xff\xfe", "not bytes",
])
def test_garbage_is_a_decode_error_never_a_crash(data: Any) -> None:
    with pytest.raises(MessageError):
        decode(data)


ACK = packed({"type": "ack", "version": 1, "id": 1})


@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, None], ids=["checked", "trusted"])
@pytest.mark.parametrize("data, text", [
    (ACK[:-2], "not a msgpack message (it ends too early)"),
    (ACK + b"\x00\x00", "2 bytes after the end of the message; a message is one msgpack map"),
    (b"\xc1", "not a msgpack message"),
    (b"\x81\xa4type\xa2\xff\xfe", "not a msgpack message"),  # a string that is not UTF-8
    (msgpack.packb(msgpack.ExtType(5, b"xx")), "msgpack extension type 5 is not allowed; only plain data"),
    (b"\x93\x01\x02\x03", "a message must be a msgpack map"),
    (b"\xdd\xff\xff\xff\xff", "over the decoder's limits"),  # a list of 4 billion entries said in 5 bytes
    (b"\xdf\xff\xff\xff\xff", "over the decoder's limits"),  # a map of as many
])
def test_each_kind_of_garbage_is_named_alike_whether_the_sender_is_trusted_or_not(data: bytes, text: str,
                                                                                   limits: Limits | None) -> None:
    with pytest.raises(DecodeError) as caught:
        unpack(data, limits=limits)
    assert str(caught.value).startswith(text), str(caught.value)


@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, None], ids=["checked", "trusted"])
def test_nesting_beyond_msgpacks_own_bound_is_named_with_it(limits: Limits | None) -> None:
    # msgpack stops at its bound on the way down, before a checked path's hooks see a finished container.
    with pytest.raises(DecodeError) as caught:
        unpack(b"\x81\xa1a" + b"\x91" * (MSGPACK_DEPTH + 1) + b"\x80", limits=limits)
    assert str(caught.value) == f"maps and lists nested more than {MSGPACK_DEPTH} deep"


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


def nested(depth: int, leaf: Any = 1) -> Any:
    """leaf inside depth lists."""
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def pairs(*items: Any) -> bytes:
    """A msgpack map of the given keys and values in this order, duplicates and all."""
    return bytes([0x80 | len(items) // 2]) + b"".join(msgpack.packb(i, use_bin_type=True) for i in items)


ACTION = {"type": "action", "version": 1, "id": 3, "index": 0}
REPLY_POISONS = {
    "deep type": packed({**ACTION, "type": nested(1000)}),
    "deep version": packed({**ACTION, "version": nested(1000)}),
    "deep id": packed({**ACTION, "id": nested(1000)}),
    "deeper than msgpack": b"\x91" * 5000 + b"\x01",
    "str and bin unknown keys": packed({**ACTION, "zz": 1, b"aa": 2}),
    "bin and str unknown keys": packed({**ACTION, b"zz": 1, "aa": 2}),
    "float version": packed({**ACTION, "version": 1.0}),
    "duplicate key": pairs("type", "action", "version", 1, "id", 3, "index", 0, "index", 1),
    "duplicate bin key": pairs("type", "action", "version", 1, "id", 3, "index", 0, b"k", 1, b"k", 2),
    "huge type": packed({**ACTION, "type": "x" * 1_000_000}),
    "huge key": packed({**ACTION, "k" * 1_000_000: 1}),
    "huge binary": packed({**ACTION, "index": b"\xff" * 1_000_000}),
    "a million empty maps": b"\xdd" + (1_000_000).to_bytes(4, "big") + b"\x80" * 1_000_000,
    "a tree of empty maps": packed({**ACTION, "index": [[{}] * 1000] * 1000}),
    "timestamp": packed({**ACTION, "index": msgpack.Timestamp(1, 0)}),
    "escapes": packed({**ACTION, "type": "\U0010ffff" * 5000}),
}


@pytest.mark.parametrize("limits", [REPLY_LIMITS, DEFAULT_LIMITS, None], ids=["reply", "default", "trusted"])
@pytest.mark.parametrize("poison", REPLY_POISONS)
def test_poisoned_replies_are_short_typed_errors(poison: str, limits: Limits | None) -> None:
    if limits is None and poison in ("duplicate key", "a million empty maps", "a tree of empty maps"):
        pytest.skip("a trusted peer's messages are not checked map by map")
    with pytest.raises(MessageError) as caught:
        decode(REPLY_POISONS[poison], Action, limits=limits)
    assert len(str(caught.value)) <= 250, str(caught.value)


def test_each_limit_holds_and_names_itself() -> None:
    limits = Limits(depth=3, items=10, length=5)
    assert unpack(packed({"a": [[1]]}), limits=limits) == {"a": [[1]]}
    for value, text in [({"a": [[[1]]]}, "nested more than 3 deep"), ({"a": list(range(20))}, "max_array_len"),
                        ({"a": [1, 2], "b": [3, 4], "c": [5, 6]}, "more than 10 maps, lists and entries"),
                        ({"a": "x" * 6}, "max_str_len"), ({"a": b"x" * 6}, "max_bin_len")]:
        with pytest.raises(DecodeError, match=text):
            unpack(packed(value), limits=limits)


def test_duplicate_keys_are_refused_at_any_depth() -> None:
    inner = pairs("a", 1, "a", 2)
    with pytest.raises(DecodeError, match="duplicate map key 'a'"):
        unpack(b"\x81\xa1x" + inner)


def test_a_million_empty_maps_cost_the_arena_almost_nothing() -> None:
    # The reply limits refuse the array at its header, before a single map is built.
    tracemalloc.start()
    try:
        for poison in ("a million empty maps", "a tree of empty maps"):
            with pytest.raises(DecodeError):
                decode(REPLY_POISONS[poison], Action, limits=REPLY_LIMITS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


@pytest.mark.parametrize("value, shown", [
    ("short", "'short'"), ("x" * 1000, "'" + "x" * SHOWN + "'... (1000 characters)"),
    (b"\x00" * 9, "binary data of 9 bytes"),
    (nested(5000), "a list of 1 item"), ({"a": 1, "b": 2}, "a map of 2 entries"), (1.5, "1.5"), (None, "None"),
    (msgpack.Timestamp(1, 0), "Timestamp"),
])
def test_show_is_short_and_never_recurses(value: Any, shown: str) -> None:
    assert show(value) == shown


SMALL_REPLIES = {
    "action": packed(ACTION),
    "ack": packed({"type": "ack", "version": 1, "id": 9}),
    "ready": packed({"type": "ready", "version": 1, "id": 1, "name": "é-bot", "bot_version": "1"}),
    "duplicate key": pairs("type", "action", "version", 1, "id", 3, "index", 0, "index", 1),
    "bad utf-8": b"\x81\xa1k\xa2\xff\xfe",
    "trailing bytes": packed(ACTION) + b"\x00",
    "ends early": packed(ACTION)[:-1],
    "extension": packed({**ACTION, "index": msgpack.ExtType(5, b"x")}),
    "nested": packed({**ACTION, "index": [1, [2]]}),
    "integer key": b"\x81\x01\x02",
    "not a map": packed([1, 2]),
}
# The reply limits with strings just short enough that no message takes the fast path.
GUARDED_ONLY = Limits(depth=REPLY_LIMITS.depth, items=REPLY_LIMITS.items, length=255)


def outcome(data: bytes, limits: Limits) -> Any:
    try:
        return unpack(data, limits=limits)
    except DecodeError as exc:
        return f"DecodeError: {exc}"


@pytest.mark.parametrize("name", SMALL_REPLIES)
def test_a_small_reply_decodes_as_the_guarded_path_decodes_it(name: str) -> None:
    data = SMALL_REPLIES[name]
    assert outcome(data, REPLY_LIMITS) == outcome(data, GUARDED_ONLY)
    if name in ("action", "ack", "ready"):  # the well-formed ones do take the fast path
        assert codec._small_flat_map(data, len(data), REPLY_LIMITS) == unpack(data, limits=GUARDED_ONLY)


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE.value)
def test_a_bot_reads_every_arena_message_as_the_checked_decode_does(message: Message) -> None:
    assert decode(encode(message), limits=None) == decode(encode(message)) == message


def test_a_bot_takes_the_arenas_decide_as_sent_but_not_one_missing_a_field() -> None:
    wire = EXAMPLES[4].to_wire()
    for field in ("view", "options", "time"):
        with pytest.raises(SchemaError) as caught:
            decode(packed({k: v for k, v in wire.items() if k != field}), limits=None)
        assert caught.value.field == field and "missing" in str(caught.value)
    with pytest.raises(SchemaError) as caught:
        decode(packed({**wire, "time": {"remaining": 1.0}}), limits=None)
    assert caught.value.field == "time.bank"  # nested values are parsed
