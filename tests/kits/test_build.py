"""A submission folder as a bot: resolved wherever a bot is taken, built once, rebuilt on change, build faults."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from arena.bots.submission import STAMP, folder_digest, read_stamp
from arena.kits import Language, Need, install_hint
from tests.helpers import quick_run
from tests.kits.conftest import arena, need

RANDOM_BOT = "python3 -m sample_bots.random_bot"
QUICK = ("--game", "bali-2017", "--players", "2", "--seed", "5")


def build_logs(results: Path) -> list[Path]:
    return sorted(results.glob("matches/*/logs/*-build.log"))


def new_kit(tmp_path: Path, language: Language, name: str = "mybot") -> Path:
    made = arena("new", name, "--lang", language.value, cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    return tmp_path / name


@pytest.mark.slow
def test_a_folder_is_built_before_its_first_game_and_again_only_when_its_files_change(tmp_path: Path) -> None:
    need(Language.PYTHON)
    folder = new_kit(tmp_path, Language.PYTHON)
    first = arena("validate", "mybot", *QUICK, "--games", "2", "--results", "r1", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "PASS: bot mybot " in first.stdout
    logs = build_logs(tmp_path / "r1")
    assert [log.name for log in logs] == ["p0-mybot-build.log"]  # once, not once per game
    assert "$ python3 -m compileall -q ." in logs[0].read_text()
    assert read_stamp(folder) == folder_digest(folder)

    again = arena("validate", "mybot", *QUICK, "--games", "1", "--results", "r2", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert build_logs(tmp_path / "r2") == []  # unchanged: not built again

    source = folder / "bot.py"
    source.write_text(source.read_text() + "# a change\n")
    changed = arena("validate", "mybot", *QUICK, "--games", "1", "--results", "r3", cwd=tmp_path)
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert len(build_logs(tmp_path / "r3")) == 1


# Each kit's syntax error, and what its build says about it.
BROKEN = {
    Language.PYTHON: ("bot.py", "if len(options) == 1:", "if len(options) == 1", "'python3 -m compileall -q .' "
                      "failed with status 1", r"SyntaxError: expected ':'"),
    Language.CPP: ("bot.cpp", "if (count == 1) return 0;", "if (count == 1) return 0 +;", "'make' failed with "
                   "status 2", r"bot\.cpp:\d+:\d+: error: expected primary-expression"),
}


# A compiled kit's failed build takes a compiler's time: the quick run breaks the Python kit, the slow tests all.
@pytest.mark.parametrize("language", quick_run(list(BROKEN), {Language.PYTHON}, lambda lang: lang.value))
def test_a_failed_build_is_a_build_fault_shown_with_the_builds_last_lines(tmp_path: Path,
                                                                         language: Language) -> None:
    need(language)
    name, good, bad, failure, last_line = BROKEN[language]
    folder = new_kit(tmp_path, language)
    source = folder / name
    source.write_text(source.read_text().replace(good, bad))
    run = arena("validate", "mybot", *QUICK, "--games", "2", "--results", "r", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(rf"fault: game 1, at handshake: build: the build step {re.escape(failure)}; its output: "
                     r"\S+p0-mybot-build\.log", run.stdout), run.stdout
    assert re.search(rf"stderr\| .*{last_line}", run.stdout), run.stdout
    assert "FAIL" in run.stdout + run.stderr
    assert len(build_logs(tmp_path / "r")) == 1  # the failure is remembered for the second game, not rebuilt
    assert not (folder / STAMP).exists()


def test_the_digest_leaves_out_build_outputs_and_logs(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_text('name = "x"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {}\n")
    before = folder_digest(tmp_path)
    for output in ("target/release/bot", "node_modules/zeromq/index.js", "build/bot", "bot.log", STAMP,
                   "src/__pycache__/x.pyc"):
        (tmp_path / output).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / output).write_text("output")
    assert folder_digest(tmp_path) == before
    (tmp_path / "src" / "main.rs").write_text("fn main() { }\n")
    edited = folder_digest(tmp_path)
    assert edited != before
    (tmp_path / "src" / "more.rs").write_text("")
    assert folder_digest(tmp_path) != edited


@pytest.mark.slow
def test_match_and_tournament_take_a_submission_folder(tmp_path: Path) -> None:
    need(Language.PYTHON)
    new_kit(tmp_path, Language.PYTHON)
    match = arena("match", "bali-2017", "mybot", RANDOM_BOT, "--games", "1", "--seed", "1", "-q",
                  "--results", "r", cwd=tmp_path)
    assert match.returncode == 0, match.stdout + match.stderr
    assert re.search(r"mybot\s+0\.1\s+python3 bot\.py", match.stdout), match.stdout
    tournament = arena("tournament", "bali-2017", "mybot", RANDOM_BOT, "--seats", "2", "--rounds", "1",
                       "--jobs", "1", "--results", "t", cwd=tmp_path)
    assert tournament.returncode == 0, tournament.stdout + tournament.stderr
    assert "mybot" in tournament.stdout


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bubblewrap: {bwrap_problem()}")
def test_a_tcp_bot_plays_under_bwrap(tmp_path: Path) -> None:
    """Its tcp endpoint is relayed inside its own network namespace (arena/bots/SANDBOX.md, "Bots over tcp")."""
    folder = tmp_path / "tcpbot"
    folder.mkdir()
    (folder / "manifest.toml").write_text(f'name = "tcpbot"\nversion = "1"\n'
                                          f'command = "{sys.executable} -m sample_bots.random_bot"\n'
                                          'transport = "tcp"\n')
    run = arena("validate", "tcpbot", "--game", "bali-2017", "--sandbox", "bwrap", "--results", "r", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS" in run.stdout


@pytest.mark.parametrize("manifest, message", [
    (None, "is a folder without a manifest.toml"),
    ('name = "b"\nversion = "1"\ncommand = "python3 bot.py"\ntransport = "udp"\n', "transport must be one of"),
    ('name = "b"\nversion = "1"\ncommand = "./target/release/bot"\nbuild = "no-such-builder --release"\n',
     "build: bot command no-such-builder --release: 'no-such-builder' is not found on PATH"),
    ('name = "b"\nversion = "1"\ncommand = "./target/release/bot"\n', "'./target/release/bot' does not exist"),
    ('name = "b"\nversion = "1"\ncommand = "./bot.py"\n',
     "'./bot.py' is not executable (run it with its interpreter: python3 ./bot.py)"),
    ('name = "b"\nversion = "1"\ncommand = "python3 bot.py"\nbuild = ""\n', "'build' must be a non-empty string"),
])
def test_a_broken_submission_folder_is_a_usage_error(tmp_path: Path, manifest: str | None, message: str) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    if manifest is not None:
        (folder / "manifest.toml").write_text(manifest)
    run = arena("validate", "b", "--game", "bali-2017", "--results", "r", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("args, message", [
    (["new", "taken", "--lang", "python"], "already exists"),
    (["new", "bad name!", "--lang", "python"], "is not a valid bot name"),
    (["new", "x", "--lang", "cobol"], "'cobol' is not one of"),
    (["new", "x"], "Missing option '--lang'"),
])
def test_arena_new_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "taken").mkdir()
    run = arena(*args, cwd=tmp_path)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


# A kit's build run where its compiler or libraries are missing (its Makefile pointed elsewhere: the build does not
# see the arena's environment).
UNBUILDABLE = {
    Language.CPP: (("CXX ?= g++", "CXX = no-such-cxx"), "no C++ compiler 'no-such-cxx': apt-get install g++ make"),
    Language.JAVA: (("JARS ?= /usr/share/java", "JARS ?= /nonexistent"), "missing jars; install them with: "
                    "apt-get install libjeromq-java libmsgpack-java"),
}


@pytest.mark.parametrize("language", list(UNBUILDABLE), ids=[lang.value for lang in UNBUILDABLE])
def test_a_kit_that_cannot_be_built_says_what_to_install(tmp_path: Path, language: Language) -> None:
    need(language)
    folder = new_kit(tmp_path, language)
    (old, new), message = UNBUILDABLE[language]
    makefile = folder / "Makefile"
    makefile.write_text(makefile.read_text().replace(old, new))
    run = arena("validate", "mybot", *QUICK, "--games", "1", "--results", "r", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "fault: game 1, at handshake: build: the build step 'make' failed" in run.stdout
    assert f"stderr| {message}" in run.stdout, run.stdout


def test_a_missing_build_program_is_named_with_its_package(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "manifest.toml").write_text('name = "b"\nversion = "1"\ncommand = "./target/release/bot"\n'
                                          'build = "cargo build --release --offline"\n')
    run = arena("validate", "b", "--game", "bali-2017", "--results", "r", cwd=tmp_path, env={"PATH": "/nowhere"})
    assert run.returncode == 2, run.stdout + run.stderr
    assert "'cargo' is not found on PATH (Debian/Ubuntu: apt-get install cargo)" in run.stderr


def test_missing_needs_are_told_as_one_install_line() -> None:
    needs = [Need(program="no-such-compiler", install="g++"), Need(path="/nonexistent/zmq.hpp", install="cppzmq-dev"),
             Need(module="no_such_module", install="pyzmq"), Need(program="sh", install="dash")]
    lacking = [need for need in needs if not need.met()]
    assert [n.install for n in lacking] == ["g++", "cppzmq-dev", "pyzmq"]
    assert install_hint(lacking) == "apt-get install g++ cppzmq-dev and python3 -m pip install pyzmq"
