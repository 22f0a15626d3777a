"""The static competition site, from a real tournament's store."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.site import PublishReport, build, leaderboard_page, publish, tournament_data
from arena.storage import Store

RANDOM = f"{sys.executable} -m sample_bots.random_bot"
HEURISTIC = f"{sys.executable} -m sample_bots.heuristic_bot"


def _tournament(cwd: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", *args, "--jobs", "1"], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with one small round-robin of bali-2017 (a heuristic bot and two random bots)."""
    root = tmp_path_factory.mktemp("site")
    _tournament(root, "bali-2017", f"h={HEURISTIC}", f"a={RANDOM}", f"b={RANDOM}", "--seats", "3", "--rounds", "2",
                "--name", "cup")
    return root / "results"


def _publish(results: Path, out: Path, *names: str) -> PublishReport:
    with Store(results / "arena.sqlite") as store:
        return publish(store, results, out, names, title="Test cup")


@pytest.fixture(scope="module")
def site(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store's site, published once."""
    out = tmp_path_factory.mktemp("published") / "site"
    assert _publish(results, out).problems == []
    return out


@pytest.mark.slow
def test_the_site_has_an_index_a_leaderboard_and_a_page_per_bot(site: Path) -> None:
    index = (site / "index.html").read_text()
    assert 'href="cup/index.html"' in index and "Test cup" in index
    board = (site / "cup" / "index.html").read_text()
    for bot in ("h", "a", "b"):
        assert f'href="bots/{bot}.html"' in board
        page = (site / "cup" / "bots" / f"{bot}.html").read_text()
        assert "Recent games" in page and "Faults" in page
    assert 'name="viewport"' in board and board.count("<svg") == 3
    assert "sandbox" in board.lower()


def test_the_ranking_is_the_stores(results: Path, site: Path) -> None:
    board = (site / "cup" / "index.html").read_text()
    with Store(results / "arena.sqlite") as store:
        data = tournament_data(store, store.tournament("cup"))
        stored = store.stored_ratings(data.tournament.id)
    shown = re.findall(r'<tr data-bot="([^"]+)"><td>(\d+)</td>', board)
    assert [name for name, _ in shown] == [r.bot for r in data.board.rows]
    assert [int(rank) for _, rank in shown] == [1, 2, 3]
    ordered = sorted(stored, key=lambda n: -(stored[n][0] - 3 * stored[n][1]))
    assert [name for name, _ in shown] == ordered
    for row in data.board.rows:
        assert f"{row.mu:.2f}" in board and f"{row.sigma:.2f}" in board


def test_republishing_unchanged_rewrites_nothing(results: Path, site: Path, tmp_path: Path) -> None:
    shutil.copytree(site, tmp_path / "site")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "site").rglob("*") if p.is_file()}
    again = _publish(results, tmp_path / "site")
    assert again.written == 0 and again.unchanged == 7  # index, leaderboard, game list, 3 bot pages, state
    assert before == {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "site").rglob("*")
                      if p.is_file()}


@pytest.mark.slow
def test_a_new_tournament_adds_pages_and_leaves_the_others_alone(results: Path, site: Path, tmp_path: Path) -> None:
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    shutil.copytree(site, tmp_path / "site")
    cup = {p: p.stat().st_mtime_ns for p in (tmp_path / "site" / "cup").rglob("*.html")}
    _tournament(tmp_path, "bali-2017", f"x={RANDOM}", f"y={RANDOM}", "--seats", "2", "--name", "second")
    report = _publish(copy, tmp_path / "site")
    assert (tmp_path / "site" / "second" / "index.html").is_file()
    assert 'href="second/index.html"' in (tmp_path / "site" / "index.html").read_text()
    assert cup == {p: p.stat().st_mtime_ns for p in (tmp_path / "site" / "cup").rglob("*.html")}
    assert report.written == 1 + 1 + 1 + 2 + 1  # index, new leaderboard, its game list, 2 bot pages, state


