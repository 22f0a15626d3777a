"""Traces of random games played by the Python engines, step by step, for checking the viewer's JavaScript engines
against them: run as a script, it writes traces to a file and has check_engines.js compare them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.local import player_rng
from arena.viewer.tables import GAMES

HERE = Path(__file__).resolve().parent
CHECKER = HERE / "check_engines.js"

# (game, players, options) per configuration the traces cover: every seat count and every variant.
CONFIGURATIONS: list[tuple[str, int, dict[str, Any] | None]] = [
    ("bali-2001", 3, None), ("bali-2001", 4, None), ("bali-2001", 3, {"max_turns": 12}),
    ("bali-2017", 2, None), ("bali-2017", 3, {"oracle": True}), ("bali-2017", 4, {"demon": True}),
    ("bali-2017", 4, {"oracle": True, "demon": True}), ("bali-2017", 3, {"oracle": True, "demon": True}),
]


def _lines(game: Any, entries: list[Any]) -> list[list[Any]]:
    return [[game.format_event(public), who, None if private is None else game.format_event(private)]
            for public, who, private in entries]


def trace(game_name: str, players: int, seed: int, options: dict[str, Any] | None) -> dict[str, Any]:
    """One random game, with all that the viewer's engine must reproduce before each decision and at the end."""
    game = get_game(game_name)
    state = game.new_state(players, seed, options)
    rng = player_rng(seed)
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
        step["index"] = rng.randrange(len(step["options"]))
        state.apply(step["index"])
    result = state.result()
    return {"game": game_name, "num_players": players, "seed": seed,
            "options": game.parse_options(options).to_dict(), "steps": steps,
            "result": {"scores": list(result.scores), "ranks": list(result.ranks)}}


def check(traces: list[dict[str, Any]], folder: Path) -> subprocess.CompletedProcess[str]:
    """Have check_engines.js re-play the traces with the viewer's engines; its output names every difference."""
    path = folder / "traces.json"
    path.write_text(json.dumps(traces), encoding="utf-8")
    return subprocess.run(["node", str(CHECKER), str(path)], capture_output=True, text=True, timeout=600)


if __name__ == "__main__":  # python -m tests.viewer.engine_traces GAMES_PER_CONFIGURATION [GAME]
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    wanted = sys.argv[2] if len(sys.argv) > 2 else None
    out = [trace(g, n, seed, o) for g, n, o in CONFIGURATIONS if wanted in (None, g) for seed in range(count)]
    done = check(out, Path("/tmp"))
    print(done.stdout + done.stderr)
    sys.exit(done.returncode)
