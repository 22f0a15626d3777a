"""Session and availability attacks on `arena serve` that once got through: login CSRF, a session that outlived
sign-out, one code signing in many times, codes in the access log, a stranger signing up as the organiser,
guessed tokens costing a slow hash each, spoofed proxy headers, oversized headers, slow connections from one
address, and ids too large for the store. A real server on a free port, real sockets."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.helpers import PATIENCE, ROOT, arena, wait_until
from tests.server.conftest import ENV, Server, start, stop

pytestmark = pytest.mark.slow


@pytest.fixture
def logged(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    """A server that plays nothing, its stderr (the access log) kept in a file."""
    results, log = tmp_path / "results", tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--no-play",
                                    "--results", str(results)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                   stderr=err, text=True)
    url = process.stdout.readline().split()[-1]  # type: ignore[union-attr]
    yield Server(url, results, process), log
    stop(process)


def _signin(server: Server, code: str, origin: str | None = None) -> httpx.Response:
    headers = {"Origin": origin} if origin else {}
    with server.client() as c:
        return c.post("/signin", data={"code": code}, headers=headers)


def test_a_session_ends_at_sign_out_and_the_old_cookie_opens_nothing(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    code, _ = server.author("rae")
    answer = _signin(server, code)
    assert answer.status_code == 303
    cookie = answer.cookies["arena_session"]
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookie}, timeout=PATIENCE) as c:
        page = c.get("/me")
        assert page.status_code == 200 and "rae" in page.text
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert c.post("/signout", data={"csrf": csrf}).status_code == 303
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookie}, timeout=PATIENCE) as c:
        again = c.get("/me")
    assert again.status_code == 401 and "Your session has ended" in again.text and "/signin" in again.text


def test_a_sign_in_form_from_another_site_signs_nobody_in(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    code, _ = server.author("sam")
    forged = _signin(server, code, origin="https://evil.example")
    assert forged.status_code == 403 and "arena_session" not in forged.cookies
    with server.client() as c:
        assert c.post("/join", data={"code": "1.x", "name": "eve"},
                      headers={"Origin": "https://evil.example"}).status_code == 403
    assert _signin(server, code, origin=server.url).status_code == 303  # the code was not spent by the forgery


def test_one_code_sent_eight_times_at_once_signs_in_once(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    code, _ = server.author("tia")
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: _signin(server, code), range(8)))
    assert sorted(a.status_code for a in answers) == [303] + [403] * 7


def test_codes_stay_out_of_the_access_log(logged: tuple[Server, Path]) -> None:
    server, log = logged
    code, _ = server.author("uma")
    with server.client() as c:
        assert c.get(f"/signin/{code}").status_code == 200
        c.get("/join/1.someinvitecode")
    assert wait_until(lambda: "/signin/[hidden]" in log.read_text() and "/join/[hidden]" in log.read_text())
    assert code not in log.read_text() and "someinvitecode" not in log.read_text()


@pytest.mark.parametrize("name", ["organiser", "Organiser", "random_bot", "heuristic_bot"])
def test_reserved_names_are_refused_at_sign_up_and_the_organisers_folders_still_start(tmp_path: Path,
                                                                                      name: str) -> None:
    results = tmp_path / "results"
    code = arena("authors", "invite", "--results", str(results), cwd=tmp_path).stdout.splitlines()[-1]
    process, url = start(results, "--no-play")
    try:
        with httpx.Client(base_url=url, timeout=PATIENCE) as c:
            answer = c.post("/join", data={"code": code, "name": name})
        assert answer.status_code == 409 and "reserved" in answer.text
    finally:
        stop(process)
    entries = tmp_path / "entries"
    (entries / "house").mkdir(parents=True)
    (entries / "house" / "manifest.toml").write_text(
        f'name = "house"\nversion = "1"\ncommand = "{sys.executable} -m sample_bots.random_bot"\n')
    process, url = start(results, "--no-play", "--submissions", str(entries))
    assert stop(process) == 130


def test_sign_in_by_link_or_token_after_sign_out_and_a_rotated_token(tmp_path: Path) -> None:
    results = tmp_path / "results"
    process, url = start(results, "--no-play")
    server = Server(url, results, process)
    try:
        added = arena("authors", "add", "vic", "--results", str(results), cwd=tmp_path).stdout.splitlines()
        assert added[0].split(": ", 1)[1].startswith(f"{url}/signin/")  # the server's own address, not port 8000
        token = added[-1]
        link = arena("authors", "link", "vic", "--results", str(results), cwd=tmp_path).stdout.splitlines()[-1]
        assert link.startswith(f"{url}/signin/")
        with server.client() as c:
            answer = c.post("/signin", data={"code": link.rsplit("/", 1)[1]})
            assert answer.status_code == 303
            by_token = c.post("/signin", data={"token": token})
            assert by_token.status_code == 303
            c.cookies.set("arena_session", by_token.cookies["arena_session"])
            assert c.get("/me").status_code == 200
        new = arena("authors", "token", "vic", "--results", str(results), cwd=tmp_path).stdout.splitlines()[-1]
        assert new != token
        with server.client(token) as c:
            assert c.get("/api/submissions/1").status_code == 401  # the old token is gone
        with server.client(new) as c:
            assert c.get("/api/submissions/1").status_code == 404
        assert arena("authors", "revoke", "vic", "--results", str(results), cwd=tmp_path).returncode == 0
        refused = arena("authors", "link", "vic", "--results", str(results), cwd=tmp_path)
        assert refused.returncode == 2 and "arena authors restore vic" in refused.stderr
        restored = arena("authors", "restore", "vic", "--results", str(results), cwd=tmp_path).stdout.splitlines()
        with server.client(restored[-1]) as c:
            assert c.get("/api/submissions/1").status_code == 404
    finally:
        stop(process)


def test_guessed_tokens_are_cut_off_per_address_before_any_slow_hash(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    _, token = server.author("wes")
    author_id = token.split(".", 1)[0]
    with server.client() as c:
        codes = [c.get("/api/submissions/1", headers={"Authorization": f"Bearer {author_id}.guess{i}"}).status_code
                 for i in range(25)]
    assert codes[:20] == [401] * 20 and codes[20:] == [429] * 5
    with server.client(token) as c:  # another address is not held up (the same one waits out its minute)
        assert c.get("/health").status_code == 200


def test_forwarded_headers_are_not_believed_without_proxy(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    with server.client() as c:  # five streams "from five addresses" are five from this one: the fifth is refused
        streams = [c.stream("GET", "/events/leaderboard", headers={"X-Forwarded-For": f"10.0.0.{i}"})
                   for i in range(5)]
        opened = [s.__enter__() for s in streams]
        try:
            assert [r.status_code for r in opened] == [200] * 4 + [429]
        finally:
            for s in streams:
                s.__exit__(None, None, None)


def test_oversized_headers_and_out_of_range_ids_are_answered_as_such(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    with server.client() as c:
        big = {f"x-filler-{i}": "y" * 1000 for i in range(100)}
        assert c.get("/health", headers=big).status_code == 431
        for path in ("/api/submissions/99999999999999999999999", "/games/99999999999999999999999",
                     "/me/submissions/99999999999999999999999"):
            assert c.get(path).status_code in (401, 404), path


def test_slow_connections_from_one_address_leave_the_server_to_everyone_else(logged: tuple[Server, Path]) -> None:
    server, _ = logged
    host, port = server.url.split("//", 1)[1].split(":")
    held = []
    try:
        for _ in range(210):  # each sends part of a request's headers and nothing more
            s = socket.create_connection((host, int(port)), timeout=PATIENCE, source_address=("127.0.0.1", 0))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.url, transport=transport, timeout=PATIENCE) as other:
            assert other.get("/health").status_code == 200
        started = time.monotonic()
        # The slow ones are closed once their headers are late, without a word from them.
        assert wait_until(lambda: all(_closed(s) for s in held[:32]), 30), time.monotonic() - started
    finally:
        for s in held:
            s.close()


def _closed(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_a_refusal_and_its_build_log_name_no_path_of_the_server(logged: tuple[Server, Path], tmp_path: Path) -> None:
    server, log = logged
    _, token = server.author("xia")
    from tests.server.conftest import kit_bot, upload, zipped

    folder = kit_bot(tmp_path / "brokenbuild")
    (folder / "bot.py").write_text("this is not python(\n")  # its build (compileall) fails, printing paths
    sid = upload(server, token, zipped(folder)).json()["id"]
    # --no-play admits nothing: the admission is run here as the season would, on the same store
    from arena.competition.season import Season, SeasonSettings
    from arena.storage import Store
    from arena.tournament.formats.base import Play

    settings = SeasonSettings(play=Play(game="bali-2001"), name="bali-2001-ladder", results_dir=server.results,
                              db=server.results / "arena.sqlite")
    with Store(settings.db) as store:
        Season(settings).admissions.admit(store, store.submission(sid))
    with server.client(token) as c:
        shown = c.get(f"/api/submissions/{sid}").json()
        page = c.get(f"/me/submissions/{sid}").text
    assert shown["status"] == "refused" and "build" in shown["reason"]
    for text in (shown["reason"], shown.get("build_log", ""), page):
        assert str(server.results) not in text and str(tmp_path) not in text and "/tmp/" not in text, text
