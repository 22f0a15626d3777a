"""What a sandbox shows a bot is decided by path containment (arena/bots/sandbox/paths.py): `within` must say
exactly what pathlib's is_relative_to says, for every pair, or a folder would be shown or covered wrongly."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from arena.bots.sandbox.paths import outermost, within


@pytest.mark.parametrize(("path", "folder", "inside"), [
    ("/a/b", "/a/b", True),
    ("/a/b/c", "/a/b", True),
    ("/a/bc", "/a/b", False),  # a common prefix of characters is no common folder
    ("/a/b", "/a/b/c", False),
    ("/a", "/", True),
    ("/", "/a", False),
    ("/x/y", "/a", False),
    ("a/b", "a", True),
    ("a", "/a", False),
    ("/a", "a", False),
])
def test_within_is_containment_by_whole_names(path: str, folder: str, inside: bool) -> None:
    assert within(Path(path), Path(folder)) is inside
    assert Path(path).is_relative_to(Path(folder)) is inside


def _paths(rng: random.Random, count: int) -> list[Path]:
    names = ["a", "b", "ab", "a.b", "b-a"]
    return [Path("/", *rng.choices(names, k=rng.randint(0, 4))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(5))
def test_within_and_outermost_agree_with_pathlib(seed: int) -> None:
    paths = _paths(random.Random(seed), 40)
    for path, folder in itertools.product(paths, repeat=2):
        assert within(path, folder) == path.is_relative_to(folder), (path, folder)
    chosen = sorted(set(paths))
    assert outermost(chosen) == [p for p in chosen if not any(p != q and p.is_relative_to(q) for q in chosen)]
