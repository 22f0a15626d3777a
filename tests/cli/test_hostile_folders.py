"""Hostile submission folders, entered as a stranger would enter them, through `arena tournament` at every sandbox
level (the arena's own checks, the same at each): each is refused with a one-line reason, and the store, the rivals'
folders and the host are byte-for-byte as they were."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots import folders
from arena.cli import main
from tests.helpers import PATIENCE, arena, processes_in, sandbox_levels, wait_until

RANDOM = [sys.executable, "-m", "sample_bots.random_bot"]


def submission(folder: Path, name: str, build: list[str] | None = None, manifest: bool = True) -> Path:
    """A submission folder of a random bot with a manifest (and a build step, if given)."""
    folder.mkdir(parents=True)
    if manifest:
        text = f"name = {name!r}\nversion = '1'\ncommand = {json.dumps(RANDOM)}\n"
        (folder / "manifest.toml").write_text(text + (f"build = {json.dumps(build)}\n" if build else ""))
    return folder


def snapshot(*roots: Path) -> dict[str, tuple[int, bytes]]:
    """Every entry under roots, links not followed: its mode and its bytes (a link's target)."""
    found: dict[str, tuple[int, bytes]] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder) / name
                info = path.lstat()
                data = os.readlink(path).encode() if path.is_symlink() else \
                    path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
                found[str(path)] = (info.st_mode, data)
    return found


