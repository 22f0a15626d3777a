"""A submission uploaded as a .zip or .tar.gz: every member checked before anything is written to disk (sizes,
counts, the compression ratio, names, types, the manifest), then unpacked by hand into a fresh folder."""

from __future__ import annotations

import gzip
import io
import shutil
import stat
import tarfile
import tempfile
import time
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any, Callable, Iterator

from arena.bots import leftovers
from arena.bots.entrants import from_folder
from arena.bots.manifest import MANIFEST, ManifestError, parse_manifest
from arena.bots.shown import shown_to_author
from arena.errors import ArenaError, ConfigError, bounded
from arena.storage import Store
from arena.storage.authors import Author

MIB = 1 << 20
MAX_NAME = 255  # characters of a member's path
MAX_MANIFEST = 64 * 1024  # bytes of a manifest.toml
_CHUNK = 1 << 16
UPLOAD_PREFIX = "upload-"  # an unpacked upload's folder under the uploads folder
DAY = 24 * 3600.0  # seconds over which an author's uploads are counted
UNSAFE = set('<>"\'`&\\')  # markup and quoting: never part of a member's name


class UploadRefused(ArenaError):
    """An upload the competition does not take; the message is one line for its author, `status` the HTTP code."""

    def __init__(self, message: str, status: int = 400) -> None:
        # One printable line of bounded length, whatever of the upload it quotes.
        super().__init__(bounded("".join(c if c.isprintable() else "?" for c in message)))
        self.status = status


@dataclass(frozen=True)
class UploadLimits:
    """What one upload may hold, and how often an author may upload (the competition file's [serve] table)."""

    max_upload: int = 20 * MIB  # bytes of the archive as sent
    max_unpacked: int = 200 * MIB  # bytes of its files once unpacked
    max_members: int = 2000  # files and folders in it
    max_ratio: float = 200.0  # unpacked bytes per archive byte (a zip bomb's is in the thousands)
    uploads_per_day: int = 20  # per author, over the last 24 hours
    active_bots: int = 3  # bot names per author


def check_rate(store: Store, author: Author, limits: UploadLimits) -> None:
    """UploadRefused (429) if the author made as many uploads in the last 24 hours as they may, refused ones
    included (a refusal for this reason is not kept, so hammering adds nothing to the store)."""
    if store.uploads_since(author, time.time() - DAY) >= limits.uploads_per_day:
        raise UploadRefused(f"you have uploaded {limits.uploads_per_day} times in the last 24 hours, the limit: "
                            "try again later", 429)


@dataclass(frozen=True)
class Member:
    """One member of an archive as its index tells it: its path, size, and whether it is a folder."""

    path: PurePosixPath
    size: int
    folder: bool
    executable: bool = False


@dataclass(frozen=True)
class Manifest:
    """What an upload's manifest says about the bot, read from the archive before anything is unpacked."""

    name: str
    version: str
    author: str
    root: PurePosixPath  # the folder holding the manifest inside the archive ('.' for its root)


def kind_of(filename: str) -> str:
    """'zip' or 'tar.gz' by the upload's file name: UploadRefused for any other."""
    lower = filename.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    raise UploadRefused(f"upload a .zip or a .tar.gz of your submission folder, not {_shown(filename)!r}")


def members(archive: Path, kind: str, limits: UploadLimits) -> list[Member]:
    """Every member of the archive, each checked (name, type), and the whole checked against the limits;
    UploadRefused naming the first problem. Nothing is written anywhere."""
    size = archive.stat().st_size
    if size > limits.max_upload:
        raise UploadRefused(f"the upload is {size} bytes, over the limit of {limits.max_upload}", 413)
    found: list[Member] = []
    seen: set[PurePosixPath] = set()
    # In one pass, each check a set look-up: the count is bounded before any other work on a member, so that no
    # archive costs more than its member limit allows, whatever it repeats.
    for member in _zip_members(archive) if kind == "zip" else _tar_members(archive, limits):
        if len(found) >= limits.max_members:
            raise UploadRefused(f"the archive holds more than {limits.max_members} members, over the limit of "
                                f"{limits.max_members}")
        if not member.path.parts:  # '.' or './': the archive's root itself, a folder, or a file with no name
            if member.folder:
                continue
            raise UploadRefused(f"a file member is named {str(member.path)!r}, the archive's root")
        if member.path in seen:
            raise UploadRefused(f"member {str(member.path)!r} appears twice in the archive")
        seen.add(member.path)
        found.append(member)
    _check_tree(found)
    total = sum(m.size for m in found)
    if total > limits.max_unpacked:
        raise UploadRefused(f"the archive unpacks to {total} bytes, over the limit of {limits.max_unpacked}")
    if total > limits.max_ratio * max(size, 1) and total > MIB:
        raise UploadRefused(f"the archive unpacks to {total / max(size, 1):.0f} times its size, over the limit of "
                            f"{limits.max_ratio:.0f} (a zip bomb?)")
    return found


