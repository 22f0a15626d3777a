"""msgpack encoding and checked decoding of messages."""

from __future__ import annotations

from typing import Any, TypeVar

import msgpack

from protocol.errors import DecodeError, OversizedError, SchemaError, VersionError
from protocol.messages import DEFAULT_MAX_MESSAGE, MAX_ID, MESSAGE_TYPES, PROTOCOL_VERSION, Message

M = TypeVar("M", bound=Message)


def encode(message: Message, request_id: int | None = None) -> bytes:
    """The msgpack bytes of a message, under request_id if one is given."""
    wire = message.to_wire()
    if request_id is not None:
        wire["id"] = request_id
    return msgpack.packb(wire, use_bin_type=True)


def _reject_ext(code: int, data: bytes) -> Any:
    raise DecodeError(f"msgpack extension type {code} is not allowed; only plain data")


def unpack(data: bytes, max_size: int = DEFAULT_MAX_MESSAGE) -> dict[Any, Any]:
    """The map encoded in data; DecodeError or OversizedError if it is not one msgpack map within the cap."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    if len(data) > max_size:
        raise OversizedError(len(data), max_size)
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True, ext_hook=_reject_ext)
    except DecodeError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # ValueError also covers invalid UTF-8, trailing bytes and truncated input.
        raise DecodeError(f"not a msgpack message ({str(exc) or type(exc).__name__})") from None
    if not isinstance(value, dict):
        raise DecodeError(f"a message must be a msgpack map, got {type(value).__name__}")
    return value


def decode(data: bytes, expect: type[M] | None = None, max_size: int = DEFAULT_MAX_MESSAGE) -> M | Message:
    """The message in data, every field checked; a MessageError subclass says what is wrong.

    With `expect`, any other message type is a SchemaError on the field `type`.
    """
    value = unpack(data, max_size)
    kind = value.get("type")
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(MESSAGE_TYPES)
        raise SchemaError("type", f"expected one of {known}, got {kind!r}" if "type" in value else "missing")
    if value.get("version") != PROTOCOL_VERSION or isinstance(value.get("version"), bool):
        if "version" not in value:
            raise SchemaError("version", "missing")
        raise VersionError(value["version"], PROTOCOL_VERSION)
    request_id = value.get("id")
    if not isinstance(request_id, int) or isinstance(request_id, bool) or not 0 <= request_id <= MAX_ID:
        raise SchemaError("id", "missing" if "id" not in value else f"expected an integer from 0 to {MAX_ID}, "
                          f"got {request_id!r}")
    if expect is not None and cls is not expect:
        raise SchemaError("type", f"expected {expect.TYPE.value!r} here, got {kind!r}")
    return cls.from_fields(request_id, value)
