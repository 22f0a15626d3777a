"""The seccomp filter of every sandboxed bot and build, compiled by libseccomp (pyseccomp) once per arena process.

The sandbox's namespaces keep a bot's processes, files, network and System V / POSIX IPC apart, but some of the
kernel's state is shared across every namespace. The filter denies, with EPERM, the system calls that reach such
state and that no bot or build has a use for, as Docker's default profile does. Each is named with the reason:
the other system calls Docker's profile denies either need a capability a bot never has (mount, reboot, kexec,
modules, clocks, swap, quotas, accounting, the kernel log under dmesg_restrict, bpf under its sysctl) or act only
inside the bot's own namespaces. The join of a session keyring of its own comes first (it is itself a keyctl call,
which the filter then denies). Under bubblewrap a bot's keyring is joined by the arena's thread that starts it, and
bubblewrap loads the filter (--seccomp) from a pipe: no process more. Elsewhere, and for builds, enter.py does both.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import tempfile
from pathlib import Path
from typing import Any

from arena.errors import ConfigError

ENTER = Path(__file__).resolve().with_name("enter.py")  # what loads the filter; shown to every sandbox

# The system calls denied, each with what shared state it would reach.
DENIED = {
    # The kernel's keyrings belong to no namespace: a uid's user and persistent keyrings are shared by every process
    # of that uid, on the host and in every sandbox, and outlive them; a session keyring is inherited from the
    # arena. A bot could read keys left by others, or leave keys for the next holder of its uid.
    "add_key": "keyrings",
    "keyctl": "keyrings",
    "request_key": "keyrings",
    # The CPU's performance counters, shared by every process on a core: a side channel onto other bots' (and the
    # arena's) execution wherever perf_event_paranoid lets an unprivileged user open them.
    "perf_event_open": "performance counters",
}


@functools.cache
def compiled() -> bytes:
    """The filter as BPF, for this machine's architecture (and, on x86-64, for 32-bit x86 and x32 programs,
    which enter the kernel by other numbers); ConfigError where libseccomp cannot be loaded."""
    try:
        import pyseccomp  # loads libseccomp.so.2 with ctypes, which may be missing
    except (ImportError, OSError) as exc:
        raise ConfigError(f"the sandbox's seccomp filter needs libseccomp (Debian package libseccomp2): {exc}") \
            from None
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    if pyseccomp.system_arch() == pyseccomp.Arch.X86_64:
        for arch in (pyseccomp.Arch.X86, pyseccomp.Arch.X32):
            rules.add_arch(arch)
    for name in DENIED:
        rules.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


@functools.cache
def keyctl_number() -> int:
    """keyctl's system call number on this machine, for enter.py (which imports only the standard library)."""
    import pyseccomp

    return int(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "keyctl"))


def sealing_arguments() -> tuple[str, str]:
    """What enter.py is given: keyctl's number and the filter in hexadecimal (a few hundred bytes)."""
    return str(keyctl_number()), compiled().hex()


KEYCTL_JOIN_SESSION_KEYRING = 1


@functools.cache
def _syscall() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall


def join_session_keyring() -> None:
    """Give the calling thread, and every process it starts from now on, a new, empty session keyring (as enter.py
    gives itself): the kernel keeps a thread's keyrings with its own credentials, so the arena's other threads keep
    theirs. A kernel without keyrings (ENOSYS), or an arena kept from them (EPERM), leaves nothing to share;
    OSError for any other failure."""
    if _syscall()(ctypes.c_long(keyctl_number()), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None) < 0:
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EPERM):
            raise OSError(code, f"cannot join a session keyring of its own: {os.strerror(code)}")


def filter_pipe() -> int:
    """The read end of a pipe that holds the compiled filter and then ends, for bubblewrap's --seccomp (which reads
    it to the end); the caller closes it once the process that reads it has started."""
    program = compiled()
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: well within a pipe's buffer
    except OSError:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read
