"""`arena serve` end to end over HTTP: an author uploads a kit bot with their token, follows it to admission, sees
it ranked, lists its games and reads its own log; nobody else can."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.tournament.worker import descendants, start_time
from tests.helpers import PATIENCE, wait_until
from tests.server.conftest import (
    ENV,
    STDERR_LINE,
    Server,
    admitted,
    kit_bot,
    slip_bot,
    start,
    stop,
    tarred,
    upload,
    zipped,
)

pytestmark = pytest.mark.slow


def test_an_uploaded_kit_bot_is_admitted_ranked_and_its_log_is_its_authors_only(server: Server,
                                                                                  tmp_path: Path) -> None:
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    _, boss = server.author("boss", organiser=True)
    sent = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot")))
    assert sent.status_code == 202, sent.text
    sid = sent.json()["id"]
    assert sent.json()["status"] == "queued"
    assert admitted(server, alice, sid), server.status(alice, sid)
    with server.client() as c:
        assert wait_until(lambda: any(r["name"] == "alicebot" for r in c.get("/api/leaderboard").json()), 120)
        row = next(r for r in c.get("/api/leaderboard").json() if r["name"] == "alicebot")
        assert row["games"] >= 1 and row["sigma"] > 0 and isinstance(row["mu"], float)
        games = c.get("/api/games", params={"bot": "alicebot"}).json()
        assert games and all(g["url"] == f"/games/{g['number']}" and "id" not in g for g in games)
        gid = games[0]["number"]  # one number per game: the list's, the pages', the published site's
        public = c.get(games[0]["url"])  # its public replay, at once: no seat's logs
        assert public.status_code == 200 and f"game {gid} of bali-2001-ladder" in public.text
        assert "thinking about" not in public.text
        assert c.get("/games/99999999999999999999999").status_code == 404
        assert c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"}).status_code == 404  # not signed in
        # The public pages, as `arena publish` makes them: the bot ranked, its games replayed, no bot's output.
        assert wait_until(lambda: "alicebot" in c.get("/site/bali-2001-ladder/index.html").text, 120)
        assert wait_until(lambda: c.get("/site/bali-2001-ladder/bots/alicebot.html").status_code == 200)
        assert "alicebot" in c.get("/").text
        assert wait_until(lambda: "Playing now: " in c.get("/").text and "alicebot" in c.get("/").text)
        assert wait_until(lambda: c.get("/site/bali-2001-ladder/games/1.html").status_code == 200)
        pages = list((server.results / "site").rglob("*.html"))
        assert not any("thinking about" in p.read_text() for p in pages)
    with server.client(alice) as c:
        log = c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"})
        assert log.status_code == 200
        assert any("thinking about" in d["log"] for d in log.json()["decisions"])
        assert c.get(f"/me/games/{gid}", params={"bot": "alicebot"}).status_code == 200
        page = c.get("/me/bots/alicebot").text  # with a link to its public page: its rating's history
        assert f'href="/me/games/{gid}?bot=alicebot">game {gid}</a>' in page
        assert 'class="public" href="/bots/alicebot"' in page
    with server.client(boss) as c:  # the organiser sees everything
        assert c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"}).status_code == 200
        assert c.get(f"/api/submissions/{sid}").json()["status"] == "admitted"
    with server.client(bob) as c:  # another author: as if there were nothing
        for path in (f"/api/games/{gid}/log?bot=alicebot", f"/me/games/{gid}?bot=alicebot", "/me/bots/alicebot",
                     f"/api/submissions/{sid}", f"/me/submissions/{sid}"):
            answer = c.get(path)
            assert answer.status_code == 404 and "thinking" not in answer.text and STDERR_LINE not in answer.text
    assert server.process.poll() is None
    # The admission's sandbox processes, and those of the waves played since, left the server no zombie to keep.
    assert wait_until(lambda: not zombies(server.process.pid), 30), zombies(server.process.pid)


def zombies(pid: int) -> list[int]:
    """The children of a process that have ended and not been reaped."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue  # the thread ended meanwhile
        for child in children:
            try:
                state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue  # reaped meanwhile
            if state == "Z":
                found.append(int(child))
    return found