def deep(folder: Path, levels: int) -> None:
    """levels nested folders under folder, made one at a time (their path is longer than the system allows)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def undeep(folder: Path) -> None:
    """Remove the nested folders deep() made, from the bottom up (no recursion)."""
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY)]
    while os.path.isdir(f"/proc/self/fd/{fds[-1]}/d"):
        fds.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    for parent in reversed(fds[:-1]):
        os.rmdir("d", dir_fd=parent)
    for fd in fds:
        os.close(fd)


def refusals(stderr: str) -> dict[str, str]:
    """The one-line reasons the tournament printed, by folder name."""
    lines = [line.split("not admitted: ", 1)[1] for line in stderr.splitlines() if "not admitted: " in line]
    return {line.split("subs/", 1)[1].split("/", 1)[0].split(":", 1)[0]: line for line in lines}


@pytest.mark.slow
@pytest.mark.parametrize("level", sandbox_levels())
def test_hostile_folders_are_refused_and_touch_nothing(level: str, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for name in ("victim1", "victim2", "victim3"):
        submission(subs / name, name)
    (subs / "victim1" / "bot.py").write_text("print('the rival bot')\n")
    first = arena("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--name", "cup",
                  "--init-timeout", "20", "--sandbox", level, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (tmp_path / "outside.toml").write_text(f"name = 'leaked'\nversion = '1'\ncommand = {json.dumps(RANDOM)}\n")
    true = ["true"]
    (submission(subs / "h_stamp_store", "h1", true) / ".arena-build").symlink_to("../../results/arena.sqlite")
    (submission(subs / "h_stamp_rival", "h2", true) / ".arena-build").symlink_to("../victim1/bot.py")
    (submission(subs / "h_stamp_new", "h3", true) / ".arena-build").symlink_to("../../planted")
    (submission(subs / "h_stamp_inside", "h4", true) / ".arena-build").symlink_to("manifest.toml")
    (submission(subs / "h_lock_new", "h5", true) / ".arena-build.lock").symlink_to("../../planted-lock")
    os.mkfifo(submission(subs / "h_fifo_stamp", "h6", true) / ".arena-build")
    (submission(subs / "h_manifest_link", "h7", manifest=False) / "manifest.toml").symlink_to("../../outside.toml")
    submission(subs / "h_setuid", "h8", ["sh", "-c", "cp /bin/true suid && chmod 4755 suid"])
    submission(subs / "h_fifo_build", "h9", ["sh", "-c", "mkfifo .arena-build"])
    link_build = submission(subs / "h_link_build", "h10", ["sh", "link.sh"])
    (link_build / "link.sh").write_text("ln -s ../../results/arena.sqlite .arena-build\n")
    deep(submission(subs / "h_deep", "h11", true), 1500)
    try:
        _attack(tmp_path, subs, level)
    finally:
        undeep(subs / "h_deep")


def _attack(tmp_path: Path, subs: Path, level: str) -> None:
    submission(subs / "h_sparse", "h12", ["truncate", "-s", "700M", "a", "b"])
    submission(subs / "aaa", "victim2")  # squats a rival's name, and comes first in name order
    (tmp_path / "precious.txt").write_text("the organiser's own file\n")
    os.link(tmp_path / "precious.txt", submission(subs / "h_stamp_hardlink", "h16", ["true"]) / ".arena-build")
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(submission(subs / "h_socket", "h14") / "s"))
    listening.close()
    named = submission(subs / "h_long_name", "h15", ["true"])
    os.mkfifo(named / ("x\n" * 100))  # a name of 200 characters, newlines included, quoted short on one line
    if level != "none":  # a build's folder is watched while it runs wherever builds are limited
        submission(subs / "h_setuid_running", "h13", ["sh", "-c", "cp /bin/true suid && chmod 4755 suid && sleep 600"])
    before = snapshot(tmp_path / "results", *(subs / f"victim{i}" for i in (1, 2, 3)))
    outside = sorted(p.name for p in tmp_path.iterdir())

    r = arena("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--name", "cup2",
              "--init-timeout", "20", "--sandbox", level, "--results", "results2", cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    refused = refusals(r.stderr)
    expected = {
        "h_stamp_store": "symbolic link that leaves the folder", "h_stamp_rival": "symbolic link that leaves",
        "h_stamp_new": "symbolic link that leaves", "h_stamp_inside": "'.arena-build' is no regular file",
        "h_lock_new": "symbolic link that leaves", "h_fifo_stamp": "'.arena-build' is a FIFO",
        "h_manifest_link": "'manifest.toml' is no regular file", "h_setuid": "setuid or setgid program",
        "h_fifo_build": "'.arena-build' is a FIFO", "h_link_build": "symbolic link that leaves",
        "h_deep": "more than 64 deep (the limit)", "h_sparse": "more than 1024 MiB (the limit)",
        "aaa": "the name 'victim2' belongs to",
        "h_socket": "'s' is a socket", "h_stamp_hardlink": "'.arena-build' is no regular file of its own",
        "h_long_name": "\\nx\\nx...' is a FIFO",
        **({} if level == "none" else {"h_setuid_running": "setuid or setgid program) and was stopped"}),
    }
    for folder, reason in expected.items():
        assert reason in refused.get(folder, ""), (folder, r.stderr)
    assert snapshot(tmp_path / "results", *(subs / f"victim{i}" for i in (1, 2, 3))) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*outside, "results2"])  # nothing planted
    assert not any(info[0] & (stat.S_ISUID | stat.S_ISGID) and stat.S_ISREG(info[0])
                   for info in snapshot(*(f for f in subs.iterdir() if f.name != "h_deep")).values())
    assert "leaked" not in r.stdout + r.stderr
    assert (tmp_path / "precious.txt").read_text() == "the organiser's own file\n"
    board = json.loads(arena("leaderboard", "--format", "json", "--results", "results2", cwd=tmp_path).stdout)
    assert sorted(row["bot"] for row in board["ranking"]) == ["victim1", "victim2", "victim3"]
    assert "leaked" not in json.dumps(board)


@pytest.mark.parametrize("limit, value, message", [
    ("FILE_LIMIT", 10, "holds more than 10 files and folders (the limit)"),
    ("TIME_LIMIT", 0.0, "took more than 0 s to read (the limit)"),
    ("DEPTH_LIMIT", 3, "has folders more than 3 deep (the limit)"),
])
def test_a_folder_over_a_limit_is_a_usage_error_naming_it(limit: str, value: float, message: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    folder = submission(tmp_path / "big", "big")
    for i in range(20):
        (folder / f"f{i}.txt").write_text("x")
    deep(folder, 5)
    monkeypatch.setattr(folders, limit, value)
    r = CliRunner().invoke(main, ["match", "bali-2017", str(folder), str(folder), "--results", str(tmp_path / "r")])
    assert r.exit_code == 2, r.output
    assert f"{folder}: {message}; the submission is refused" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_ctrl_c_stops_a_tournament_while_a_build_runs(tmp_path: Path) -> None:
    submission(tmp_path / "subs" / "slow", "slow", ["sleep", "600"])
    with (tmp_path / "err.txt").open("w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "bali-2017", "--submissions", "subs",
                                    "--jobs", "1"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err,
                                   start_new_session=True)
        try:
            assert wait_until(lambda: "building subs/slow" in (tmp_path / "err.txt").read_text())
            process.send_signal(signal.SIGINT)
            assert process.wait(PATIENCE) == 130
        finally:
            process.kill()
    text = (tmp_path / "err.txt").read_text()
    assert "interrupted" in text and "Traceback" not in text
    assert wait_until(lambda: not processes_in((tmp_path / "subs" / "slow").resolve()), 5.0)


@pytest.mark.slow
def test_a_name_belongs_to_the_folder_first_admitted_under_it(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    for folder, name in (("zzz", "alice"), ("b", "bob"), ("c", "carol")):
        submission(subs / folder, name)
    args = ("tournament", "bali-2017", "--submissions", "subs", "--jobs", "1", "--init-timeout", "20")
    assert arena(*args, "--name", "cup", cwd=tmp_path).returncode == 0
    submission(subs / "aaa", "alice")  # first in name order, and its folder is not named after the name either
    r = arena(*args, "--name", "cup2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "subs/aaa/manifest.toml: the name 'alice' belongs to subs/zzz (admitted under it first)" in r.stderr
    assert "not admitted: subs/zzz" not in r.stderr and r.stderr.count("not admitted: ") == 1


RACE = ("import os, shutil, time\n"
        "for i in range(12):\n"
        "    shutil.copy('/usr/bin/id', f's{i}')\n"
        "    os.chmod(f's{i}', 0o4755)\n"
        "    time.sleep(0.25)\n")
POLLER = ("import os, subprocess, sys, time\n"
          "folder, until = sys.argv[1], time.time() + float(sys.argv[2])\n"
          "while time.time() < until:\n"
          "    try:\n"
          "        names = os.listdir(folder)\n"
          "    except OSError:\n"
          "        names = []\n"
          "    for name in names:\n"
          "        try:\n"
          "            out = subprocess.run([os.path.join(folder, name), '-u'], capture_output=True, text=True)\n"
          "            print(out.stdout.strip(), flush=True)\n"
          "        except OSError:\n"
          "            pass\n"
          "    time.sleep(0.01)\n")


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the race is against a setuid-root program: needs the arena as root")
def test_a_build_racing_setuid_copies_gives_no_local_user_root(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # the organiser's folders, readable by the machine's other users as a home often is
    subs = tmp_path / "subs"
    for i in (1, 2):
        submission(subs / f"victim{i}", f"victim{i}")
    racer = submission(subs / "racer", "racer", [sys.executable, "race.py"])
    (racer / "race.py").write_text(RACE)
    for path in (subs, *subs.iterdir()):
        path.chmod(0o755)
    (tmp_path / "poller.py").write_text(POLLER)
    (tmp_path / "poller.py").chmod(0o644)
    poller = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                               str(tmp_path / "poller.py"), str(racer), "60"], stdout=subprocess.PIPE, text=True)
    try:
        r = arena("tournament", "bali-2017", "--submissions", "subs", "--seats", "2", "--rounds", "1", "--jobs", "1",
                  cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr
    finally:
        poller.kill()
        seen = poller.communicate()[0].split()
    assert "0" not in seen, "a local user ran a program the build made as root"
    assert not any(p.stat().st_mode & (stat.S_ISUID | stat.S_ISGID) for p in racer.iterdir() if p.is_file())
    assert stat.S_IMODE(racer.stat().st_mode) == 0o755  # the folder's own mode, given back after the build


@pytest.mark.slow
def test_a_build_that_leaves_too_many_files_is_refused(tmp_path: Path) -> None:
    # Every start of a bot reads its whole folder: a build of 190,000 empty files made each start take seconds.
    from arena.bots.submission import BUILD_ENTRIES

    many = f"import pathlib; [pathlib.Path(f'f{{i}}').touch() for i in range({BUILD_ENTRIES + 1})]"
    submission(tmp_path / "subs" / "many", "many", [sys.executable, "-c", many])
    for i in (1, 2):
        submission(tmp_path / "subs" / f"victim{i}", f"victim{i}")
    r = arena("tournament", "bali-2017", "--submissions", "subs", "--seats", "2", "--rounds", "1", "--jobs", "1",
              cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"its limit of {BUILD_ENTRIES} new files and folders in its folder" in refusals(r.stderr)["many"]
