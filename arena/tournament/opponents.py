"""The sample bots that fill a table: chosen from the game's registry, strongest first, and what their faults say
of a run."""

from __future__ import annotations

import sys

from arena.bots.entrants import Entrant
from arena.games import SAMPLE_LEVELS, sample_modules
from arena.numbering import free_name

DEFAULT_LEVEL = "heuristic"  # the strongest sample bot that fills a table unless asked otherwise
SAMPLE_VERSION = "sample"  # the version of the sample bots that fill a table
SAMPLE_FAULT_SHARE = 0.5  # a sample bot that faults in more than this share of its games spoils a run


def sample_opponents(game: str, count: int, taken: set[str], level: str = DEFAULT_LEVEL) -> list[Entrant]:
    """`count` sample bots as opponents, from the game's registry: its samples from `level` down, strongest first
    (the search bot, the heuristic bot), then random bots; named by their module, numbered past the names in
    `taken`."""
    samples = sample_modules(game)
    levels = [name for name in SAMPLE_LEVELS[:SAMPLE_LEVELS.index(level) + 1] if name in samples]
    modules = [samples[name] for name in reversed(levels) if name != "random"] + [samples["random"]] * count
    entrants: list[Entrant] = []
    for module in modules[:count]:
        name = free_name(module.rsplit(".", 1)[1], taken)
        taken.add(name)
        entrants.append(Entrant(name, (sys.executable, "-m", module), version=SAMPLE_VERSION))
    return entrants


def faulty_samples(counts: dict[str, tuple[int, int]]) -> list[str]:
    """A line for each sample bot (name -> games with a fault, games played) that faulted in most of its games:
    results against it say nothing of the other bots."""
    return [f"the sample bot {name} faulted in {bad} of its {games} games: results against it say nothing (its "
            f"logs say why; a sample bot should run wherever the arena runs)"
            for name, (bad, games) in counts.items() if games and bad > SAMPLE_FAULT_SHARE * games]