def test_a_new_version_replaces_the_old_one_in_the_ladder(server: Server, tmp_path: Path) -> None:
    _, alice = server.author("alice")
    first = upload(server, alice, tarred(kit_bot(tmp_path / "alicebot")), "bot.tar.gz").json()["id"]
    assert admitted(server, alice, first)
    with server.client() as c:  # the first version in the ladder (from the wave after the samples' under way)
        assert wait_until(lambda: any(r["name"] == "alicebot" for r in c.get("/api/leaderboard").json()), 300)
    manifest = tmp_path / "alicebot" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1"', 'version = "0.2"'))
    second = upload(server, alice, zipped(tmp_path / "alicebot", top=True)).json()["id"]
    assert admitted(server, alice, second)
    with server.client() as c:
        # From the next wave (the one under way may take its WAVE_SECONDS on a busy machine, then its pages).
        assert wait_until(lambda: any(r["name"].startswith("alicebot@0.2") for r in c.get("/api/leaderboard")
                                      .json()), 300)
        wait_until(lambda: not any(r["name"] == "alicebot" for r in c.get("/api/leaderboard").json()), 60)
        names = [r["name"] for r in c.get("/api/leaderboard").json()]
    assert "alicebot" not in names and sum(n.startswith("alicebot") for n in names) == 1


def test_one_server_per_store_and_a_restart_loses_and_doubles_nothing(server: Server, tmp_path: Path) -> None:
    _, alice = server.author("alice")
    sid = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot"))).json()["id"]
    second = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--results",
                             str(server.results)], env=ENV, capture_output=True, text=True,
                            timeout=5 * PATIENCE)  # a whole start (imports) on a busy machine
    assert second.returncode == 1 and "already served by another arena serve" in second.stderr
    assert second.stdout == "" and "Traceback" not in second.stderr
    assert admitted(server, alice, sid)
    assert wait_until(lambda: _games(server) >= 3, 120)
    assert stop(server.process) == 130  # Ctrl-C in the middle of the season
    before = _games(server)
    process, url = start(server.results)
    try:
        restarted = Server(url, server.results, process)
        assert restarted.status(alice, sid)["status"] == "admitted"
        assert wait_until(lambda: _games(restarted) > before, 120)
        with sqlite3.connect(server.results / "arena.sqlite") as db:
            seqs = [r[0] for r in db.execute("SELECT seq FROM games ORDER BY seq")]
            assert len(seqs) == len(set(seqs))  # none played twice
            assert db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 1
    finally:
        stop(process)


