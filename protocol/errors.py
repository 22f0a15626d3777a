"""What can be wrong with a message on the wire: a small tree under MessageError.

Every text here is short whatever the peer sent: values from the wire go through `show`, never through repr.
"""

from __future__ import annotations

from typing import Any

SHOWN = 40  # characters of a string from the wire that an error message quotes


def show(value: Any, limit: int = SHOWN) -> str:
    """A short description of a value from the wire: a string's first characters, a container's size, never
    its nested content (which may be as deep or as long as the sender liked)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return _cut(repr(value), 2 * limit)
        return f"{_cut(repr(value[:limit]), 2 * limit)}... ({len(value)} characters)"
    if isinstance(value, (bytes, bytearray)):
        return f"binary data of {len(value)} bytes"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return f"a map of {len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    if value is None or isinstance(value, (bool, int, float)):
        return _cut(repr(value), limit)
    return type(value).__name__


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class MessageError(ValueError):
    """A message that does not follow the protocol; the text says what is wrong."""


class DecodeError(MessageError):
    """The bytes are not one msgpack map of plain data within the decoder's limits."""


class SchemaError(MessageError):
    """A field is missing, unknown, or of the wrong type or range; `field` names it (cut short if it is long)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = _cut(field, 2 * SHOWN)
        self.problem = problem
        super().__init__(f"field {_cut(repr(self.field), 2 * SHOWN)}: {problem}")


class VersionError(MessageError):
    """The message speaks another protocol version."""

    def __init__(self, got: object, expected: int) -> None:
        super().__init__(f"protocol version {show(got)} is not supported; this side speaks version {expected}")
        self.got = got
        self.expected = expected


class OversizedError(MessageError):
    """The message is larger than the agreed cap."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"message of {size} bytes exceeds the cap of {limit} bytes")
        self.size = size
        self.limit = limit


class EndpointError(ValueError):
    """A bot was started without an endpoint to connect to."""
