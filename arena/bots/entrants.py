"""Tournament entrants: bot command lines or submission folders with a manifest, checked before any game."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Mapping, Sequence

from arena.bots.folders import check_folder
from arena.bots.manifest import MANIFEST, declared_name, read_manifest
from arena.bots.process import BotCommand
from arena.bots.sandbox.paths import in_runtime
from arena.bots.shown import shown, shown_to_author
from arena.errors import ConfigError
from arena.numbering import free_name

# What to install where a build's program is missing (Debian packages).
INSTALL_HINTS = {
    "make": "make", "g++": "g++", "cargo": "cargo", "npm": "nodejs npm", "node": "nodejs",
    "javac": "default-jdk-headless", "java": "default-jdk-headless",
}
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


def numbered(labels: list[str], taken: Iterable[str] = ()) -> tuple[str, ...]:
    """The labels, a repeated one numbered from its second use on: random_bot, random_bot-2, random_bot-3 (past the
    names in `taken` too)."""
    names: list[str] = list(taken)
    for label in labels:
        names.append(free_name(label, names))
    return tuple(names[len(names) - len(labels):])


def from_commands(specs: Sequence[str], taken: Iterable[str] = ()) -> list[Entrant]:
    """Entrants from bot commands (see from_command); a second copy of a bot named after its command is numbered
    as `arena match` numbers it (random_bot-2), past the names in `taken`; names given (NAME=) stay as given."""
    entrants = [from_command(spec) for spec in specs]
    given = [e.name for spec, e in zip(specs, entrants) if _NAMED_COMMAND.match(spec) or is_submission(spec)]
    derived = [i for i, spec in enumerate(specs) if not (_NAMED_COMMAND.match(spec) or is_submission(spec))]
    names = numbered([entrants[i].name for i in derived], [*taken, *given])
    for i, name in zip(derived, names):
        entrants[i] = replace(entrants[i], name=name)
    return entrants


def from_command(spec: str) -> Entrant:
    """An entrant from 'COMMAND', 'FOLDER' (a submission folder), or either after 'NAME=' (the name defaults to
    the manifest's, else to the command's script or module)."""
    match = _NAMED_COMMAND.match(spec)
    name, text = (match.group(1), match.group(2)) if match else (None, spec)
    if is_submission(text):
        entrant = from_folder(Path(text))
        return replace(entrant, name=name) if name else entrant
    command = _command(text, None, None)
    return Entrant(name or command.label, command.argv)


@dataclass(frozen=True)
class SubmissionCommand(BotCommand):
    """The command of a submission folder's bot, which goes by its manifest's name."""

    name: str = ""

    @property
    def label(self) -> str:
        """The manifest's name."""
        return self.name


def bot_command(text: str) -> BotCommand:
    """The bot a command line or a submission folder names, checked: ConfigError if it cannot work."""
    if is_submission(text):
        entrant = from_folder(Path(text))
        return SubmissionCommand(entrant.command, entrant.cwd, entrant.name)
    return _command(text, None, None)


def is_submission(text: str) -> bool:
    """True if text names a folder: a submission (ConfigError if it holds no manifest, the one thing it needs)."""
    folder = Path(text)
    try:
        if not text.strip() or not folder.is_dir():  # '' is no folder (Path('') is the current one)
            return False
    except OSError:
        return False
    if not (folder / MANIFEST).is_file():
        raise ConfigError(f"{text!r} is a folder without a {MANIFEST}: a submission folder needs one "
                          "(arena new NAME --lang LANG creates a bot with its manifest)")
    return True


def build_step(folder: Path) -> tuple[str, ...] | None:
    """The build command a submission's manifest names (run in its folder), or None if it needs no build."""
    return read_manifest(folder).build


def contained(folder: Path, words: tuple[str, ...], where: str) -> None:
    """ConfigError unless every path a manifest's command line names lies inside its folder once resolved (no
    `..`, no symbolic link out of it, no absolute path but into the system's runtime); a bare program name is
    looked up on PATH."""
    root = folder.resolve()
    for position, word in enumerate(words):
        for path in _paths_in(word, root, program=position == 0):
            why = _leaves(root, path)
            if why:
                raise ConfigError(f"{where}: {word!r} {why}: a submission runs inside its folder and its command "
                                  "may name only files there (and programs of the system)")


def _paths_in(word: str, root: Path, program: bool) -> list[str]:
    """The parts of a command line's word that name files: the word (a program only with a '/'), and a value
    after '=' of an option."""
    parts = [] if word.startswith("-") or (program and "/" not in word) else [word]
    parts += [word.split("=", 1)[1]] if "=" in word else []
    return [p for p in parts if p and ("/" in p or p == ".." or os.path.lexists(root / p))]


