"""Admission: a submission plays a first game against the sample bots before it enters a tournament; one that
cannot take part (a failed build, start or handshake, a crash) is refused with the reason, one that only plays badly
is admitted, its faults counted against it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

import zmq

from arena.bots.entrants import Entrant, Refusal
from arena.bots.process import BotCommand
from arena.bots.sandbox import Sandbox
from arena.bots.submission import BuildWatch
from arena.errors import ArenaError, FaultKind
from arena.games import get_game
from arena.match.play import MatchConfig, run_match
from arena.match.record import Phase
from arena.tournament.run import sample_opponents
from protocol import TimeControl


def admit(entrants: list[Entrant], game: str, options: dict[str, Any] | None, clock: TimeControl,
          sandbox: Sandbox, only: Callable[[Entrant], bool] = lambda _: True,
          watch: BuildWatch | None = None) -> tuple[list[Entrant], list[Refusal]]:
    """The entrants that play a first game against the sample bots through (those `only` leaves out are not
    checked), and a refusal for each other one (a failed build, start, handshake or a disqualification in that
    game), with the reason; watch is told of each build that runs."""
    admitted, refused = [], []
    for entrant in entrants:
        reason = first_game(entrant, game, options, clock, sandbox, watch) if only(entrant) else None
        if reason is None:
            admitted.append(entrant)
        else:
            refused.append(Refusal(entrant.cwd or entrant.name, entrant.name, f"{entrant.cwd}: {reason}"))
    return admitted, refused


def first_game(entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
               sandbox: Sandbox, watch: BuildWatch | None = None) -> str | None:
    """Why the entrant failed its first game against the sample bots, or None if it played it through."""
    rules = get_game(game)
    opponents = sample_opponents(game, rules.min_players - 1, {entrant.name})
    bots = tuple(BotCommand(e.command, e.cwd) for e in (entrant, *opponents))
    with tempfile.TemporaryDirectory(prefix="arena-admission-") as work:
        config = MatchConfig(game=rules, bots=bots, games=1, options=options, time=clock, sandbox=sandbox,
                             results_dir=Path(work), build_watch=watch)
        try:
            record = run_match(config).records[0]
        except (ArenaError, OSError, zmq.ZMQError) as exc:
            return f"its first game against the sample bots could not be played: {exc}"
    # A bot that cannot take part is kept out; one that plays badly (illegal or late answers) plays, its faults
    # counted against it in the tournament.
    fault = next((f for f in record.faults if f.participant == 0 and (
        f.phase in (Phase.HANDSHAKE, Phase.NEW_GAME) or f.kind in (FaultKind.BUILD, FaultKind.CRASH))), None)
    if fault is None:
        return None
    return f"failed its first game against the sample bots ({fault.kind.value}: {fault.detail})"
