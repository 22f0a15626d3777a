"""msgpack encoding and checked decoding of messages, with bounded cost whatever the bytes hold."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Any, TypeVar

import msgpack

from protocol.errors import DecodeError, OversizedError, SchemaError, VersionError, show
from protocol.messages import DEFAULT_MAX_MESSAGE, MESSAGE_TYPES, PROTOCOL_VERSION, Message, describe, integer

M = TypeVar("M", bound=Message)
_ID = integer()  # the parser of every message's id

_SCALARS = frozenset({str, bytes, int, float, bool, type(None)})
_CONTAINERS = frozenset({list, dict})
_PLAIN = _SCALARS | _CONTAINERS


@dataclass(frozen=True)
class Limits:
    """What one message may hold, enforced while it is unpacked, so that no input costs more than these allow.

    depth: maps and lists nested in one another, the message's own map counting as 1;
    items: maps, lists and the entries of all of them, all told (a map entry counts once);
    length: bytes in one string or binary value (None: as many as the message may have).
    """

    depth: int
    items: int
    length: int | None = None


# Any message from a peer that is not trusted: far beyond what any message of a game needs, and still cheap.
DEFAULT_LIMITS = Limits(depth=32, items=1 << 16)
# What the arena accepts in a bot's reply: one flat map of a few short fields, so these leave room only for a
# clear error about a wrong value, and decoding any reply under the cap costs microseconds.
REPLY_LIMITS = Limits(depth=8, items=1024, length=4096)
# A reply of at most this many bytes that is one map of scalars takes the fast path (see _small_flat_map).
_FLAT_SIZE = 256
# msgpack's own bound on nesting, which holds even for a trusted peer's messages (limits=None).
MSGPACK_DEPTH = 1024


def encode(message: Message, request_id: int | None = None) -> bytes:
    """The msgpack bytes of a message, under request_id if one is given."""
    wire = message.to_wire()
    if request_id is not None:
        wire["id"] = request_id
    return msgpack.packb(wire, use_bin_type=True)


class _Guard:
    """The unpacker's hooks: each finished map or list is counted, its entries type-checked, its depth known.

    msgpack builds containers bottom-up, so a container's depth is one more than its deepest entry's, looked up
    by id (every container counted is alive in the tree until unpacking ends, so ids are not reused).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.left = limits.items
        self.depths: dict[int, int] = {}

    def array(self, items: list[Any]) -> list[Any]:
        self._account(items, items)
        return items

    def map(self, pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
        value = dict(pairs)
        if len(value) != len(pairs):
            raise DecodeError(f"duplicate map key {show(_first_duplicate(pairs))}")
        self._account(value, value.values())
        return value

    def _account(self, container: Any, values: Any) -> None:
        self.left -= 1 + len(container)
        if self.left < 0:
            raise DecodeError(f"more than {self.limits.items} maps, lists and entries in one message")
        types = set(map(type, values))
        if not types <= _PLAIN:
            odd = next(t for t in types if t not in _PLAIN)
            raise DecodeError(f"{odd.__name__} values are not allowed; only plain data")
        depth = 1
        if types & _CONTAINERS:
            depth += max(map(self.depths.get, map(id, values), repeat(0)))
            if depth > self.limits.depth:
                raise DecodeError(f"maps and lists nested more than {self.limits.depth} deep")
        self.depths[id(container)] = depth


def _first_duplicate(pairs: list[tuple[Any, Any]]) -> Any:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def _reject_ext(code: int, data: bytes) -> Any:
    raise DecodeError(f"msgpack extension type {code} is not allowed; only plain data")


# How every message is unpacked: strings as text, map keys only strings or bytes, no extension types.
_PLAIN_UNPACK: dict[str, Any] = dict(raw=False, strict_map_key=True, use_list=True, ext_hook=_reject_ext)


def unpack(data: bytes, max_size: int = DEFAULT_MAX_MESSAGE,
           limits: Limits | None = DEFAULT_LIMITS) -> dict[Any, Any]:
    """The map encoded in data; DecodeError or OversizedError if it is not one msgpack map within the cap and limits.

    limits=None trusts the sender (a bot reading the arena's messages): no check per map and list, which would
    cost more than all the rest of decoding; only the cap, msgpack's nesting bound and its own checks hold.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    size = memoryview(data).nbytes
    if size > max_size:
        raise OversizedError(size, max_size)
    if size == 0:
        raise DecodeError("an empty message")
    flat = _small_flat_map(data, size, limits)
    value = flat if flat is not None else _unpack_whole(data, size, limits)
    if not isinstance(value, dict):
        raise DecodeError(f"a message must be a msgpack map, got {describe(value)}")
    return value


def _small_flat_map(data: bytes, size: int, limits: Limits | None) -> dict[Any, Any] | None:
    """The map in data when it is a small map of plain scalars (every reply a bot should send), else None.

    Such a map is within any limits by its size alone, so msgpack decodes it without the per-container hooks,
    which cost ten times the decoding itself; anything else, malformed input included, returns None and takes
    the guarded path, which gives the same value or the same error as ever.
    """
    if limits is None or size > _FLAT_SIZE or limits.length is not None and limits.length < _FLAT_SIZE:
        return None
    header = data[0]
    if not 0x80 <= header <= 0x8F:  # a fixmap: at most 15 entries
        return None
    try:
        value = msgpack.unpackb(data, **_PLAIN_UNPACK)
    except Exception:  # noqa: BLE001 - the guarded path names whatever is wrong
        return None
    if type(value) is not dict or len(value) != header & 0x0F:  # a duplicate key: let the guarded path say so
        return None
    if not all(type(v) in _SCALARS for v in value.values()):
        return None
    return value


def _unpack_whole(data: bytes, size: int, limits: Limits | None) -> Any:
    """The one msgpack value that data holds, unpacked in one call (no Unpacker to make and fill), under the limits'
    hooks if there are limits; msgpack bounds every length by the size of data either way."""
    options = dict(_PLAIN_UNPACK)
    if limits is not None:
        guard = _Guard(limits)
        length = size if limits.length is None else min(limits.length, size)
        options.update(list_hook=guard.array, object_pairs_hook=guard.map, max_str_len=length, max_bin_len=length,
                       max_ext_len=length, max_array_len=limits.items, max_map_len=limits.items)
    try:
        return msgpack.unpackb(data, **options)
    except DecodeError:
        raise
    except msgpack.ExtraData as exc:
        raise DecodeError(f"{len(exc.extra)} bytes after the end of the message; a message is one msgpack map") \
            from None
    except msgpack.StackError:
        raise DecodeError(f"maps and lists nested more than {MSGPACK_DEPTH} deep") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # ValueError also covers invalid UTF-8, input that ends too early and every size limit of the unpacker.
        said = (str(exc) or type(exc).__name__)[:120]
        if "incomplete input" in said:
            raise DecodeError("not a msgpack message (it ends too early)") from None
        raise DecodeError(f"over the decoder's limits ({said})" if "exceeds max_" in said
                          else f"not a msgpack message ({said})") from None


def decode(data: bytes, expect: type[M] | None = None, max_size: int = DEFAULT_MAX_MESSAGE,
           limits: Limits | None = DEFAULT_LIMITS) -> M | Message:
    """The message in data, every field checked; a MessageError subclass says what is wrong.

    With `expect`, any other message type is a SchemaError on the field `type`; `limits` as for unpack, and
    limits=None also takes the trusted sender's word where a message type allows it (Message.from_trusted).
    """
    value = unpack(data, max_size, limits)
    if "type" not in value:
        raise SchemaError("type", "missing")
    kind = value["type"]
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise SchemaError("type", f"expected one of {', '.join(MESSAGE_TYPES)}, got {show(kind)}")
    if "version" not in value:
        raise SchemaError("version", "missing")
    version = value["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise SchemaError("version", f"expected an integer, got {describe(version)}")
    if version != PROTOCOL_VERSION:
        raise VersionError(version, PROTOCOL_VERSION)
    if "id" not in value:
        raise SchemaError("id", "missing")
    request_id = _ID(value["id"], "id")
    if expect is not None and cls is not expect:
        raise SchemaError("type", f"expected {expect.TYPE.value!r} here, got {kind!r}")
    return cls.from_trusted(request_id, value) if limits is None else cls.from_fields(request_id, value)
