"""Traces of games played by the Python engines, decision by decision, for checking the viewer's JavaScript engines
against them: random games, or the decisions of a stored game record. Run as a script, it plays random games and has
check_engines.js compare them (the soak command of docs/tests.md)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

from arena.games import State, get_game
from arena.match.local import player_rng
from arena.match.record import GameRecord
from arena.viewer import assets, engine_scripts
from arena.viewer.games import GAMES

HERE = Path(__file__).resolve().parent
CHECKER = HERE / "check_engines.js"
BATCH = 10  # games one node process checks: a long game's trace is megabytes

# The options of each game the traces cover: every variant and their combinations, and a game cut short.
VARIANTS: dict[str, list[dict[str, Any] | None]] = {
    "bali-2001": [None, {"max_turns": 12}],
    "bali-2017": [None, {"oracle": True}, {"demon": True}, {"oracle": True, "demon": True}],
}
# (game, players, options) per configuration: every seat count with every variant.
CONFIGURATIONS: list[tuple[str, int, dict[str, Any] | None]] = [
    (name, players, options) for name, variants in VARIANTS.items()
    for players in range(get_game(name).min_players, get_game(name).max_players + 1) for options in variants]

# Picks the option index of a decision: from the state and the decision's number.
Chooser = Callable[[State, int], int]


def _lines(game: Any, entries: list[Any]) -> list[list[Any]]:
    return [[game.format_event(public), who, None if private is None else game.format_event(private)]
            for public, who, private in entries]


def _trace(game_name: str, players: int, seed: int, options: dict[str, Any] | None, choose: Chooser,
           name: str = "") -> dict[str, Any]:
    """One game, with all that the viewer's engine must reproduce before each decision and at the end."""
    game = get_game(game_name)
    state = game.new_state(players, seed, options)
    steps: list[dict[str, Any]] = []
    shown = 0
    while True:
        privates = [state.private_view(s) for s in range(players)]
        entries = state.event_versions(shown)
        shown = state.num_events()
        step: dict[str, Any] = {
            "seat": state.current_player(), "decision": state.decision(), "public": state.public_view(),
            "privates": privates, "referee": GAMES[game_name].referee(state, privates),
            "events": [list(entry) for entry in entries], "lines": _lines(game, entries)}
        steps.append(step)
        if state.is_terminal():
            break
        step["options"] = state.options()
        step["index"] = choose(state, len(steps) - 1)
        state.apply(step["index"])
    result = state.result()
    return {"name": name, "game": game_name, "num_players": players, "seed": seed,
            "options": game.parse_options(options).to_dict(), "steps": steps,
            "result": {"scores": list(result.scores), "ranks": list(result.ranks)}}


def trace(game_name: str, players: int, seed: int, options: dict[str, Any] | None) -> dict[str, Any]:
    """One game of random play, the seats' choices drawn from the seed as the arena's random seats draw them."""
    rng = player_rng(seed)
    return _trace(game_name, players, seed, options, lambda state, number: rng.randrange(len(state.options())))


def record_trace(record: GameRecord, name: str) -> dict[str, Any]:
    """The game of a record (one that reproduces), its recorded decisions played again."""
    decisions = record.decisions
    return _trace(record.game, record.num_players, record.seed, record.options,
                  lambda state, number: decisions[number].index, name)


def write_scripts(folder: Path) -> dict[str, list[str]]:
    """Write the engines' scripts, as pages get them, into folder; the paths each game's page loads, in order."""
    texts = assets()
    for name, text in texts.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {game: [str(folder / name) for name in engine_scripts(game)] for game in GAMES}


def check(traces: list[dict[str, Any]], folder: Path) -> subprocess.CompletedProcess[str]:
    """Have check_engines.js re-play the traces with the viewer's engines; its output names every difference."""
    path = folder / "traces.json"
    path.write_text(json.dumps(traces), encoding="utf-8")
    scripts = write_scripts(folder / "scripts")
    wanted = dict.fromkeys(script for t in traces for script in scripts[t["game"]])
    return subprocess.run(["node", str(CHECKER), str(path), *wanted], capture_output=True, text=True, timeout=1800)


def check_all(traces: Iterable[dict[str, Any]], folder: Path) -> tuple[int, list[str]]:
    """Check traces a batch at a time: how many games, and every difference (or a checker's failure) named."""
    problems: list[str] = []
    count = 0
    batch: list[dict[str, Any]] = []

    def run() -> None:
        done = check(batch, folder)
        if done.returncode != 0 or f"0 of {len(batch)} games differ" not in done.stdout:
            problems.append((done.stdout[-4000:] + done.stderr[-4000:]).strip())
        batch.clear()

    for t in traces:
        batch.append(t)
        count += 1
        if len(batch) == BATCH:
            run()
    if batch:
        run()
    return count, problems


def random_traces(games: int, configurations: list[tuple[str, int, dict[str, Any] | None]] = CONFIGURATIONS
                  ) -> Iterable[dict[str, Any]]:
    """Random games, seeds 0 to games - 1 of each configuration, made as they are checked."""
    for game, players, options in configurations:
        for seed in range(games):
            yield trace(game, players, seed, options)


def main() -> int:
    """The soak run: check random games of every configuration (or one game's) with the viewer's engines."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("games", type=int, nargs="?", default=1000, help="games per configuration")
    parser.add_argument("game", nargs="?", help="only this game's configurations")
    args = parser.parse_args()
    configurations = [c for c in CONFIGURATIONS if args.game in (None, c[0])]
    total, failed = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for configuration in configurations:
            count, problems = check_all(random_traces(args.games, [configuration]), Path(folder))
            total, failed = total + count, failed + len(problems)
            if problems:
                print("\n".join(problems))
            print(f"{configuration[0]}, {configuration[1]} players, options {configuration[2]}: {count} games, "
                  f"{len(problems)} batches with differences", flush=True)
    print(f"{total} games checked, {failed} batches with differences")
    return 1 if failed else 0


if __name__ == "__main__":  # python -m tests.viewer.engine_traces [GAMES_PER_CONFIGURATION [GAME]]
    sys.exit(main())
