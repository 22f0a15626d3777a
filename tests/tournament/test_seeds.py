"""The seed derivation: a secret root gives seeds no other seed tells anything about, the same ones every time for
the same secret; a public root gives the seeds it always gave."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from arena.bots.entrants import Entrant
from arena.match.play import MatchConfig
from arena.match.seeds import (
    SecretSeed,
    derive_seed,
    public_seed,
    seed_label,
    seeding,
    stored_public_seed,
    table_seed,
)
from arena.ratings.trueskill import RatingConfig
from arena.tournament.formats import get_format
from arena.tournament.formats.base import Play, TournamentSpec

KEY = "0f" * 32


def keys(count: int) -> list[SecretSeed]:
    """Fixed secrets, so that the statistics below give the same answer on every run."""
    return [SecretSeed(hashlib.sha256(f"test key {i}".encode()).hexdigest()) for i in range(count)]


def test_a_secret_gives_the_same_seeds_every_time_and_another_secret_others() -> None:
    one, again, other = SecretSeed(KEY), SecretSeed(KEY), SecretSeed("f0" * 32)
    labels = [("deal", 0), ("deal", 1), ("bot", 0, 0), ("bot", 0, 1), ("ladder", 3)]
    assert [derive_seed(one, *x) for x in labels] == [derive_seed(again, *x) for x in labels]
    assert all(0 <= derive_seed(one, *x) < 2 ** 31 for x in labels)
    assert len({derive_seed(one, *x) for x in labels}) == len(labels)
    assert all(derive_seed(one, *x) != derive_seed(other, *x) for x in labels)
    assert table_seed(one, 4, 0) == table_seed(again, 4, 0) != table_seed(other, 4, 0)


def test_a_public_root_gives_the_seeds_it_always_gave() -> None:
    assert table_seed(0, 3, 1) == derive_seed(0, 3, 1) == int.from_bytes(
        hashlib.sha256(b"0:3:1").digest()[:8], "big") >> 33
    assert derive_seed(1, "deal", 0) == 504079386


def test_a_seat_seed_tells_nothing_of_the_deal_and_a_game_seed_nothing_of_another() -> None:
    """With the key unknown, what a bot can see (its seat seeds, the seeds of games already published) is as good
    as independent of a deal it has not seen: no public derivation leads from one to the other, and over many
    secrets their bits agree half of the time, as unrelated numbers do."""
    agree_seat = agree_game = 0
    secrets = keys(4000)
    for key in secrets:
        table = table_seed(key, 0, 0)
        deal, next_deal = derive_seed(table, "deal", 0), derive_seed(table, "deal", 1)
        seat = derive_seed(table, "bot", 0, 0)
        assert deal not in {derive_seed(seat, "deal", 0), derive_seed(next_deal, "deal", 0), seat, next_deal}
        agree_seat += (deal ^ seat) & 1 == 0
        agree_game += (deal ^ next_deal) & 1 == 0
    for agreed in (agree_seat, agree_game):
        assert abs(agreed - len(secrets) / 2) < 4 * (len(secrets) / 4) ** 0.5  # within 4 sigma of a coin


def test_a_table_of_a_secret_run_gets_a_key_of_its_own() -> None:
    root = SecretSeed(KEY)
    tables = [table_seed(root, number, round_no) for number in range(4) for round_no in range(2)]
    assert all(isinstance(t, SecretSeed) for t in tables) and len({t.key for t in tables}) == 8
    assert all(t.key != root.key for t in tables)
    assert table_seed(root, "compare", 0) != table_seed(root, "compare", 1)


def test_the_secret_is_never_shown_and_travels_to_workers_whole() -> None:
    root = SecretSeed(KEY)
    config = MatchConfig(game=None, bots=(), seed=root)  # type: ignore[arg-type]
    assert KEY not in repr(root) and KEY not in str(root) and KEY not in repr(config)
    assert KEY[:16] not in seed_label(root) and seed_label(root).startswith("k") and seed_label(7) == "s7"
    assert pickle.loads(pickle.dumps(root)) == root  # a worker process gets the table's key as it is
    assert public_seed(root) is None and public_seed(7) == 7
    with pytest.raises(ValueError, match="32 bytes"):
        SecretSeed("not hex")


def test_a_run_without_a_seed_is_secret_and_stores_no_number(tmp_path: Path) -> None:
    entrants = tuple(Entrant(n, ("true",)) for n in "abc")
    spec = TournamentSpec(Play(game="bali-2017", rating=RatingConfig()), get_format("round-robin"), entrants, 3)
    assert spec.seed is None and spec.identity()["seed"] is None
    assert TournamentSpec(Play(game="bali-2017", rating=RatingConfig()), get_format("round-robin"), entrants, 3,
                          seed=SecretSeed(KEY)).identity() \
        == spec.identity()  # the secret, once drawn, is kept in the store, not in the settings
    assert seeding(spec.identity()) == "secret" and stored_public_seed({"seed": 5}) == 5
    assert seeding({"seed": 0}) == "public (seed 0)" and stored_public_seed({"seed": True}) is None
    two = [MatchConfig(game=None, bots=()).seed for _ in range(2)]  # type: ignore[arg-type]
    assert all(isinstance(s, SecretSeed) for s in two) and two[0] != two[1]  # drawn afresh for every match