def _games(server: Server) -> int:
    with sqlite3.connect(server.results / "arena.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]


def test_a_bot_that_faults_game_after_game_sits_out_with_a_notice(tmp_path: Path) -> None:
    results = tmp_path / "results"
    process, url = start(results, "--pause-after", "2", "--wave", "1", "--seats", "4")
    server = Server(url, results, process)
    try:
        _, alice = server.author("alice")
        _, bob = server.author("bob")
        faulty = kit_bot(tmp_path / "faulty")
        bot = faulty / "bot.py"
        # Clean in its admission game (the game's fewest seats, 3), illegal at every decision of the 4-seat ladder.
        bot.write_text(bot.read_text().replace(
            'reply(request, "action", index=index)',
            'reply(request, "action", index=len(options) + 7 if request["view"]["num_players"] == 4 else index)'))
        assert admitted(server, alice, upload(server, alice, zipped(faulty)).json()["id"])
        assert admitted(server, bob, upload(server, bob, zipped(kit_bot(tmp_path / "steady"))).json()["id"])
        with server.client(alice) as c:
            assert wait_until(lambda: 'id="paused"' in c.get("/me/bots/faulty").text, 180)
            page = c.get("/me/bots/faulty").text
            assert "each of its last 2 games had a fault" in page
            link = page.split('class="fault"\nhref="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
            assert "#step=" in link and c.get(link.split("#")[0]).status_code == 200  # a link to the moment
            log = page.split('class="log" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
            assert any(d["fault"] == "illegal" for d in c.get(log).json()["decisions"])
        with server.client(bob) as c:
            assert 'id="paused"' not in c.get("/me/bots/steady").text

        def played(bot: str) -> int:
            return len(server.client().get("/api/games", params={"bot": bot}).json())

        counts = []
        for _ in range(2):  # past two wave boundaries: the one under way at the notice may still seat it
            steady = played("steady")
            assert wait_until(lambda: played("steady") >= steady + 4, 180)
            counts.append(played("faulty"))
        assert counts[0] == counts[1]
    finally:
        stop(process)


def test_twenty_authors_upload_at_once_while_games_play(server: Server, tmp_path: Path) -> None:
    _, first = server.author("first")
    assert admitted(server, first, upload(server, first, zipped(kit_bot(tmp_path / "firstbot"))).json()["id"])
    assert wait_until(lambda: _games(server) >= 1, 120)
    tokens = [server.author(f"author{i}")[1] for i in range(20)]
    archives = [zipped(kit_bot(tmp_path / f"bot{i}")) for i in range(20)]
    before = _games(server)
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda i: upload(server, tokens[i], archives[i]), range(20)))
    assert [a.status_code for a in answers] == [202] * 20
    ids = [a.json()["id"] for a in answers]
    assert len(set(ids)) == 20
    with sqlite3.connect(server.results / "arena.sqlite") as db:
        rows = db.execute("SELECT a.name, s.bot, s.folder FROM submissions s JOIN authors a ON a.id = s.author_id "
                          "WHERE s.id IN (%s)" % ",".join("?" * 20), ids).fetchall()
    assert sorted((a, b) for a, b, _ in rows) == sorted((f"author{i}", f"bot{i}") for i in range(20))
    assert len({folder for *_, folder in rows}) == 20
    # A folder is kept relative to the store's folder (absolute only outside it).
    assert all((server.results / folder / "manifest.toml").is_file() for *_, folder in rows)
    assert wait_until(lambda: _games(server) > before, 120)  # the ladder plays on
    assert admitted(server, tokens[0], ids[0])


def test_the_sample_bots_play_before_the_first_admission(server: Server) -> None:
    with server.client() as c:
        assert wait_until(lambda: len(c.get("/api/leaderboard").json()) >= 3, 180)
        rows = c.get("/api/leaderboard").json()
    assert all(r["games"] >= 1 and r["sigma"] > 0 for r in rows)
    assert {r["bot"].split("-")[0] for r in rows} <= {"heuristic_bot", "random_bot"}


def test_the_organiser_s_own_folders_are_admitted_once_across_restarts(tmp_path: Path) -> None:
    entries = tmp_path / "entries"
    kit_bot(entries / "housebot")
    broken = kit_bot(entries / "broken")
    (broken / "manifest.toml").write_text('name = "broken"\n')
    results = tmp_path / "results"
    for run in range(2):
        log = tmp_path / f"serve{run}.log"
        with open(log, "w") as err:
            process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs",
                                        "1", "--results", str(results), "--submissions", str(entries)], env=ENV,
                                       stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            line = process.stdout.readline()  # type: ignore[union-attr]
            assert line.startswith("serving on http://127.0.0.1:"), line
            server = Server(line.split()[-1], results, process)
            with server.client() as c:
                assert wait_until(lambda: any(r["name"] == "housebot" for r in c.get("/api/leaderboard").json()),
                                  180)
        finally:
            stop(process)  # how a stop ends is test_one_server_per_store_and_a_restart_loses_and_doubles_nothing's
        said = log.read_text()
        assert "not entered: entries/broken: manifest.toml" in said and "Traceback" not in said
    with sqlite3.connect(results / "arena.sqlite") as db:
        rows = db.execute("SELECT a.name, a.organiser, s.bot, s.status, s.folder FROM submissions s JOIN authors a "
                          "ON a.id = s.author_id").fetchall()
    assert rows == [("organiser", 1, "housebot", "admitted", str((entries / "housebot").resolve()))]


