"""bubblewrap, the sandbox of the bwrap level: its command line (a filesystem of the runtime, the bot's own folder,
a private home and /tmp within a quota, its own user, PID, IPC, UTS and network namespaces), and whether bubblewrap
works here. What the sandbox shows a bot is paths.py's."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from arena.bots.sandbox.hostuser import DROPPING_CAPS, setpriv
from arena.bots.sandbox.limits import MIB, Limits
from arena.bots.sandbox.paths import (
    HIDDEN_SYSTEM,
    arena_packages,
    outermost,
    own_folders,
    owner_only,
    runtime_roots,
    system_links,
    within,
)
from arena.bots.sandbox.proctree import working_prefix
from arena.bots.sandbox.syscalls import ENTER

SHM_SIZE = 8 * MIB  # the part of that quota that is /dev/shm (POSIX shared memory, semaphores)
HOME_IN_SANDBOX = "/tmp/home"  # a bot's HOME inside bubblewrap, on its private /tmp
NOBODY = 65534  # the user and group a bot and a build are inside bubblewrap run unprivileged
SEARCHABLE = "0755"  # directories bubblewrap makes on the way to a bind: the dropped user must pass them


@functools.cache
def outer_namespace() -> tuple[str, ...]:
    """As root: `unshare --pid --fork --kill-child`, a PID namespace around bubblewrap whose init dies with the
    arena, so that a bubblewrap killed while it sets its sandbox up (before its own die-with-parent holds) takes the
    sandbox with it. Elsewhere nothing (bubblewrap then runs unprivileged, in a user namespace of its own)."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return ()
    prefix = (unshare, "--pid", "--fork", "--kill-child", "--")
    return working_prefix(prefix)


def bwrap_options(cwd: str | None, private: Path, hidden: tuple[str, ...], argv: tuple[str, ...],
                  masked: tuple[Path, ...], limits: Limits, uid: int | None = None,
                  seccomp_fd: int | None = None) -> list[str]:
    """bubblewrap's part of a bot's command line: a filesystem of the runtime, the bot's own folder (or the
    folders of what its command line names, own_folders), its socket and a private home and /tmp of its own,
    within its disk limit; and where seccomp_fd is given, the filter bubblewrap loads from it last before the
    command."""
    folder = Path(cwd or os.getcwd()).resolve()
    covered = tuple(p.resolve() for p in (*masked, *map(Path, hidden)) if p.exists())
    named = own_folders(folder, argv) if cwd is None else \
        [p.resolve() for p in (Path(a) for a in argv if a.startswith("/")) if p.exists()]
    # The folders of what a command line names are shown (the results and other entrants' folders in them
    # covered), unless they lie in the arena's results or another entrant's folder. The
    # temporary directory is covered only where a shown path holds it: the arena's sockets there are in
    # directories of their own, which no command names.
    temporary = Path(tempfile.gettempdir()).resolve()
    named = [p for p in named if not any(within(p, c) for c in covered if c != temporary)]
    shown = [*arena_packages(), ENTER, *([folder] if cwd is not None else []), *named]
    args = [*filesystem(limits.disk, shown, covered, folder, reached=(private,))]
    if cwd is None:
        args += ["--perms", SEARCHABLE, "--dir", str(folder)]  # a command line's bot runs where the arena runs,
        # which it cannot see
    return [*args, "--ro-bind", str(private), str(private), "--chdir", str(folder),
            *isolation(uid=uid), *([] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]), *entry(uid)]


def isolation(network: bool = False, uid: int | None = None) -> list[str]:
    """bubblewrap's options that keep a sandbox apart: a read-only root, its own PID, IPC, UTS (and, unless network,
    network) namespaces, no capabilities, a session of its own, dying with its parent; and either nobody in a user
    namespace of its own (uid None: bubblewrap runs unprivileged) or, as root, no user namespace and only the
    capabilities setpriv needs to become uid (entry), which it drops."""
    # The in-memory root and /dev go read-only once every mount is made: only the sized /tmp (and /dev/shm) and
    # what is bound writable can be written, not the directories bubblewrap made on the root for the binds.
    user = ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"] if uid is None else \
        ["--cap-drop", "ALL", *(option for cap in DROPPING_CAPS for option in ("--cap-add", cap))]
    return ["--remount-ro", "/dev", "--remount-ro", "/", *user, "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", *([] if network else ["--unshare-net"]), "--unshare-cgroup-try",
            "--new-session", "--die-with-parent"]