def _leaves(root: Path, path: str) -> str:
    """Why path (absolute, or relative to root) leaves the folder root, or ''."""
    if ".." in PurePosixPath(path).parts:
        return "climbs out of the folder with '..'"
    if path.startswith("/"):
        return "" if in_runtime(Path(path)) else "is an absolute path outside the folder"
    if not (root / path).resolve().is_relative_to(root):
        return "is a symbolic link that leaves the folder"
    return ""


def transport(folder: Path) -> str | None:
    """The transport a submission's manifest asks for ("tcp" for a ZeroMQ library without ipc), or None."""
    return read_manifest(folder).transport


def install_hint(program: str) -> str:
    """How to install a build program the machine may lack (Debian packages), as a parenthesis, or ''."""
    packages = INSTALL_HINTS.get(Path(program).name)
    return f" (Debian/Ubuntu: apt-get install {packages})" if packages else ""


def from_folder(folder: Path) -> Entrant:
    """An entrant from a submission folder holding manifest.toml (name, version, author, command, build,
    transport)."""
    where = str(folder / MANIFEST)
    manifest = read_manifest(folder)
    cwd = str(folder.resolve())
    command = BotCommand(manifest.command, cwd)
    contained(folder, command.argv, f"{where}: command")
    if manifest.build is not None:
        contained(folder, manifest.build, f"{where}: build")
        # What the bot runs may not exist before its first build: only the build's program is checked now,
        # the bot's own when it starts.
        try:
            BotCommand(manifest.build, cwd).check()
        except ConfigError as exc:
            raise ConfigError(f"{where}: build: {exc}{install_hint(manifest.build[0])}") from None
    else:
        _checked(command, where)
    check_folder(folder)  # the manifest is read without following a link; the rest of the folder is walked now
    return Entrant(manifest.name, command.argv, cwd, manifest.version, manifest.author)


@dataclass(frozen=True)
class Refusal:
    """A submission not admitted: its folder, its name (as far as its manifest tells) and why."""

    folder: str
    name: str
    reason: str
    said: str = ""  # the end of what the bot wrote to stderr: shown to the organiser, never stored or published
    log: str = ""  # where its log was kept for the organiser ('' if nowhere): never stored or published

    def to_dict(self) -> dict[str, str]:
        return {"folder": self.folder, "name": self.name, "reason": self.reason}


def _submission_folders(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise ConfigError(f"submissions directory {str(directory)!r} does not exist")
    folders = sorted(p for p in directory.iterdir() if p.is_dir() and not p.name.startswith(".")
                     and not arena_made(p))
    if not folders:
        raise ConfigError(f"submissions directory {str(directory)!r} holds no submission folders")
    return folders


def arena_made(folder: Path) -> bool:
    """True for a folder without a manifest that the arena made itself (a results folder left by a validate run
    inside the submissions directory): not an entrant."""
    return not (folder / MANIFEST).exists() and ((folder / "matches").is_dir() or any(folder.glob("*.sqlite")))


def survey(directory: Path, holders: Mapping[str, str] | None = None) -> tuple[list[Entrant], list[Refusal]]:
    """Every submission folder in directory, in name order: those whose manifest and command are sound, and
    every other one with its problem; a name two folders declare belongs to one of them (see holder; `holders`:
    the folder each name was first admitted with), and the others are refused, each told whose name it is."""
    entrants: list[tuple[Path, Entrant]] = []
    refused: list[Refusal] = []
    for folder in _submission_folders(directory):
        try:
            entrants.append((folder, from_folder(folder)))
        except ConfigError as exc:
            said = shown_to_author(str(exc), folder)  # as the served season tells an upload's author
            refused.append(Refusal(shown(folder), declared_name(folder), f"{shown(folder)}: {said}"))
    by_name: dict[str, list[Path]] = {}
    for folder, entrant in entrants:
        by_name.setdefault(entrant.name, []).append(folder)
    kept = []
    for folder, entrant in entrants:
        first, why = holder(entrant.name, by_name[entrant.name], (holders or {}).get(entrant.name))
        if first == folder:
            kept.append(entrant)
        else:
            refused.append(Refusal(shown(folder), entrant.name, f"{shown(folder)}/{MANIFEST}: the name "
                                   f"{entrant.name!r} belongs to {shown(first)} ({why}): give this bot a name of its "
                                   "own"))
    return kept, sorted(refused, key=lambda r: r.folder)


def holder(name: str, folders: list[Path], first: str | None = None) -> tuple[Path, str]:
    """Which of the folders (in name order) declaring name holds it, and why: the one it was first admitted with
    (the folder `first`), else the one whose folder has the name, else the first."""
    if len(folders) == 1:
        return folders[0], "its only folder"
    admitted = [f for f in folders if first is not None and str(f.resolve()) == first]
    if admitted:
        return admitted[0], "admitted under it first"
    named = [f for f in folders if f.name == name]
    return (named[0], "its folder has that name") if named else (folders[0], "first of its folders in name order")


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
