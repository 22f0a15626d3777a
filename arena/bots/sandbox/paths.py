"""What a confined bot is shown of the machine, whatever sandbox shows it: the runtime (read-only), the arena's
packages a bot may import, the folders a command line's bot lives in, and what it is not shown (secrets of /etc,
other bots' scripts); and what to tell its author when it dies of a missing file."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

# The runtime's top-level directories; where one is a symbolic link (a merged /usr), the sandbox has the same link.
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Files and folders of /etc that hold secrets: out of sight in every sandbox.
HIDDEN_SYSTEM = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
                 "/etc/ssh")
OWNER_ONLY_SCAN = 20_000  # entries of /etc looked at for files only their owner may read
# What a bot given as a command line may import from the arena: the SDK, the sample bots, and the rules engines
# (pure code, no seed and no state in them) that the search bot simulates with.
ARENA_PACKAGES = ("protocol", "sample_bots", "arena.games")
# What marks the root of a script's project where its runtime looks for packages in the folders above the
# script's own (Node.js: node_modules): a command line's bot is shown that folder.
PROJECT_MARKERS = ("package.json", "node_modules")
# What runtimes print when a file or module they look for is not there.
_MISSING_SIGNS = ("ModuleNotFoundError", "No module named", "Cannot find module", "can't open file",
                  "No such file or directory", "ClassNotFoundException", "cannot open shared object file",
                  "cannot load such file", "ERR_MODULE_NOT_FOUND")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".php", ".jl", ".lua", ".sh", ".jar")


@functools.cache
def owner_only() -> tuple[str, ...]:
    """The files and folders under /etc that not everyone may read on the host (beside HIDDEN_SYSTEM): hidden in
    every sandbox, since root's files are the bot's own inside its user namespace. At most OWNER_ONLY_SCAN entries
    are looked at."""
    found: list[str] = []
    looked = 0
    for root, dirs, files in os.walk("/etc"):
        for name in [*dirs, *files]:
            looked += 1
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISLNK(info.st_mode) and not info.st_mode & stat.S_IROTH and path not in HIDDEN_SYSTEM:
                found.append(path)
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in found]
        if looked > OWNER_ONLY_SCAN:
            break
    return tuple(found)


def within(path: Path, folder: Path) -> bool:
    """True if path is folder or lies inside it (path.is_relative_to(folder), both absolute or both relative),
    by their parts: pathlib's own builds a path and catches an exception at every call, and a bot's start asks
    this thousands of times."""
    parts = folder.parts
    return path.parts[:len(parts)] == parts


def outermost(paths: list[Path]) -> list[Path]:
    """The paths that lie inside no other one of them: a path inside one already bound needs no binding of its
    own."""
    return [p for p in paths if not any(p != q and within(p, q) for q in paths)]


@functools.cache
def system_links() -> tuple[tuple[str, str], ...]:
    """(link, target) for each top-level directory of the runtime that is a symbolic link (/bin -> usr/bin on a
    merged /usr)."""
    return tuple((d, os.readlink(d)) for d in SYSTEM_DIRS if os.path.islink(d))


@functools.cache
def runtime_roots() -> tuple[Path, ...]:
    """What interpreters and compilers need, shown read-only to every bot and build: /usr and /etc (and /bin,
    /lib... where they are directories), this Python (its prefix and base prefix: a virtual environment, pyenv's
    installation), each directory on PATH outside them (with its parent for a version manager's `shims`), and
    rustup's toolchains where rustup is on PATH."""
    roots = [Path(d) for d in SYSTEM_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    roots += [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    for entry in tool_path().split(os.pathsep):
        where = Path(entry)
        if where.is_absolute() and where.is_dir() and where.resolve() != Path("/"):
            where = where.resolve()
            roots.append(where.parent if where.name == "shims" and where.parent not in _homes() else where)
    rustup = rustup_home()
    roots += [rustup] if rustup is not None else []
    return tuple(outermost(sorted(set(roots))))


def tool_path(path: str | None = None) -> str:
    """The PATH bots and builds are given (path, default the arena's own): the folder of the arena's interpreter
    first, so that a bot's `python3` is the one with the arena's packages (pyzmq, msgpack) whatever PATH the arena
    was started with (a service manager's holds only the system's folders, whose Python has neither)."""
    given = os.environ.get("PATH", os.defpath) if path is None else path
    own = os.path.dirname(sys.executable)  # not resolved: a virtual environment's bin/, not the system Python's
    return os.pathsep.join([own, *(entry for entry in given.split(os.pathsep) if entry and entry != own)])


def which(program: str) -> str | None:
    """Where program is found on the PATH bots and builds are given (tool_path)."""
    return shutil.which(program, path=tool_path())


def rustup_home() -> Path | None:
    """Where rustup keeps its toolchains, if rustup is on PATH (its cargo and rustc need them)."""
    if which("rustup") is None:
        return None
    home = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")
    return home.resolve() if home.is_dir() else None


def _homes() -> set[Path]:
    """Where the users' home directories are: never shown whole."""
    homes = {Path("/"), Path("/root"), Path("/home"), Path.home().resolve()}
    return homes | (set(Path("/home").iterdir()) if Path("/home").is_dir() else set())


def in_runtime(path: Path) -> bool:
    """True if path (resolved) lies in what every sandbox shows read-only: the system and its toolchains."""
    resolved = path.resolve()
    return any(within(resolved, root) for root in runtime_roots()) or any(
        within(resolved, Path(link).resolve()) for link, _ in system_links())


@functools.cache
def arena_packages() -> tuple[Path, ...]:
    """The folders of the packages every bot may import from the arena's installation: the protocol SDK, the
    sample bots and the rules engines (never the rest of the checkout)."""
    found = []
    for name in ARENA_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append(Path(next(iter(spec.submodule_search_locations))).resolve())
        # A subpackage imports through its parents: `arena/__init__.py` is shown too (alone, not the rest of the
        # arena), wherever the installation is (an editable one finds a package by its __init__.py).
        parent = importlib.util.find_spec(name.rpartition(".")[0]) if "." in name else None
        if parent is not None and parent.origin and parent.origin.endswith("__init__.py"):
            found.append(Path(parent.origin).resolve())
    return tuple(found)


def named_paths(cwd: Path, argv: tuple[str, ...]) -> list[Path]:
    """The files and folders in cwd that a command line names: its scripts and paths, and the package of a
    `-m PACKAGE.MODULE`."""
    found = []
    for before, word in zip(("", *argv), argv):
        if before == "-m":
            top = word.split(".")[0]
            found += [cwd / top, cwd / f"{top}.py"]
        elif not word.startswith("-") and ("/" in word or word.endswith(SCRIPT_SUFFIXES)):
            found.append(cwd / word)
    return [p for p in found if p.exists()]


def own_folders(cwd: Path, argv: tuple[str, ...]) -> list[Path]:
    """What a bot given as a command line is shown besides the runtime: the folder each script or package its
    command names lives in (its project's root where a marker file says so: a node_modules beside package.json),
    and the virtual environment its interpreter belongs to. A folder too broad to show (the root, a top-level
    folder, a home directory, the temporary directory) is replaced by the named files alone."""
    named = [p.resolve() for p in named_paths(cwd, argv)]
    named += [p.resolve() for p in (Path(a) for a in argv if a.startswith("/")) if p.exists()]
    # The arena's own files (its packages, the relay it runs a bot over tcp with) are shown alone.
    shipped = (*arena_packages(), Path(__file__).resolve().parents[2])
    homes = _homes()
    found = [p if any(within(p, a) for a in shipped) else _project(p, homes) for p in named]
    environment = _interpreter_environment(cwd, argv[0], homes) if argv else None
    return found + ([environment] if environment is not None else [])


def _project(path: Path, homes: set[Path]) -> Path:
    """The folder a named script or package lives in: the nearest enclosing folder with a project marker, else
    its own; path itself where that folder is too broad to show."""
    resolved = path.resolve()
    start = resolved.parent
    for folder in (start, *start.parents):
        if _too_broad(folder, homes):
            break
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return resolved if _too_broad(start, homes) else start


def _too_broad(folder: Path, homes: set[Path]) -> bool:
    return folder == Path("/") or folder.parent == Path("/") or folder in homes or \
        folder == Path(tempfile.gettempdir()).resolve() or in_runtime(folder)


def _interpreter_environment(cwd: Path, program: str, homes: set[Path]) -> Path | None:
    """The virtual environment (a folder with pyvenv.cfg) whose bin/ holds the program, if any and not broad."""
    where = cwd / program if os.sep in program else which(program)
    if where is None:
        return None
    home = Path(os.path.abspath(where)).parent.parent
    if not (home / "pyvenv.cfg").is_file() or _too_broad(home.resolve(), homes):
        return None
    return home.resolve()


def other_scripts(mine: tuple[str, ...], others: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The scripts other command-line bots name (their argv `others`) that this one's argv does not: covered, so
    that two bots whose scripts share a folder do not read each other's code."""
    cwd = Path.cwd()
    own = {p.resolve() for p in named_paths(cwd, mine)}
    shipped = arena_packages()
    # The program (an interpreter, its path in a virtual environment) is no script; nor is the runtime.
    return tuple(str(p.resolve()) for argv in others for p in named_paths(cwd, argv[1:]) if p.is_file()
                 and p.resolve() not in own and not in_runtime(p)
                 and not any(within(p.resolve(), a) for a in shipped))


def hidden_script(cwd: Path, argv: tuple[str, ...], covered: tuple[Path, ...]) -> Path | None:
    """A script or package a command line names that lies in one of the covered folders (the results, another
    entrant's folder), where the sandbox cannot show it; None if there is none."""
    places = [c.resolve() for c in covered if c.exists()]
    shipped = arena_packages()  # shown wherever they are: the sample bots run from the checkout, say
    for path in named_paths(cwd, argv):
        if any(within(path.resolve(), c) for c in places) and \
                not any(within(path.resolve(), a) for a in shipped):
            return path
    return None


def missing_hint(stderr: str, command_line: bool) -> str | None:
    """What to tell the author of a bot that died under bubblewrap of a missing file or module, or of one it may not
    read, or None."""
    if "Permission denied" in stderr and os.geteuid() == 0:
        return ("run by root, the arena runs each bot as a host user of its own (a uid of --bot-uids' range), "
                "never as root: a bot given as a command line needs its folder and files readable by other users "
                "(chmod -R o+rX FOLDER), or run the arena as an unprivileged user")
    if not any(sign in stderr for sign in _MISSING_SIGNS):
        return None
    if command_line:
        return ("the sandbox shows a bot given as a command line only the folder its script lives in, the "
                "runtime and the arena's SDK: keep what it needs in that folder (or the virtual environment it "
                "runs from), or make it a submission folder with a manifest")
    return ("the sandbox shows a submission only its own folder, the runtime and the arena's SDK: put what it "
            "needs in the folder, or install it there in its build")
