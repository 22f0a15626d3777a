"""A tournament assembled from what an organiser chose: its entrants (bot commands and submission folders, admitted
by a first game), its seats, the sample bots its format needs, and its rounds. `arena tournament` (and so a
competition file, whose keys are its options) and the tests all go through `assemble`, then set the spec's other
settings (its own fields) and `check` it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from arena.bots.entrants import Entrant, Refusal, from_commands, survey
from arena.bots.process import BotCommand
from arena.bots.submission import BuildWatch
from arena.errors import ConfigError
from arena.games import get_game
from arena.match.play import check_folders
from arena.tournament.admission import ADMISSION_LOGS, FirstGame, admit
from arena.tournament.formats import TournamentFormat
from arena.tournament.formats.base import Play, TournamentSpec, check_options, check_spec
from arena.tournament.opponents import DEFAULT_LEVEL, sample_opponents


class NoEntrants(ConfigError):
    """Neither a bot command nor a submission to play: what to give is a matter of the command's arguments."""


@dataclass(frozen=True)
class Intake:
    """How submissions are taken in: with `strict`, any not admitted is an error, else `on_refused` is told of each;
    `watch` is told of each build; `holders` (name -> folder, as a store's name_holders()) says which folder a
    name two folders declare belongs to; the logs of one refused are kept in `results_dir`'s ADMISSION_LOGS."""

    strict: bool = False
    watch: BuildWatch | None = None
    on_refused: Callable[[Refusal], None] | None = None
    holders: Mapping[str, str] = field(default_factory=dict)
    results_dir: Path | None = None


@dataclass(frozen=True)
class Assembly:
    """A tournament's entrants ready to play: its spec, and the submissions not admitted, each with the reason."""

    spec: TournamentSpec
    refused: tuple[Refusal, ...] = ()


def assemble(play: Play, fmt: TournamentFormat, bots: Sequence[str] = (), submissions: Path | None = None, *,
             seats: int | None = None, rounds: int | None = None, samples: str = DEFAULT_LEVEL,
             intake: Intake = Intake()) -> Assembly:
    """The tournament of `bots` (command lines, NAME=COMMAND) and the folders under `submissions`, played as `play`
    says (its sandbox's level resolved) in format `fmt`: ConfigError naming the problem (NoEntrants if there is
    nothing to play). A submission plays a first game against the sample bots before it is admitted, as `intake`
    says; `samples` is the strongest sample bot that fills a table (a level of arena.games.SAMPLE_LEVELS)."""
    entrants, refused = _entrants(bots, submissions, intake.holders)
    if submissions is not None or any(e.cwd for e in entrants):
        play.sandbox.check_strangers()
    play = replace(play, sandbox=play.sandbox.resolved())
    check_options(play.game, play.options)
    if intake.strict and refused:
        raise ConfigError(_refusals(refused))
    if submissions is not None:
        logs = None if intake.results_dir is None else intake.results_dir / ADMISSION_LOGS
        entrants, failed = admit(entrants, FirstGame(play.game, play.options, play.time, play.sandbox),
                                 watch=intake.watch, logs=logs)
        refused += failed
    if intake.strict and refused:
        raise ConfigError(_refusals(refused))
    for refusal in refused if intake.on_refused is not None else ():
        intake.on_refused(refusal)
    return Assembly(lineup(play, fmt, entrants, seats, rounds, samples), tuple(refused))


def check(spec: TournamentSpec, time_limit: float | None = None, results_dir: Path | None = None) -> TournamentSpec:
    """The spec, once checked before anything is stored (check_spec; with `results_dir`, that no command line's
    script lies in it, where the sandbox hides it): ConfigError naming the problem."""
    check_spec(spec, time_limit)
    if results_dir is not None:
        check_folders(tuple(BotCommand(e.command, e.cwd) for e in spec.entrants), results_dir, spec.sandbox)
    return spec


def lineup(play: Play, fmt: TournamentFormat, entrants: Sequence[Entrant], seats: int | None = None,
           rounds: int | None = None, samples: str = DEFAULT_LEVEL) -> TournamentSpec:
    """The spec of a tournament of `entrants`, with the sample bots its format needs to fill its tables (the
    strongest of level `samples`); its other settings are the spec's defaults.

    Seats and rounds default to the format's own (TournamentFormat.default_seats and default_rounds)."""
    if seats is None:
        seats = fmt.default_seats(get_game(play.game), len(entrants))
    missing = fmt.missing_opponents(len(entrants), seats)
    entrants = [*entrants, *sample_opponents(play.game, missing, taken={e.name for e in entrants}, level=samples)]
    if rounds is None:
        rounds = fmt.default_rounds(len(entrants), seats)
    return TournamentSpec(play, fmt, tuple(entrants), seats, rounds)


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
