"""TrueSkill ratings: an environment value per tournament, free-for-all updates, and a deterministic rebuild."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Protocol, Sequence

import numpy as np
import trueskill

from arena.errors import ConfigError

# trueskill's documented defaults: mu 25, sigma mu/3, beta sigma/2, tau sigma/100.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
DEFAULT_BETA = DEFAULT_SIGMA / 2
DEFAULT_TAU = DEFAULT_SIGMA / 100
DEFAULT_DRAW_PROBABILITY = 0.05  # trueskill's own default; each game states its own (RatedGame)
CONSERVATIVE_K = 3


class RatedGame(Protocol):
    """What rating asks of a game: the share of seat pairs that tie in random play."""

    draw_probability: float


@dataclass(frozen=True)
class RatingConfig:
    """The parameters of a tournament's TrueSkill environment."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_BETA
    tau: float = DEFAULT_TAU
    draw_probability: float = DEFAULT_DRAW_PROBABILITY

    @classmethod
    def for_game(cls, game: RatedGame, **overrides: float | None) -> "RatingConfig":
        """Defaults with the game's draw probability; None overrides are ignored."""
        base = {"draw_probability": game.draw_probability}
        base.update({k: float(v) for k, v in overrides.items() if v is not None})
        config = cls(**base)
        config.validate()
        return config

    @classmethod
    def stored(cls, game: RatedGame, config: dict[str, object]) -> "RatingConfig":
        """The rating settings a store entry was started with; the game's defaults for one that keeps none (the
        entry of an `arena match` or `arena validate`, whose games are rated only when read)."""
        settings = config.get("rating")
        return cls(**settings) if isinstance(settings, dict) else cls.for_game(game)

    def validate(self) -> None:
        """ConfigError naming the parameter that is out of range."""
        for name in ("sigma", "beta"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"rating parameter {name} must be > 0, got {getattr(self, name)}")
        if self.tau < 0:
            raise ConfigError(f"rating parameter tau must be >= 0, got {self.tau}")
        if not 0 <= self.draw_probability < 1:
            raise ConfigError(f"rating parameter draw_probability must be in [0, 1), got {self.draw_probability}")

    def environment(self) -> trueskill.TrueSkill:
        """A TrueSkill environment with these parameters (never the library's global one)."""
        return trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                   draw_probability=self.draw_probability)

    def to_dict(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "beta": self.beta, "tau": self.tau,
                "draw_probability": self.draw_probability}


@dataclass(frozen=True)
class Rating:
    """One bot's rating: mu, sigma and the conservative estimate used for ranking."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - CONSERVATIVE_K * self.sigma


@dataclass(frozen=True)
class GameOutcome:
    """What rating needs of one finished game: the bots in seat order and their ranks (1 = best)."""

    seq: int
    bots: tuple[str, ...]
    ranks: tuple[int, ...]


@dataclass
class Ratings:
    """A table of ratings by bot name, updated by returning new tables."""

    config: RatingConfig
    table: Mapping[str, Rating] = field(default_factory=dict)

    def get(self, bot: str) -> Rating:
        """The bot's rating, or the prior for a bot that has not played."""
        return self.table.get(bot) or Rating(self.config.mu, self.config.sigma)

    def after(self, outcome: GameOutcome, env: trueskill.TrueSkill | None = None) -> "Ratings":
        """New ratings after one free-for-all game (each seat a team of one, ties as shared ranks)."""
        table = dict(self.table)
        _rate_into(table, self.config, outcome, env or self.config.environment())
        return Ratings(self.config, table)

    def quality(self, bots: Sequence[str], env: trueskill.TrueSkill | None = None) -> float:
        """TrueSkill's match quality (draw chance) of a table of these bots."""
        env = env or self.config.environment()
        return env.quality([(env.create_rating(r.mu, r.sigma),) for r in map(self.get, bots)])


def rate_all(config: RatingConfig, outcomes: Iterable[GameOutcome]) -> Ratings:
    """Ratings rebuilt from outcomes in schedule order (seq), whatever order they finished in."""
    env = config.environment()
    table: dict[str, Rating] = {}
    for outcome in sorted(outcomes, key=lambda o: o.seq):
        _rate_into(table, config, outcome, env)  # one table updated in place: a copy per game costs more
    return Ratings(config, table)


def _rate_into(table: dict[str, Rating], config: RatingConfig, outcome: GameOutcome, env: trueskill.TrueSkill) -> None:
    """Rate one free-for-all game into `table` (each seat a team of one, ties as shared ranks)."""
    prior = Rating(config.mu, config.sigma)
    groups = [(env.create_rating(r.mu, r.sigma),) for r in (table.get(b) or prior for b in outcome.bots)]
    rated = env.rate(groups, ranks=list(outcome.ranks))
    for bot, (new,) in zip(outcome.bots, rated):
        table[bot] = Rating(new.mu, new.sigma)


def match_quality(mu: np.ndarray, sigma: np.ndarray, beta: float) -> np.ndarray:
    """TrueSkill's match quality of many free-for-all tables at once, one a row of `mu` and `sigma` (tables x
    seats): the value `trueskill.TrueSkill.quality` gives for each, without its per-table matrix objects."""
    seats = mu.shape[1]
    a = np.zeros((seats, seats - 1))  # each column compares one seat with the next, as the library's matrix does
    a[np.arange(seats - 1), np.arange(seats - 1)] = 1.0
    a[np.arange(1, seats), np.arange(seats - 1)] = -1.0
    ata = beta ** 2 * a.T @ a
    middle = ata + np.einsum("ik,ti,il->tkl", a, sigma ** 2, a)
    diff = mu @ a
    spread = np.einsum("tk,tk->t", diff, np.linalg.solve(middle, diff[..., None])[..., 0])
    return np.exp(-0.5 * spread) * np.sqrt(np.linalg.det(ata) / np.linalg.det(middle))
