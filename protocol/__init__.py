"""The arena's bot protocol: message schema, msgpack codec and the bot SDK (spec: protocol/PROTOCOL.md)."""

from protocol.codec import decode, encode, unpack
from protocol.errors import DecodeError, EndpointError, MessageError, OversizedError, SchemaError, VersionError
from protocol.messages import (
    DEFAULT_MAX_MESSAGE,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    REPLY_TO,
    Ack,
    Action,
    Clock,
    Decide,
    GameOver,
    Hello,
    Message,
    MessageType,
    NewGame,
    Outcome,
    Ready,
    Shutdown,
    TimeControl,
)
from protocol.sdk import ARENA_PID_ENV, ENDPOINT_ENV, LIFELINE_ENV, Bot, resolve_endpoint, run_bot

__all__ = [
    "ARENA_PID_ENV", "DEFAULT_MAX_MESSAGE", "ENDPOINT_ENV", "LIFELINE_ENV", "MESSAGE_TYPES", "PROTOCOL_VERSION",
    "REPLY_TO",
    "Ack", "Action", "Bot", "Clock", "Decide", "DecodeError", "EndpointError", "GameOver", "Hello", "Message",
    "MessageError", "MessageType", "NewGame", "Outcome", "OversizedError", "Ready", "SchemaError", "Shutdown",
    "TimeControl", "VersionError", "decode", "encode", "resolve_endpoint", "run_bot", "unpack",
]
