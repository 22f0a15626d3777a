"""TrueSkill ratings: an environment value per tournament, free-for-all updates, and a deterministic rebuild."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Protocol, Sequence

import trueskill

from arena.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

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

    def extended(self, outcomes: Iterable[GameOutcome]) -> "Ratings":
        """New ratings after these games, rated in the order given (one copy of the table for all of them)."""
        table = dict(self.table)
        env = self.config.environment()
        for outcome in outcomes:
            _rate_into(table, self.config, outcome, env)
        return Ratings(self.config, table)

    def after(self, outcome: GameOutcome, env: trueskill.TrueSkill | None = None) -> "Ratings":
        """New ratings after one free-for-all game (each seat a team of one, ties as shared ranks)."""
        table = dict(self.table)
        _rate_into(table, self.config, outcome, env or self.config.environment())
        return Ratings(self.config, table)

    def quality(self, bots: Sequence[str], env: trueskill.TrueSkill | None = None) -> float:
        """TrueSkill's match quality (draw chance) of a table of these bots."""
        env = env or self.config.environment()
        return env.quality([(env.create_rating(r.mu, r.sigma),) for r in map(self.get, bots)])


def rate_all(config: RatingConfig, outcomes: Iterable[GameOutcome], in_order: bool = False) -> Ratings:
    """Ratings rebuilt from outcomes in schedule order (seq), whatever order they finished in (`in_order`: they
    come in that order already, and are rated as they come, never held together)."""
    env = config.environment()
    table: dict[str, Rating] = {}
    for outcome in outcomes if in_order else sorted(outcomes, key=lambda o: o.seq):
        _rate_into(table, config, outcome, env)  # one table updated in place: a copy per game costs more
    return Ratings(config, table)


def _rate_into(table: dict[str, Rating], config: RatingConfig, outcome: GameOutcome, env: trueskill.TrueSkill) -> None:
    """Rate one free-for-all game into `table` (each seat a team of one, ties as shared ranks)."""
    prior = Rating(config.mu, config.sigma)
    seated = [table.get(b) or prior for b in outcome.bots]
    rated = rate_free_for_all(env, [r.mu for r in seated], [r.sigma for r in seated], outcome.ranks)
    for bot, (mu, sigma) in zip(outcome.bots, rated):
        table[bot] = Rating(mu, sigma)


def rate_free_for_all(env: trueskill.TrueSkill, mu: Sequence[float], sigma: Sequence[float],
                      ranks: Sequence[int]) -> list[tuple[float, float]]:
    """`env.rate` of a free-for-all game (each seat a team of one, weight 1): new (mu, sigma) by seat.

    The library's own computation (its factor graph, message schedule, convergence test, and the environment's
    v, w and quantile functions) on plain floats instead of per-game graph objects, which cost most of a rerate;
    each message a pair (precision, precision-adjusted mean) as the library keeps it. Tests hold it to `env.rate`.
    """
    n = len(ranks)
    if n < 2:
        raise ValueError("need multiple rating groups")
    order = sorted(range(n), key=lambda i: ranks[i])  # stable, as the library sorts teams by rank
    draws = [ranks[order[k]] == ranks[order[k + 1]] for k in range(n - 1)]
    margin = env.ppf((env.draw_probability + 1) / 2.) * math.sqrt(2) * env.beta
    beta2 = env.beta ** 2
    rating = [_gaussian(mu[i], sigma[i]) for i in order]  # as env.create_rating keeps a rating, read back from it
    prior = [_gaussian(_mean(r), math.sqrt(math.sqrt(1 / r[0]) ** 2 + env.tau ** 2)) for r in rating]
    like_down = [(a * pi, a * tau) for pi, tau in prior for a in (1. / (1. + beta2 * pi),)]
    sum_down = [_through(m) for m in like_down]  # a team of one performs as its player: the team sum passes it on
    team = list(sum_down)  # each team performance's value, the product of its messages
    diff = _Chain(env, team, margin, draws)
    diff.run()
    rated: list[tuple[float, float]] = [(0., 0.)] * n
    for i, seat in enumerate(order):
        perf = _mul(like_down[i], _through(_div(team[i], sum_down[i])))
        up = _div(perf, like_down[i])
        a = 1. / (1. + beta2 * up[0])
        r_pi, r_tau = prior[i][0] + a * up[0], prior[i][1] + a * up[1]
        rated[seat] = (r_tau / r_pi, math.sqrt(1 / r_pi))
    return rated


Message = tuple[float, float]  # a Gaussian as (precision, precision-adjusted mean)