def entry(uid: int | None) -> list[str]:
    """The end of bubblewrap's options, and where the arena is root the drop to the host uid of the process."""
    return ["--"] if uid is None else ["--", *setpriv(uid)]


def ancestors(paths: list[Path], bound: list[Path]) -> list[str]:
    """bubblewrap's options that make the directories on the way to paths searchable (the arena's umask would
    make them its user's alone), where no mount of the sandbox's own (nor one of the paths bound) already is."""
    made = {Path("/"), Path("/tmp"), Path("/dev"), Path("/proc"), Path(HOME_IN_SANDBOX)}
    args: list[str] = []
    for path in paths:
        for parent in reversed(path.parents):
            if parent not in made and not any(within(parent, b) for b in bound):
                made.add(parent)
                args += ["--perms", SEARCHABLE, "--dir", str(parent)]
    return args


def filesystem(disk: int, shown: list[Path], covered: tuple[Path, ...], own: Path | None = None,
               reached: tuple[Path, ...] = ()) -> list[str]:
    """bubblewrap's options for a filesystem of the runtime (read-only), a private /tmp of `disk` bytes (with the
    home, HOME_IN_SANDBOX, and a small /dev/shm inside that quota), and the paths `shown`, read-only; the paths
    `covered` (other entrants' folders, the arena's files) stay out of sight even below a shown path, unless they
    hold `own`; the way to the paths `reached` (which the caller binds) is made too."""
    shm = min(SHM_SIZE, disk // 8)
    args = ["bwrap", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size", str(disk - shm), "--tmpfs",
            "/tmp", "--perms", "1777", "--dir", HOME_IN_SANDBOX, "--perms", "1777", "--size", str(max(shm, 4096)),
            "--tmpfs", "/dev/shm"]
    for link, target in system_links():
        args += ["--symlink", target, link]
    hidden = {c.resolve() for c in covered if c.exists()}
    bound = outermost(sorted({*runtime_roots(), *(p.resolve() for p in shown)}))
    args += ancestors([*bound, *reached], bound)
    for path in bound:
        args += ["--ro-bind", str(path), str(path)]
    for secret in (*HIDDEN_SYSTEM, *owner_only()):
        if Path(secret).is_dir():
            args += ["--tmpfs", secret, "--remount-ro", secret]  # empty, and nothing to write to
        elif Path(secret).exists():
            args += ["--ro-bind", "/dev/null", secret]
    # A directory that holds the bot's own cannot be covered (the bot would lose its own too); one inside a covered
    # one is covered with it (its read-only mount has no room for another).
    kept = [path for path in sorted(hidden) if not (own is not None and within(own, path))
            and any(within(path, b) for b in bound)]
    for path in outermost(kept):
        # Read-only, so that a covered folder is not a writable place outside the bot's disk quota.
        args += ["--tmpfs", str(path), "--remount-ro", str(path)] if path.is_dir() else \
            ["--ro-bind", "/dev/null", str(path)]
    return args


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run a sandbox here, or None if it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    # The options the sandbox needs: a tmpfs of a given size (bubblewrap 0.8 or newer), another user inside.
    probe = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size",
             str(MIB), "--tmpfs", "/tmp", *isolation(uid=NOBODY if os.geteuid() == 0 else None),
             *entry(NOBODY if os.geteuid() == 0 else None), "true"]
    try:
        run = subprocess.run(probe, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not run: {exc}"
    if run.returncode != 0:
        why = run.stderr.decode(errors="replace").strip()[:200] or f"status {run.returncode}"
        return (f"bwrap cannot create a sandbox here ({why}); it needs version 0.8 or newer, and unprivileged user "
                "namespaces or root")
    return None
