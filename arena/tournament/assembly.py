"""A tournament assembled from what an organiser chose: its entrants (bot commands and submission folders, admitted
by a first game), its seats, the sample bots its format needs, and its rounds. `arena tournament` (and so a
competition file, whose keys are its options) and the tests all go through `assemble`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Unpack

from arena.bots.entrants import Entrant, Refusal, from_commands, survey
from arena.bots.process import BotCommand
from arena.bots.sandbox import Sandbox
from arena.bots.submission import BuildWatch
from arena.errors import ConfigError
from arena.games import get_game
from arena.match.play import check_folders
from arena.tournament.admission import ADMISSION_LOGS, FirstGame, admit
from arena.tournament.formats import DEFAULT_FORMAT, TournamentFormat, get_format
from arena.tournament.formats.base import PlaySettings
from arena.tournament.run import DEFAULT_LEVEL, TournamentSpec, check_options, check_spec, sample_opponents
from protocol import TimeControl


class NoEntrants(ConfigError):
    """Neither a bot command nor a submission to play: what to give is a matter of the command's arguments."""


@dataclass(frozen=True)
class Assembly:
    """A tournament ready to run: its spec, and the submissions not admitted, each with the reason."""

    spec: TournamentSpec
    refused: tuple[Refusal, ...] = ()


def assemble(game: str, fmt: str = DEFAULT_FORMAT, bots: Sequence[str] = (), submissions: Path | None = None, *,
             seats: int | None = None, rounds: int | None = None, samples: str = DEFAULT_LEVEL,
             options: dict[str, Any] | None = None, time: TimeControl | None = None, sandbox: Sandbox | None = None,
             strict: bool = False, time_limit: float | None = None, watch: BuildWatch | None = None,
             on_refused: Callable[[Refusal], None] | None = None, holders: Mapping[str, str] | None = None,
             results_dir: Path | None = None, **settings: Unpack[PlaySettings]) -> Assembly:
    """The tournament of `bots` (command lines, NAME=COMMAND) and the folders under `submissions` at `game` in
    format `fmt`, checked before anything is stored: ConfigError naming the problem (NoEntrants if there is
    nothing to play).

    `samples` is the strongest sample bot that fills a table (a level of arena.games.SAMPLE_LEVELS). A submission
    plays a first game against the sample bots before it is admitted (`watch` is told of its build; the logs of
    one refused are kept in `results_dir`'s ADMISSION_LOGS);
    with `strict`, any submission not admitted is an error, else `on_refused` is told of each. `holders` (name ->
    folder, as a store's name_holders()) says which folder a name two folders declare belongs to. `settings` are the
    spec's other fields (PlaySettings).
    """
    time, sandbox = time or TimeControl(), sandbox or Sandbox()
    entrants, refused = _entrants(bots, submissions, holders or {})
    if submissions is not None or any(e.cwd for e in entrants):
        sandbox.check_strangers()
    sandbox = sandbox.resolved()
    check_options(game, options)
    if strict and refused:
        raise ConfigError(_refusals(refused))
    if submissions is not None:
        entrants, failed = admit(entrants, FirstGame(game, options, time, sandbox), watch=watch,
                                 logs=None if results_dir is None else results_dir / ADMISSION_LOGS)
        refused += failed
    if strict and refused:
        raise ConfigError(_refusals(refused))
    for refusal in refused if on_refused is not None else ():
        on_refused(refusal)
    spec = lineup(game, get_format(fmt), entrants, seats, rounds, samples, options=options, time=time, sandbox=sandbox,
                  **settings)
    check_spec(spec, time_limit)
    if results_dir is not None:  # no command line's script may lie in it: the sandbox hides it
        check_folders(tuple(BotCommand(e.command, e.cwd) for e in spec.entrants), results_dir, sandbox)
    return Assembly(spec, tuple(refused))


def lineup(game: str, fmt: TournamentFormat, entrants: Sequence[Entrant], seats: int | None = None,
           rounds: int | None = None, samples: str = DEFAULT_LEVEL, *, options: dict[str, Any] | None = None,
           time: TimeControl | None = None, sandbox: Sandbox | None = None,
           **settings: Unpack[PlaySettings]) -> TournamentSpec:
    """The spec of a tournament of `entrants`, with the sample bots its format needs to fill its tables (the
    strongest of level `samples`).

    Seats and rounds default to the format's own (TournamentFormat.default_seats and default_rounds). `settings`
    are the spec's other fields (PlaySettings)."""
    if seats is None:
        seats = fmt.default_seats(get_game(game), len(entrants))
    missing = fmt.missing_opponents(len(entrants), seats)
    entrants = [*entrants, *sample_opponents(game, missing, taken={e.name for e in entrants}, level=samples)]
    if rounds is None:
        rounds = fmt.default_rounds(len(entrants), seats)
    return TournamentSpec(game=game, fmt=fmt, entrants=tuple(entrants), seats=seats, rounds=rounds, options=options,
                          time=time or TimeControl(), sandbox=sandbox or Sandbox(), **settings)


def _entrants(bots: Sequence[str], submissions: Path | None,
              holders: Mapping[str, str]) -> tuple[list[Entrant], list[Refusal]]:
    admitted, refused = survey(submissions, holders) if submissions is not None else ([], [])
    entrants = from_commands(bots, taken=[e.name for e in admitted]) + admitted
    if not entrants and not refused:
        raise NoEntrants("give at least one bot command or --submissions DIR")
    return entrants, refused


def _refusals(refused: list[Refusal]) -> str:
    listed = "\n".join(f"  {r.reason}" for r in refused)
    return f"{len(refused)} submission(s) not admitted (--strict):\n{listed}"
