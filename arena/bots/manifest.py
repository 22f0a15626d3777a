"""A submission's manifest.toml, its fields checked in this one place: whether it is read from a submission folder or
from an uploaded archive before anything of it is unpacked, a bad manifest is told in the same words."""

from __future__ import annotations

import re
import shlex
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.folders import read_regular
from arena.bots.process import Transport
from arena.errors import ConfigError

MANIFEST = "manifest.toml"
MANIFEST_LIMIT = 1 << 16  # bytes a manifest may hold
FIELDS = ("name", "version", "author", "command", "build", "transport")
TRANSPORTS = tuple(t.value for t in Transport)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
NAME_RULE = "1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"  # NAME_PATTERN in words
MAX_FIELD = 100  # characters of a manifest's version or author
UNSAFE = set('<>"\'`&\\')  # markup and quoting: never part of a version or an author, which pages show
QUOTED = 80  # characters of a value of the manifest a message quotes


class ManifestError(ConfigError):
    """A manifest the arena does not take; the message starts with the manifest's file name (`manifest.toml: ...`),
    which a reader of a folder puts the folder's path in front of."""


@dataclass(frozen=True)
class Manifest:
    """What a submission's manifest says: its bot's name, version and author, the command that starts it, the
    build step (None: it needs none) and the transport it asks for (None: the default)."""

    name: str
    version: str
    author: str
    command: tuple[str, ...]
    build: tuple[str, ...] | None = None
    transport: str | None = None


def parse_manifest(data: bytes) -> Manifest:
    """The manifest in data, every field checked: ManifestError naming the first problem."""
    try:
        fields = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{MANIFEST}: not valid TOML: {_quoted(str(exc))}") from None
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ManifestError(f"{MANIFEST}: unknown field {_quoted(unknown[0])!r} (fields: {', '.join(FIELDS)})")
    name = _text(fields, "name", plain=False)  # the name's own rule is stricter than plain text's
    if not NAME_PATTERN.match(name):
        raise ManifestError(f"{MANIFEST}: name {_quoted(name)!r} must be 1-64 letters, digits, '_', '.' or '-'")
    version, author = _text(fields, "version"), _text(fields, "author", required=False)
    build = _words(fields, "build") if "build" in fields else None
    transport = fields.get("transport")
    if transport is not None and transport not in TRANSPORTS:
        raise ManifestError(f"{MANIFEST}: transport must be one of {', '.join(TRANSPORTS)}, got "
                            f"{_quoted(str(transport))!r}")
    return Manifest(name, version, author, _words(fields, "command"), build, transport)


def read_manifest(folder: Path) -> Manifest:
    """The manifest of a submission folder (read without following a link), checked: ConfigError naming the
    manifest's path and the first problem."""
    where = folder / MANIFEST
    try:
        data = read_regular(folder, MANIFEST, MANIFEST_LIMIT)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    if data is None:
        raise ConfigError(f"{where}: no manifest in this submission folder")
    try:
        return parse_manifest(data)
    except ManifestError as exc:
        raise ManifestError(f"{folder}/{exc}") from None


def declared_name(folder: Path) -> str:
    """The name a folder's manifest gives, if it can be read at all and the name is sound, else the folder's."""
    try:
        fields = tomllib.loads((read_regular(folder, MANIFEST, MANIFEST_LIMIT) or b"").decode("utf-8"))
    except (OSError, ValueError, ConfigError):  # unreadable, not TOML, or a file the arena refuses
        fields = {}
    name = fields.get("name")
    return name if isinstance(name, str) and NAME_PATTERN.match(name) else folder.name


def _text(fields: dict[str, Any], key: str, required: bool = True, plain: bool = True) -> str:
    """A field that pages show (a name, a version, an author): a string, non-empty if required, short and plain."""
    if key not in fields:
        if required:
            raise ManifestError(f"{MANIFEST}: missing field {key!r}")
        return ""
    value = fields[key]
    if not isinstance(value, str) or (required and not value.strip()):
        raise ManifestError(f"{MANIFEST}: field {key!r} must be a non-empty string")
    if plain and (len(value) > MAX_FIELD or any(unicodedata.category(c).startswith("C") for c in value)
                  or UNSAFE & set(value)):
        raise ManifestError(f"{MANIFEST}: field {key!r} must be at most {MAX_FIELD} characters, with no control "
                            "character, markup or backslash")
    return value


def _words(fields: dict[str, Any], key: str) -> tuple[str, ...]:
    """A command line field (command, build): a string split as a shell would, or a list of strings."""
    if key not in fields:
        raise ManifestError(f"{MANIFEST}: missing field {key!r}")
    value = fields[key]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{MANIFEST}: field {key!r} must be a non-empty string")
    try:
        words = tuple(shlex.split(value))
    except ValueError as exc:
        raise ManifestError(f"{MANIFEST}: cannot split {key} {_quoted(value)!r}: {exc}") from None
    if not words:
        raise ManifestError(f"{MANIFEST}: field {key!r} must not be empty")
    return words


def _quoted(text: str) -> str:
    """A value of the manifest as a message quotes it: control characters replaced, cut to QUOTED characters."""
    return "".join(c if c.isprintable() else "?" for c in text[:QUOTED])