class _Chain:
    """The differences of neighbouring team performances and their truncations: the loop of `env.rate`."""

    def __init__(self, env: trueskill.TrueSkill, team: list[Message], margin: float, draws: list[bool]) -> None:
        self.env, self.team, self.margin, self.draws = env, team, margin, draws
        links = len(draws)
        self.to_team = [[(0., 0.), (0., 0.)] for _ in range(links)]  # link k's messages to team k and k + 1
        self.value = [(0., 0.)] * links  # each difference's value
        self.to_diff = [(0., 0.)] * links  # link k's sum factor's message to its difference
        self.trunc = [(0., 0.)] * links  # link k's truncation factor's message to its difference

    def run(self) -> None:
        """The library's schedule: sweeps down and up the chain until no truncation moves more than DELTA."""
        links = len(self.draws)
        for _ in range(10):
            delta = 0.
            if links == 1:
                self.down(0)
                delta = self.truncate(0)
            else:
                for k in range(links - 1):
                    self.down(k)
                    delta = max(delta, self.truncate(k))
                    self.up(k, 1)
                for k in range(links - 1, 0, -1):
                    self.down(k)
                    delta = max(delta, self.truncate(k))
                    self.up(k, 0)
            if delta <= trueskill.DELTA:
                break
        self.up(0, 0)
        self.up(links - 1, 1)

    def down(self, k: int) -> None:
        """The sum factor's message to difference k: team k minus team k + 1, each without this factor's say."""
        a, b = _div(self.team[k], self.to_team[k][0]), _div(self.team[k + 1], self.to_team[k][1])
        pi = 1. / (_inverse(a) + _inverse(b))
        new = (pi, pi * (_mean(a) - _mean(b)))
        self.value[k] = _mul(_div(self.value[k], self.to_diff[k]), new)
        self.to_diff[k] = new

    def truncate(self, k: int) -> float:
        """The truncation factor's update of difference k (a win or a draw); how far the value moved."""
        d_pi, d_tau = _div(self.value[k], self.trunc[k])
        sqrt_pi = math.sqrt(d_pi)
        args = (d_tau / sqrt_pi, self.margin * sqrt_pi)
        env = self.env
        v, w = (env.v_draw(*args), env.w_draw(*args)) if self.draws[k] else (env.v_win(*args), env.w_win(*args))
        denom = 1. - w
        new = (d_pi / denom, (d_tau + sqrt_pi * v) / denom)
        old = self.value[k]
        self.trunc[k] = _div(_mul(new, self.trunc[k]), old)
        self.value[k] = new
        pi_delta = abs(old[0] - new[0])
        return 0. if pi_delta == math.inf else max(abs(old[1] - new[1]), math.sqrt(pi_delta))

    def up(self, k: int, side: int) -> None:
        """The sum factor's message to team k (side 0: the difference plus team k + 1) or team k + 1 (side 1:
        team k minus the difference)."""
        d = _div(self.value[k], self.to_diff[k])
        other = _div(self.team[k + 1 - side], self.to_team[k][1 - side])
        if side == 0:
            mean, inverse = 1.0 * _mean(d) + 1.0 * _mean(other), _inverse(d) + _inverse(other)
        else:
            mean, inverse = 1.0 * _mean(other) + -1.0 * _mean(d), _inverse(other) + _inverse(d)
        pi = 1. / inverse
        new = (pi, pi * mean)
        self.team[k + side] = _mul(_div(self.team[k + side], self.to_team[k][side]), new)
        self.to_team[k][side] = new


def _gaussian(mu: float, sigma: float) -> Message:
    pi = sigma ** -2
    return pi, pi * mu


def _mul(a: Message, b: Message) -> Message:
    return a[0] + b[0], a[1] + b[1]


def _div(a: Message, b: Message) -> Message:
    return a[0] - b[0], a[1] - b[1]


def _mean(m: Message) -> float:
    return m[1] / m[0] if m[0] else m[0]


def _inverse(m: Message) -> float:
    """The variance of a message; infinite for a flat one, as the library takes a division by zero."""
    return 1. / m[0] if m[0] else math.inf


def _through(m: Message) -> Message:
    """A sum factor's message over one term of weight 1: the term's own, as the library recomputes it."""
    pi = 1. / _inverse(m)
    return pi, pi * _mean(m)


def match_quality(mu: np.ndarray, sigma: np.ndarray, beta: float) -> np.ndarray:
    """TrueSkill's match quality of many free-for-all tables at once, one a row of `mu` and `sigma` (tables x
    seats): the value `trueskill.TrueSkill.quality` gives for each, without its per-table matrix objects."""
    import numpy as np  # here, not at the top: the leaderboard reads ratings and should not pay for NumPy

    seats = mu.shape[1]
    a = np.zeros((seats, seats - 1))  # each column compares one seat with the next, as the library's matrix does
    a[np.arange(seats - 1), np.arange(seats - 1)] = 1.0
    a[np.arange(1, seats), np.arange(seats - 1)] = -1.0
    ata = beta ** 2 * a.T @ a
    middle = ata + np.einsum("ik,ti,il->tkl", a, sigma ** 2, a)
    diff = mu @ a
    spread = np.einsum("tk,tk->t", diff, np.linalg.solve(middle, diff[..., None])[..., 0])
    return np.exp(-0.5 * spread) * np.sqrt(np.linalg.det(ata) / np.linalg.det(middle))
