"""The last step before a sandboxed bot's or build's own code: a session keyring of its own, then the seccomp filter
(syscalls.py), then exec. `python -I -S enter.py KEYCTL FILTER PROGRAM [ARG...]`, KEYCTL keyctl's system call
number, FILTER the compiled filter in hexadecimal (bytes.fromhex: no module to import, as base64 imports re).

Run by the arena's Python isolated and without site (the standard library only: neither the bot's folder nor its
PYTHON* variables on the path), inside the sandbox as the bot's own user, so that the new session keyring is the
bot's and the arena's session keyring is no longer reachable from it. It is not bubblewrap's `--seccomp`, which
loads the filter before the command it starts: the keyring join, a keyctl call, must come first. A filter once
loaded stays with the process and every child, across exec, and cannot be removed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

USAGE = 125  # the status of a start that could not be sealed (as the launcher's own failures)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
KEYCTL_JOIN_SESSION_KEYRING = 1
BPF_INSTRUCTION = 8  # bytes of one struct sock_filter


class _Program(ctypes.Structure):
    """struct sock_fprog: a BPF program's length in instructions and where it is."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _fail(what: str, code: int) -> None:
    sys.stderr.write(f"arena sandbox: {what}: {os.strerror(code)}\n")
    sys.stderr.flush()
    os._exit(USAGE)


def main(argv: list[str]) -> None:
    """Join a new session keyring, load the filter, and become the program."""
    if len(argv) < 3:
        sys.stderr.write("usage: enter.py KEYCTL FILTER PROGRAM [ARG...]\n")
        os._exit(USAGE)
    keyctl, program, command = int(argv[0]), bytes.fromhex(argv[1]), argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # An anonymous session keyring, this process's alone. A kernel without keyrings (ENOSYS), or an arena already
    # kept from them (EPERM), leaves nothing to share.
    if libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None) < 0 and \
            ctypes.get_errno() not in (errno.ENOSYS, errno.EPERM):
        _fail("cannot join a session keyring of its own", ctypes.get_errno())
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // BPF_INSTRUCTION, ctypes.cast(buffer, ctypes.c_void_p))
    # no_new_privs lets an unprivileged process load a filter, and keeps any setuid program from lifting it.
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("cannot set no_new_privs", ctypes.get_errno())
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        _fail("cannot load the seccomp filter", ctypes.get_errno())
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"arena sandbox: cannot run {command[0]}: {exc.strerror}\n")
        sys.stderr.flush()
        os._exit(127 if exc.errno == errno.ENOENT else 126)


if __name__ == "__main__":
    main(sys.argv[1:])
