"""What can be wrong with a message on the wire: a small tree under MessageError."""

from __future__ import annotations


class MessageError(ValueError):
    """A message that does not follow the protocol; the text says what is wrong."""


class DecodeError(MessageError):
    """The bytes are not one msgpack map of plain data."""


class SchemaError(MessageError):
    """A field is missing, unknown, or of the wrong type or range; `field` names it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field {field!r}: {problem}")
        self.field = field
        self.problem = problem


class VersionError(MessageError):
    """The message speaks another protocol version."""

    def __init__(self, got: object, expected: int) -> None:
        super().__init__(f"protocol version {got!r} is not supported; this side speaks version {expected}")
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
