"""The command group reports the arena's errors once, for every command: one line, exit 2 for settings the user
can fix, exit 1 for anything else the arena names, never a traceback."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import ArenaGroup
from arena.errors import ArenaError, ConfigError, ReplayError
from arena.storage import StoreError
from tests.cli.conftest import RANDOM_BOT, run


@pytest.mark.parametrize("error, code", [(ConfigError, 2), (StoreError, 1), (ReplayError, 1), (ArenaError, 1)])
def test_every_arena_error_is_one_line_with_its_exit_code(error: type[ArenaError], code: int) -> None:
    group = ArenaGroup()

    @group.command()
    def fails() -> None:
        raise error("the problem, named")

    r = CliRunner().invoke(group, ["fails"])
    assert r.exit_code == code and isinstance(r.exception, SystemExit)
    assert r.output == "Error: the problem, named\n"


def test_other_exceptions_are_not_hidden() -> None:
    group = ArenaGroup()

    @group.command()
    def breaks() -> None:
        raise RuntimeError("a bug")

    r = CliRunner().invoke(group, ["breaks"])
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError)


def test_a_setting_the_library_refuses_is_a_one_line_usage_error(tmp_path: Path) -> None:
    r = run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, "--seed", "1", "--results", str(tmp_path))
    assert r.exit_code == 2
    assert r.output == "Error: bali-2001 takes 3 to 4 bots, got 2\n"


def test_a_store_error_is_one_line_and_exits_1(tmp_path: Path) -> None:
    r = run("leaderboard", "--db", str(tmp_path / "nowhere.sqlite"))
    assert r.exit_code == 1 and r.output.count("\n") == 1
    assert "no results store at" in r.output and "Traceback" not in r.output


def test_click_usage_errors_still_show_the_usage() -> None:
    r = run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--games", "0")
    assert r.exit_code == 2 and "match [OPTIONS] GAME BOTS" in r.output and "--games" in r.output


def test_every_option_of_every_command_has_help() -> None:
    from arena.cli import main
    ctx = click.Context(main)
    commands = {name: main.get_command(ctx, name) for name in main.list_commands(ctx)}
    assert len(commands) == 20 and all(commands.values())
    for name, group in list(commands.items()):  # and the subcommands of a group (arena authors add)
        if isinstance(group, click.Group):
            commands.update({f"{name} {sub}": group.get_command(ctx, sub) for sub in group.list_commands(ctx)})
    missing = [f"{name} {p.name}" for name, command in commands.items() for p in command.params
               if isinstance(p, click.Option) and not p.help]
    assert missing == []


def test_a_command_imports_only_what_it_needs() -> None:
    """Commands are imported when used: `arena match` starts without SciPy, the site or the benchmarks."""
    import subprocess
    import sys
    code = ("import sys; from arena.cli import main; from click.testing import CliRunner; "
            "CliRunner().invoke(main, ['match', '--help']); "
            "print(sorted(m for m in ('scipy', 'arena.site', 'arena.cli.bench', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_leaderboard_reads_a_store_without_scipy_the_bots_or_the_site(tmp_path: Path) -> None:
    """`arena leaderboard` pays only for what it uses: no SciPy, no bot processes or sandbox, no site builder (NumPy
    it uses: the rank intervals are drawn with it)."""
    import subprocess
    import sys

    from arena.bench.season import fill
    db = tmp_path / "arena.sqlite"
    fill(db, 8, 32)
    heavy = ("scipy", "arena.site.build", "arena.viewer", "arena.bots.process", "arena.bots.sandbox",
             "arena.cli.params", "zmq", "dask")
    code = ("import sys; from arena.cli import main; from click.testing import CliRunner; "
            f"r = CliRunner().invoke(main, ['leaderboard', '--db', {str(db)!r}]); print(r.output); "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "season (bali-2017, ladder, sandbox none)" in out and "bot00007" in out
    assert out.strip().splitlines()[-1] == "[]"
