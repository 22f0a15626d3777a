"""`arena leaderboard --rivals BOT`: a bot head to head with each rival, checked against the store's own rows."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import arena, bots


def expected_rivals(db: Path, tournament: str, bot: str) -> dict[str, dict[str, Any]]:
    """The head-to-head figures worked out in Python from the seats of the finished games."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT g.id, s.seat, s.name, s.score, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
                           "JOIN tournaments t ON t.id = g.tournament_id WHERE t.name = ? AND g.status = 'done'",
                           (tournament,)).fetchall()
    games: dict[int, list[tuple[int, str, int, int]]] = {}
    for gid, seat, name, score, rank in rows:
        games.setdefault(gid, []).append((seat, name, score, rank))
    out: dict[str, dict[str, Any]] = {}
    for seats in games.values():
        mine = [s for s in seats if s[1] == bot]
        if not mine:
            continue
        seat, _, score, rank = mine[0]
        for _, rival, rival_score, rival_rank in seats:
            if rival == bot:
                continue
            for key in (rival, (rival, seat)):
                r = out.setdefault(key, {"games": 0, "ahead": 0, "behind": 0, "level": 0, "scores": [], "theirs": []})
                r["games"] += 1
                r["ahead" if rank < rival_rank else "behind" if rank > rival_rank else "level"] += 1
                r["scores"].append(score)
                r["theirs"].append(rival_score)
    return out


@pytest.mark.slow
def test_rivals_agree_with_the_stores_rows(tmp_path: Path) -> None:
    played = arena("tournament", "bali-2017", *bots(4), "--seats", "3", "--rounds", "2", "--jobs", "1",
                   "--name", "cup", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    db = tmp_path / "results" / "arena.sqlite"
    r = arena("leaderboard", "-t", "cup", "--rivals", "r0", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout)
    expected = expected_rivals(db, "cup", "r0")
    assert isinstance(found, list) and sorted(x["rival"] for x in found) == ["r1", "r2", "r3"]
    assert [x["games"] for x in found] == sorted((x["games"] for x in found), reverse=True)
    for x in found:
        e = expected[x["rival"]]
        assert {k: x[k] for k in ("games", "ahead", "behind", "level")} == \
            {k: e[k] for k in ("games", "ahead", "behind", "level")}
        assert x["ahead"] + x["behind"] + x["level"] == x["games"] > 0
        assert x["mean_score"] == pytest.approx(sum(e["scores"]) / len(e["scores"]))
        assert x["rival_mean_score"] == pytest.approx(sum(e["theirs"]) / len(e["theirs"]))
        assert sum(s["games"] for s in x["by_seat"]) == x["games"]
        for s in x["by_seat"]:
            es = expected[(x["rival"], s["seat"])]
            assert (s["games"], s["ahead"], s["behind"], s["level"]) == (es["games"], es["ahead"], es["behind"],
                                                                         es["level"])
            assert s["mean_score"] == pytest.approx(sum(es["scores"]) / len(es["scores"]))

    rows = list(csv.DictReader(io.StringIO(arena("leaderboard", "--rivals", "r0", "--format", "csv",
                                                 cwd=tmp_path).stdout)))
    assert {(row["rival"], int(row["games"])) for row in rows if not row["seat"]} == \
        {(x["rival"], x["games"]) for x in found}
    table = arena("leaderboard", "--rivals", "r0", cwd=tmp_path)
    assert table.returncode == 0 and "r0 head to head" in table.stdout and "seat 0" in table.stdout

    for args, said in ((("--rivals", "nobody"), "no bot named 'nobody'"),
                       (("--rivals", "r0", "--format", "html"), "--rivals is written as")):
        bad = arena("leaderboard", *args, cwd=tmp_path)
        assert bad.returncode == 2 and said in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
