"""bali-2017 through `arena play`: every variant plays to the end; bad input exits 2 without a traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main


@pytest.mark.parametrize("variants", [[], ["oracle"], ["demon"], ["oracle", "demon"]])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_runs_every_variant_to_the_end(players: int, variants: list[str]) -> None:
    args = ["play", "bali-2017", "--players", str(players), "--seed", "3"]
    for variant in variants:
        args += ["--variant", variant]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "game over (the deck ran out)" in result.output
    assert ("oracle" in result.output) == ("oracle" in variants)
    assert ("demon on row 0" in result.output) == ("demon" in variants)


@pytest.mark.parametrize("args, field", [
    (["--players", "5"], "players"),
    (["--players", "1"], "players"),
    (["--players", "3", "--variant", "dragon"], "dragon"),
    (["--players", "3", "--option", "oracle=3"], "oracle"),
])
def test_bad_input_exits_2_naming_the_field(args: list[str], field: str) -> None:
    result = CliRunner().invoke(main, ["play", "bali-2017", *args])
    assert result.exit_code == 2
    assert field in result.output and "Traceback" not in result.output


def test_verbose_play_shows_hidden_details() -> None:
    result = CliRunner().invoke(main, ["play", "bali-2017", "--players", "3", "--seed", "1", "--verbose"])
    assert result.exit_code == 0
    assert "takes 3 start farmers into its hand:" in result.output