def test_a_missing_submissions_folder_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--results",
                           str(tmp_path / "results"), "--submissions", str(tmp_path / "nowhere")], env=ENV,
                          capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 2 and "does not exist" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_ctrl_c_with_a_ladder_game_under_way_cuts_it_off_and_leaves_the_store_whole(tmp_path: Path) -> None:
    # A bot that never answers at a 4-seat table (the ladder's here), while it plays its admission game (3 seats)
    # through: with an hour per decision, its ladder game can only end by being cut off.
    entries = tmp_path / "entries"
    bot = kit_bot(entries / "hangbot") / "bot.py"
    bot.write_text(bot.read_text().replace('            rng = random.Random(request["seed"])\n',
                                           '            rng = random.Random(request["seed"])\n'
                                           '            if request["num_players"] == 4:\n'
                                           '                import time\n'
                                           '                time.sleep(3600)\n'))
    results = tmp_path / "results"
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "1",
                                    "--seats", "4", "--timeout", "3600", "--init-timeout", "3600", "--results",
                                    str(results), "--submissions", str(entries)], env=ENV, stdout=subprocess.PIPE,
                                   stderr=err, text=True)
    try:
        assert process.stdout.readline().startswith("serving on http://127.0.0.1:")  # type: ignore[union-attr]
        assert wait_until(lambda: _statuses(results) == ["admitted"], 300), _statuses(results)
        assert wait_until(lambda: _hanging(process.pid), 300)  # seated in the ladder, its game under way
        below = descendants(process.pid)
    finally:
        status = stop(process)
    assert status == 130
    assert wait_until(lambda: not any(_running(pid, started) for pid, started in below)), "left running"
    assert "Traceback" not in log.read_text()
    assert "leaked semaphore" not in log.read_text() and "Warning" not in log.read_text(), log.read_text()[-2000:]
    with sqlite3.connect(results / "arena.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        seqs = [r[0] for r in db.execute("SELECT seq FROM games ORDER BY seq")]
        assert len(seqs) == len(set(seqs))
        # Its game was cut off, not finished or failed: nothing of it is stored, and a restart plays it again.
        assert db.execute("SELECT COUNT(*) FROM seats WHERE name LIKE 'hangbot%'").fetchone()[0] == 0


def _statuses(results: Path) -> list[str]:
    with sqlite3.connect(results / "arena.sqlite") as db:
        return [r[0] for r in db.execute("SELECT status FROM submissions")]


def _hanging(server: int) -> bool:
    """True once the bot's process runs below the server with its admission over: at a ladder table."""
    for pid, _ in descendants(server):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:2] == [b"python3", b"bot.py"]:
                return True
        except OSError:
            continue
    return False


def _running(pid: int, started: int | None) -> bool:
    """Whether the process seen as (pid, started) still runs: a zombie has ended (killed processes whose parent died
    go to the nearest subreaper, which a test process that ran matches in-process is, and it never reaps them)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z" and start_time(pid) == started


def test_a_fault_in_the_first_game_refuses_the_bot_with_a_link_to_that_decision_in_its_own_replay(
        server: Server, tmp_path: Path) -> None:
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    slip = slip_bot(tmp_path / "slipbot")
    sid = upload(server, alice, zipped(slip)).json()["id"]
    assert not admitted(server, alice, sid)
    shown = server.status(alice, sid)
    assert "failed its first game" in shown["reason"], shown
    decision = int(re.search(r"decision #(\d+)", shown["reason"]).group(1))
    assert shown["replay"].startswith(f"/me/submissions/{sid}/game#step={decision}&seat="), shown
    page, _ = shown["replay"].split("#")
    with server.client(alice) as c:
        replay = c.get(page)
        assert replay.status_code == 200 and "thinking about" in replay.text  # her bot's stderr beside its moves
        assert "slipping in bot.py" in replay.text  # its path from its folder, as its author knows it
        assert str(server.results) not in replay.text and "upload-" not in replay.text
        assert f'href="{shown["replay"].replace("&", "&amp;")}"' in c.get(f"/me/submissions/{sid}").text
    with server.client(bob) as c:
        assert c.get(page).status_code == 404 and c.get(f"/api/submissions/{sid}").status_code == 404
    with server.client() as c:
        assert c.get(page).status_code == 404
    # An admitted upload has no such link: its first game is not kept.
    good = upload(server, bob, zipped(kit_bot(tmp_path / "bobbot"))).json()["id"]
    assert admitted(server, bob, good) and server.status(bob, good)["replay"] is None
    with server.client(bob) as c:
        assert c.get(f"/me/submissions/{good}/game").status_code == 404
