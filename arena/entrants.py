"""Tournament entrants: bot command lines or submission folders with a manifest, checked before any game."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from arena.bots import BotCommand
from arena.errors import ConfigError

MANIFEST = "manifest.toml"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_NAMED_COMMAND = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})=(.+)$", re.S)


@dataclass(frozen=True)
class Entrant:
    """One bot in a tournament: a unique name, the command that starts it, and where it runs."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    version: str = ""
    author: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "command": list(self.command), "cwd": self.cwd, "version": self.version,
                "author": self.author}


def _command(text: str, cwd: str | None, where: str | None) -> BotCommand:
    """The bot command of text (run in cwd), checked: ConfigError (prefixed with where) if it cannot work."""
    try:
        command = BotCommand(BotCommand.parse(text).argv, cwd)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}" if where else str(exc)) from None
    return _checked(command, where)


def _checked(command: BotCommand, where: str | None) -> BotCommand:
    try:
        command.check()
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}" if where else str(exc)) from None
    return command


def from_command(spec: str) -> Entrant:
    """An entrant from 'COMMAND' or 'NAME=COMMAND' (the name defaults to the command's script or module)."""
    match = _NAMED_COMMAND.match(spec)
    name, text = (match.group(1), match.group(2)) if match else (None, spec)
    command = _command(text, None, None)
    return Entrant(name or command.label, command.argv)


def _field(data: dict[str, Any], key: str, where: str, required: bool = True) -> Any:
    if key not in data:
        if required:
            raise ConfigError(f"{where}: missing field {key!r}")
        return ""
    value = data[key]
    if key == "command" and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value
    if not isinstance(value, str) or (required and not value.strip()):
        raise ConfigError(f"{where}: field {key!r} must be a non-empty string")
    return value


def from_folder(folder: Path) -> Entrant:
    """An entrant from a submission folder holding manifest.toml (name, version, author, command)."""
    where = str(folder / MANIFEST)
    try:
        data = tomllib.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{where}: no manifest in this submission folder") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"name", "version", "author", "command"})
    if unknown:
        raise ConfigError(f"{where}: unknown field {unknown[0]!r} (fields: name, version, author, command)")
    name = _field(data, "name", where)
    if not NAME_PATTERN.match(name):
        raise ConfigError(f"{where}: name {name!r} must be 1-64 letters, digits, '_', '.' or '-'")
    text, cwd = _field(data, "command", where), str(folder.resolve())
    command = _checked(BotCommand(tuple(text), cwd), where) if isinstance(text, list) else _command(text, cwd, where)
    return Entrant(name, command.argv, cwd, _field(data, "version", where), _field(data, "author", where, False))


def from_submissions(directory: Path) -> list[Entrant]:
    """Every submission folder in directory, in name order."""
    if not directory.is_dir():
        raise ConfigError(f"submissions directory {str(directory)!r} does not exist")
    folders = sorted(p for p in directory.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise ConfigError(f"submissions directory {str(directory)!r} holds no submission folders")
    return [from_folder(folder) for folder in folders]


def check_entrants(entrants: Iterable[Entrant], seats: int) -> list[Entrant]:
    """The entrants, if their names are unique and there are enough of them to fill a table."""
    entrants = list(entrants)
    seen: set[str] = set()
    for entrant in entrants:
        if entrant.name in seen:
            raise ConfigError(f"duplicate bot name {entrant.name!r}: give each bot its own name (NAME=COMMAND "
                              "on the command line, or the name field of its manifest)")
        seen.add(entrant.name)
    if len(entrants) < seats:
        raise ConfigError(f"{len(entrants)} entrants cannot fill a table of {seats} seats")
    return entrants