def _check_tree(found: list[Member]) -> None:
    """UploadRefused if the members do not make one tree of folders and files: a file that another member lies
    inside (`a` beside `a/b`)."""
    files = {m.path for m in found if not m.folder}
    for member in found:
        clash = next((parent for parent in member.path.parents if parent in files), None)
        if clash is not None:
            raise UploadRefused(f"member {str(member.path)!r} lies inside {str(clash)!r}, which is a file")


def _zip_members(archive: Path) -> Iterator[Member]:
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                if info.flag_bits & 0x1:
                    raise UploadRefused(f"member {_shown(info.filename)!r} is encrypted")
                if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                    raise UploadRefused(f"member {_shown(info.filename)!r} is a {_type_name(kind)}: only files "
                                        "and folders are taken")
                yield Member(safe_path(info.filename), info.file_size, info.is_dir(), bool(mode & 0o100))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise UploadRefused(f"not a readable zip archive: {_shown(str(exc))}") from None


class _Bounded(io.RawIOBase):
    """A stream that refuses to yield more than `limit` bytes: a gzip bomb is stopped while it is read."""

    def __init__(self, inner: IO[bytes], limit: int) -> None:
        self.inner, self.limit, self.read_so_far = inner, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(min(len(buffer), _CHUNK))
        self.read_so_far += len(data)
        if self.read_so_far > self.limit:
            raise UploadRefused(f"the archive unpacks to more than {self.limit} bytes (a gzip bomb?)")
        buffer[:len(data)] = data
        return len(data)


def _tar_stream(archive: Path, limits: UploadLimits) -> tarfile.TarFile:
    # A tar's headers are spread through its data: the whole stream is read to list them, bounded all the way.
    limit = int(min(limits.max_unpacked, limits.max_ratio * max(archive.stat().st_size, MIB))) + MIB
    raw = io.BufferedReader(_Bounded(gzip.open(archive), limit))
    return tarfile.open(fileobj=raw, mode="r|")


def _tar_members(archive: Path, limits: UploadLimits) -> Iterator[Member]:
    try:
        with _tar_stream(archive, limits) as tar:
            for info in tar:
                if not (info.isfile() or info.isdir()):
                    what = ("symbolic link" if info.issym() else "hard link" if info.islnk() else
                            "pipe" if info.isfifo() else "device" if info.isdev() else "special file")
                    raise UploadRefused(f"member {_shown(info.name)!r} is a {what}: only files and folders are "
                                        "taken")
                yield Member(safe_path(info.name), info.size, info.isdir(), bool(info.mode & 0o100))
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        raise UploadRefused(f"not a readable .tar.gz archive: {_shown(str(exc))}") from None


def safe_path(name: str) -> PurePosixPath:
    """A member's path, if it stays inside the folder it is unpacked in: UploadRefused for an absolute path, a
    '..', a backslash, markup or a control character."""
    shown = _shown(name)
    if not name or len(name) > MAX_NAME:
        raise UploadRefused(f"member name {shown[:80]!r} is empty or longer than {MAX_NAME} characters")
    if any(unicodedata.category(c).startswith("C") for c in name) or UNSAFE & set(name):
        raise UploadRefused(f"member name {shown!r} holds a control character, markup or a backslash")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise UploadRefused(f"member {shown!r} has an absolute path")
    if ".." in path.parts:
        raise UploadRefused(f"member {shown!r} climbs out of the folder with '..'")
    return path


def manifest_of(archive: Path, kind: str, found: list[Member]) -> Manifest:
    """The manifest at the archive's root or one folder deep, read and checked in memory: UploadRefused naming
    what is wrong."""
    files = [m for m in found if not m.folder]
    candidates = [m.path for m in files if m.path.name == MANIFEST and len(m.path.parts) <= 2]
    if not candidates:
        raise UploadRefused(f"no {MANIFEST} at the archive's root or in its one top folder")
    path = min(candidates, key=lambda p: len(p.parts))
    root = path.parent
    if root != PurePosixPath(".") and any(root not in m.path.parents and m.path != root for m in found):
        raise UploadRefused(f"{MANIFEST} is in {str(root)!r}, but the archive holds more beside that folder")
    member = next(m for m in files if m.path == path)
    if member.size > MAX_MANIFEST:
        raise UploadRefused(f"{MANIFEST} is over {MAX_MANIFEST} bytes")
    return _parse(_read_member(archive, kind, path), root)


def _read_member(archive: Path, kind: str, path: PurePosixPath) -> bytes:
    if kind == "zip":
        with zipfile.ZipFile(archive) as z:
            name = next(i.filename for i in z.infolist() if PurePosixPath(i.filename) == path)
            return z.read(name)[:MAX_MANIFEST]
    with tarfile.open(archive, "r:gz") as tar:
        for info in tar:
            if PurePosixPath(info.name) == path:
                handle = tar.extractfile(info)
                return handle.read(MAX_MANIFEST) if handle else b""
    return b""


