"""The season's end: `arena rerate --final` re-rates every stored game with the dynamics factor off, and every
leaderboard (table, markdown, csv, json, the site's page) shows the chance each bot is truly above the next."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest
from scipy.stats import norm

from tests.helpers import arena, bots


def _stored(db: Path) -> dict[str, tuple[float, float]]:
    with sqlite3.connect(db) as con:
        return {name: (mu, sigma) for name, mu, sigma in con.execute("SELECT name, mu, sigma FROM ratings")}


@pytest.mark.slow
def test_a_final_rerate_and_the_rank_uncertainty_on_every_leaderboard(tmp_path: Path) -> None:
    played = arena("tournament", "bali-2017", *bots(4), "--seats", "2", "--jobs", "1", "--name", "cup", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    db = tmp_path / "results" / "arena.sqlite"
    running = _stored(db)
    final = arena("rerate", "--final", cwd=tmp_path)
    assert final.returncode == 0, final.stderr
    assert final.stdout.splitlines()[0] == "cup: 12 games rated with tau 0 (final), 4 bots"
    assert final.stdout.splitlines()[1].split() == ["bot", "conservative", "mu", "sigma", "p_above_next"]
    settled = _stored(db)
    assert settled.keys() == running.keys()
    assert all(settled[b][1] < running[b][1] for b in settled)  # no dynamics: every sigma only comes down

    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)["ranking"]
    assert [(r["mu"], r["sigma"]) for r in board] == [settled[r["bot"]] for r in board]  # the final ratings shown
    for upper, lower in zip(board, board[1:]):
        expected = norm.cdf((upper["mu"] - lower["mu"]) / (upper["sigma"] ** 2 + lower["sigma"] ** 2) ** 0.5)
        assert upper["p_above_next"] == pytest.approx(expected)
    assert board[-1]["p_above_next"] is None
    rows = list(csv.DictReader(io.StringIO(arena("leaderboard", "--format", "csv", cwd=tmp_path).stdout)))
    assert [float(r["p_above_next"]) for r in rows[:-1]] == pytest.approx([r["p_above_next"] for r in board[:-1]])
    table = arena("leaderboard", cwd=tmp_path).stdout
    assert "p_above_next" in table.splitlines()[2]
    assert f"{round(board[0]['p_above_next'], 2)}" in table.splitlines()[4]

    assert arena("publish", "-o", "site", cwd=tmp_path).returncode == 0
    page = (tmp_path / "site" / "cup" / "index.html").read_text()
    assert "P(above next)" in page
    shown = [re.findall(r"<td>([^<]*)</td>", row)[-1] for row in re.findall(r"<tr data-bot=.*?</tr>", page, re.S)]
    assert len(shown) == 4 and shown[-1] == "–"  # the last bot has no next
    assert all(re.fullmatch(r"[01]\.\d\d", p) for p in shown[:-1]), shown
    assert "Final ranking:" in page  # the site says its ranking is the season's end re-rating
    cells = [re.findall(r"<td>([^<]*)</td>", row) for row in re.findall(r"<tr data-bot=.*?</tr>", page, re.S)]
    bots_shown = re.findall(r'<tr data-bot="([^"]+)"', page)
    assert bots_shown == [r["bot"] for r in board]  # the site ranks as the leaderboard does, on the final ratings
    for bot, row in zip(bots_shown, cells):
        assert [float(row[2]), float(row[3])] == [round(settled[bot][0], 2), round(settled[bot][1], 2)]

    assert arena("rerate", cwd=tmp_path).returncode == 0  # a plain rerate replaces the final ratings
    assert arena("publish", "-o", "site", cwd=tmp_path).returncode == 0
    page = (tmp_path / "site" / "cup" / "index.html").read_text()
    assert "Final ranking:" not in page
    again = _stored(db)
    assert {b: again[b] == pytest.approx(running[b]) for b in running} == dict.fromkeys(running, True)
