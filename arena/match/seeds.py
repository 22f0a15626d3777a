"""Seeds: every deal and every bot seed of a run derives from one root, a secret key (the default) or a number.

A secret root is drawn from the operating system's random source and kept only in the results store. Seeds derive
from it by HMAC-SHA256 of the game's identity (a table, a deal, a seat), so that without the key no seed tells
anything about another: a seat's seed says nothing of its deal, and a game's seed nothing of any other game's.

A public root (`--seed N`) makes a run reproducible, and predictable: anyone who knows N (and the published code)
can compute every seed from it, deals included. Such a run is marked public-seeded wherever it is shown.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any, Mapping, Union

SEED_BITS = 31  # seeds fit a signed 32-bit integer in every language
KEY_BYTES = 32  # a secret root's length: as long as the hash, beyond any search
PUBLIC_NOTE = "anyone who knows the seed can compute every deal: not for a public competition"
PUBLIC_SEED_HELP = ("A public seed, for a reproducible run: every deal and bot seed derives from it, so anyone who "
                    "knows it can compute them all; such a run is marked public-seeded, not for a public "
                    "competition. Default: a secret drawn from the operating system and kept in the results store.")


@dataclass(frozen=True)
class SecretSeed:
    """A secret root (or a table's key derived from one); its repr and str never show it."""

    key: str = field(repr=False)  # KEY_BYTES bytes as hex

    def __post_init__(self) -> None:
        if len(self.key) != 2 * KEY_BYTES or not all(c in "0123456789abcdef" for c in self.key):
            raise ValueError(f"a secret seed is {KEY_BYTES} bytes of lower-case hex")

    @classmethod
    def draw(cls) -> "SecretSeed":
        """A new secret root from the operating system's random source."""
        return cls(secrets.token_hex(KEY_BYTES))

    def mac(self, *parts: object) -> bytes:
        """HMAC-SHA256 of the labels under this key."""
        return hmac.new(bytes.fromhex(self.key), _message(parts), hashlib.sha256).digest()


Seed = Union[int, SecretSeed]  # a run's root: a public number, or a secret key


def _message(parts: tuple[object, ...]) -> bytes:
    return ":".join(str(p) for p in parts).encode()


def _bits(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def derive_seed(seed: Seed, *parts: object) -> int:
    """A seed from a root and labels (table, game, seat...): stable across runs and platforms; keyed from a
    secret root, a plain SHA-256 of the labels from a public one."""
    if isinstance(seed, SecretSeed):
        return _bits(seed.mac(*parts))
    if not isinstance(seed, int):
        raise TypeError(f"a seed is a number or a SecretSeed, not {type(seed).__name__} (a tournament's secret is "
                        "drawn when the store opens it: Runner.run)")
    return _bits(hashlib.sha256(_message((seed, *parts))).digest())


def table_seed(seed: Seed, *parts: object) -> Seed:
    """A table's own root, from the run's: a key of its own from a secret root (its games' seeds are then as
    unpredictable as the run's), a number from a public one."""
    if isinstance(seed, SecretSeed):
        return SecretSeed(seed.mac("table", *parts).hex())
    return derive_seed(seed, *parts)


def chosen(public: int | None) -> Seed:
    """The public seed given, else a fresh secret."""
    return SecretSeed.draw() if public is None else public


def public_seed(seed: Seed | None) -> int | None:
    """The number a public root is, as stored and shown; None for a secret one (or one not drawn yet)."""
    return seed if isinstance(seed, int) else None


def seed_label(seed: Seed) -> str:
    """A short tag for folder names: `s` and the number of a public root, `k` and a tag keyed from a secret one
    (which tells nothing about the key)."""
    if isinstance(seed, SecretSeed):
        return f"k{_bits(seed.mac('label')):08x}"
    return f"s{seed}"


def stored_public_seed(config: Mapping[str, Any]) -> int | None:
    """A stored run's public seed (None: secret-seeded). Every run an arena before secret seeds stored has one."""
    seed = config.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def seeding(config: Mapping[str, Any]) -> str:
    """How a stored run was seeded, in a word or three: 'secret', or 'public (seed N)'."""
    seed = stored_public_seed(config)
    return "secret" if seed is None else f"public (seed {seed})"