def _parse(data: bytes, root: PurePosixPath) -> Manifest:
    try:
        manifest = parse_manifest(data)
    except ManifestError as exc:
        raise UploadRefused(str(exc)) from None
    return Manifest(manifest.name, manifest.version, manifest.author, root)


def unpack(archive: Path, kind: str, found: list[Member], target: Path,
           going: Callable[[], None] = lambda: None) -> None:
    """Write the checked members under target (a new, empty folder), each file no larger than its index said, with
    going() called before each file (it raises to stop the unpacking); UploadRefused if the archive's data does not
    match its index."""
    try:
        _unpack(archive, kind, found, target, going)
    except (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError, OSError, KeyError) as exc:
        detail = shown_to_author(str(exc), target) if not isinstance(exc, OSError) else exc.strerror or "error"
        raise UploadRefused(f"the archive could not be unpacked: {_shown(detail)}") from None


def _unpack(archive: Path, kind: str, found: list[Member], target: Path, going: Callable[[], None]) -> None:
    sizes = {m.path: m for m in found}
    for member in found:
        if member.folder:
            (target / member.path).mkdir(parents=True, exist_ok=True)
    if kind == "zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if not info.is_dir():
                    going()
                    with z.open(info) as source:
                        _write(source, target, sizes[PurePosixPath(info.filename)])
        return
    with tarfile.open(archive, "r:gz") as tar:
        for info in tar:
            handle = tar.extractfile(info) if info.isfile() else None
            if handle is not None:
                going()
                _write(handle, target, sizes[PurePosixPath(info.name)])


def _write(source: IO[bytes], target: Path, member: Member) -> None:
    path = target / member.path
    if not path.resolve().is_relative_to(target.resolve()):
        raise UploadRefused(f"member {str(member.path)!r} would be written outside its folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(path, "xb") as out:  # x: never through a file (or link) already there
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > member.size:
                raise UploadRefused(f"member {str(member.path)!r} is larger than the archive's index says")
            out.write(chunk)
    path.chmod(0o755 if member.executable else 0o644)


def receive(archive: Path, filename: str, uploads: Path, limits: UploadLimits,
            going: Callable[[], None] = lambda: None) -> tuple[Manifest, Path, Path]:
    """Check an uploaded archive and unpack it into a new folder under uploads: (its manifest, that new folder,
    the bot's folder in it). The new folder is marked as this process's until `kept` is called on it once the
    store holds its submission: a process killed meanwhile leaves a folder that sweep() can prove a leftover.
    going() is called before each file is written, and stops the unpacking by raising.
    UploadRefused, with nothing left on disk, if the archive or its manifest is not taken."""
    kind = kind_of(filename)
    found = members(archive, kind, limits)
    manifest = manifest_of(archive, kind, found)
    uploads.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix=UPLOAD_PREFIX, dir=uploads))
    try:
        leftovers.mark_beside(target)
        unpack(archive, kind, found, target, going)
        folder = target / manifest.root
        try:
            from_folder(folder)
        except ConfigError as exc:
            raise UploadRefused(shown_to_author(str(exc), folder)) from None
        return manifest, target, folder
    except BaseException:
        discard(target)
        raise


def kept(unpacked: Path) -> None:
    """An unpacked upload's folder is the store's from now on (its submission is stored): no longer a leftover."""
    leftovers.release_beside(unpacked)


def discard(unpacked: Path) -> None:
    """Remove an unpacked upload's folder that the store does not hold, with its mark."""
    shutil.rmtree(unpacked, ignore_errors=True)
    leftovers.release_beside(unpacked)


def sweep(store: Store, uploads: Path) -> list[str]:
    """Remove what uploads cut off while they were unpacked (a server killed by SIGKILL) left under uploads: the
    folders marked by a process that is gone whose submission the store does not hold. Any other folder is left as
    it is, whatever folder the arena runs in; the names of those removed."""
    if not uploads.is_dir():
        return []
    root = uploads.resolve()
    held = (Path(s.folder).resolve() for s in store.submissions())
    holding = {f.relative_to(root).parts[0] for f in held if f.is_relative_to(root) and f != root}
    removed = []
    for entry in sorted(uploads.iterdir()):
        if not entry.name.startswith(UPLOAD_PREFIX) or entry.is_symlink() or not entry.is_dir():
            continue
        if entry.name in holding:
            kept(entry)  # stored, and then killed before its mark was removed
        elif leftovers.abandoned_beside(entry):
            discard(entry)
            removed.append(entry.name)
    return removed


def _shown(text: str) -> str:
    """Bot-supplied text as a message may quote it: control characters replaced, cut to 80 characters."""
    return "".join(c if c.isprintable() else "?" for c in text[:80])


def _type_name(kind: int) -> str:
    return {stat.S_IFLNK: "symbolic link", stat.S_IFCHR: "device", stat.S_IFBLK: "device",
            stat.S_IFIFO: "pipe", stat.S_IFSOCK: "socket"}.get(kind, "special file")