def test_an_unknown_tournament_lists_the_known_ones(results: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no tournament 'nope'.*the tournaments there: cup"):
        _publish(results, tmp_path / "site", "nope")
    assert not (tmp_path / "site").exists()


def test_the_standalone_leaderboard_is_one_page_with_escaped_text(results: Path) -> None:
    with Store(results / "arena.sqlite") as store:
        data = tournament_data(store, store.tournament("cup"))
    page = leaderboard_page(dataclasses.replace(data, title="Finals & <more>"))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Finals &amp; &lt;more&gt;" in page and "<more>" not in page
    assert 'href="bots/' not in page and 'href="../' not in page  # nothing to link to on its own
    assert page.count('<tr data-bot="') == 3 and page.count("<svg") == 3


def test_arena_leaderboard_html_writes_that_page(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "board.html"
    done = subprocess.run([sys.executable, "-m", "arena", "leaderboard", "-t", "cup", "--format", "html", "-o",
                           str(out), "--results", str(results)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert 'name="viewport"' in page and "round-robin" in page and page.count('<tr data-bot="') == 3


@pytest.mark.slow
def test_arena_publish_writes_the_site_with_a_replay_page_per_game(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "arena", "publish", "-o", str(out), "--results", str(results),
                           "--title", "Cup"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Store(results / "arena.sqlite") as store:
        ids = [g.id for g in store.games(store.tournament("cup").id)]
    assert sorted(int(p.stem) for p in (out / "cup" / "games").glob("*.html")) == sorted(ids)
    board = (out / "cup" / "index.html").read_text()
    assert all(f'href="games/{i}.html"' in board for i in ids)
    # Every game page links to one shared copy of the viewer, the engine that re-plays its record (the generator,
    # the engines' core, the game's fixed facts, made from its Python modules, and its rules) and the game's board.
    page = (out / "cup" / "games" / f"{ids[0]}.html").read_text()
    linked = re.findall(r'(?:src|href)="\.\./\.\./assets/([^"]+)"', page)
    assert linked == ["viewer.css", "engines/rng.js", "engines/base.js", "engines/bali2017.facts.js",
                      "engines/bali2017.js", "boards/bali2017.js", "viewer.js"]
    assert all((out / "assets" / name).is_file() for name in linked)
    assert re.search(rf"game pages: {len(ids)}/{len(ids)} \(100%\)", done.stderr)  # progress, as plain lines
    again = subprocess.run([sys.executable, "-m", "arena", "publish", "-o", str(out), "--results", str(results),
                            "--title", "Cup"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "0 files written" in again.stdout
    unknown = subprocess.run([sys.executable, "-m", "arena", "publish", "-o", str(tmp_path / "x"), "--results",
                              str(results), "-t", "nope"], capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and "the tournaments there: cup" in unknown.stderr
    assert "Traceback" not in unknown.stderr and not (tmp_path / "x").exists()


def test_every_game_is_listed_on_numbered_pages(results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "GAMES_PER_LIST", 4)
    _publish(results, tmp_path / "site")
    with Store(results / "arena.sqlite") as store:
        games = store.games(store.tournament("cup").id)
    lists = sorted((tmp_path / "site" / "cup").glob("games-*.html"))
    assert [p.name for p in lists] == ["games-1.html", "games-2.html"]  # 6 games, 4 to a page
    board = (tmp_path / "site" / "cup" / "index.html").read_text()
    assert 'href="games-1.html">1–4</a>' in board and 'href="games-2.html">5–6</a>' in board
    listed = [re.findall(r'href="games/(\d+)\.html"', p.read_text()) for p in lists]
    assert listed == [[str(g.id) for g in games[:4]], [str(g.id) for g in games[4:]]]
    assert "<strong>5–6</strong>" in lists[1].read_text()  # the page itself, not a link


def test_game_pages_made_by_worker_processes_are_those_made_in_process(results: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "PARALLEL_FROM", 1)  # workers even for a handful of pages
    with Store(results / "arena.sqlite") as store:
        parallel = publish(store, results, tmp_path / "parallel", game_pages=True, jobs=2)
        serial = publish(store, results, tmp_path / "serial", game_pages=True, jobs=1)
    assert parallel.problems == serial.problems == [] and parallel.written == serial.written
    pages = sorted(p.relative_to(tmp_path / "parallel") for p in (tmp_path / "parallel").rglob("games/*.html"))
    assert len(pages) == 6
    assert all((tmp_path / "parallel" / p).read_bytes() == (tmp_path / "serial" / p).read_bytes() for p in pages)


@pytest.mark.parametrize("names", [("plainbot-0.3-12", "plainbot@0.3#12", "plainbot~400.3~2312"),
                                   ("dotbot.", "dotbot", "~2edotbot", ".dotbot"), ("a/b", "a-b", "a~2fb")])
def test_page_names_are_one_to_one(names: tuple[str, ...]) -> None:
    from arena.site.data import SLUG_SAFE, slug

    pages = [slug(n) for n in names]
    assert len(set(pages)) == len(pages), pages
    assert all(SLUG_SAFE.match(c) or c == "~" for page in pages for c in page) and not any(
        page.startswith(".") for page in pages)


@pytest.mark.slow
def test_two_entrants_whose_names_once_shared_a_page_get_a_page_each(tmp_path: Path) -> None:
    bot = f"{sys.executable} -m sample_bots.random_bot"
    run = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", f"dotbot={bot}", f"dotbot.={bot}",
                          "--seats", "2", "--rounds", "1", "--jobs", "1", "--name", "cup"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    site = subprocess.run([sys.executable, "-m", "arena", "publish", "-o", "site", "--no-games"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert site.returncode == 0, site.stderr
    pages = {p.name: p.read_text() for p in (tmp_path / "site" / "cup" / "bots").glob("*.html")}
    assert sorted(pages) == ["dotbot..html", "dotbot.html"]
    assert "<h1>dotbot.</h1>" in pages["dotbot..html"] or "dotbot." in pages["dotbot..html"].split("</h1>")[0]
    board = (tmp_path / "site" / "cup" / "index.html").read_text()
    assert 'href="bots/dotbot.html"' in board and 'href="bots/dotbot..html"' in board
