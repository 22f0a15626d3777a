"""Attacks on the doors of `arena serve` that once got through: invite codes guessed without limit, each at the cost
of a slow hash; sessions made from a stolen token that outlived its replacement, without bound in number; names
that look like another's; a cookie's change sent without its CSRF token or from another site; an upload's raw
archive left in the temp folder by a SIGKILL; an upload cut off by Ctrl-C answered 500 with tracebacks. A real
server on a free port, real sockets."""

from __future__ import annotations

import hashlib
import html
import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.kits import Language, archive
from arena.storage import Store
from tests.helpers import PATIENCE, ROOT, arena, wait_until
from tests.server.conftest import ENV, Server, kit_bot, stop, upload

pytestmark = pytest.mark.slow


def _serve(results: Path, log: Path, *args: str, env: dict[str, str] = ENV) -> Server:
    """A server that plays nothing, its stderr (the access log) kept in a file."""
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--no-play",
                                    "--results", str(results), *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                   stderr=err, text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on "), log.read_text()
    return Server(line.split()[-1], results, process)


@pytest.fixture
def logged(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    log = tmp_path / "serve.log"
    server = _serve(tmp_path / "results", log)
    yield server, log
    stop(server.process)


def _from(server: Server, address: str) -> httpx.Client:
    """A client whose requests come from `address` (one of 127.0.0.0/8), as another machine's would."""
    return httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(local_address=address), timeout=PATIENCE)


def _invite(results: Path, cwd: Path) -> str:
    return arena("authors", "invite", "--uses", "50", "--results", str(results), cwd=cwd).stdout.splitlines()[-1]


def test_wrong_invite_codes_count_with_wrong_sign_ins_and_tokens_per_address(logged: tuple[Server, Path],
                                                                             tmp_path: Path) -> None:
    server, _ = logged
    code = _invite(server.results, tmp_path)
    guess = code.split(".", 1)[0] + ".guess"  # a real invite's id: each guess costs the slow hash
    with _from(server, "127.0.0.1") as c:
        joins = [c.post("/join", data={"code": f"{guess}{i}", "name": f"eve{i}"}).status_code for i in range(10)]
        signins = [c.post("/signin", data={"code": f"1.guess{i}"}).status_code for i in range(5)]
        tokens = [c.get("/api/submissions/1", headers={"Authorization": f"Bearer 1.guess{i}"}).status_code
                  for i in range(5)]
        assert joins + signins + tokens == [403] * 15 + [401] * 5
        after = [c.post("/join", data={"code": code, "name": "eve"}).status_code,  # even the right code: 429
                 c.post("/signin", data={"code": "1.guess"}).status_code,
                 c.get("/api/submissions/1", headers={"Authorization": "Bearer 1.guess"}).status_code]
        assert after == [429] * 3
    with _from(server, "127.0.0.2") as other:  # another address is not held up: it signs up with the right code
        assert other.post("/join", data={"code": code, "name": "fay"}).status_code == 200


def test_wrong_invite_codes_from_many_addresses_meet_a_bound_across_all(logged: tuple[Server, Path],
                                                                        tmp_path: Path) -> None:
    server, _ = logged
    code = _invite(server.results, tmp_path)
    guess = code.split(".", 1)[0] + ".guess"
    _, token = server.author("gus")
    with server.client() as c:  # gus signs in before the flood, and his session outlives it
        cookie = c.post("/signin", data={"token": token}).cookies["arena_session"]
    answers = []
    for n in range(2, 8):  # six addresses, 20 guesses each: 120, over the 100 a minute of all addresses together
        with _from(server, f"127.0.0.{n}") as c:
            answers += [c.post("/join", data={"code": f"{guess}{n}-{i}", "name": "eve"}).status_code
                        for i in range(20)]
    assert answers[:100] == [403] * 100 and answers[100:] == [429] * 20
    with _from(server, "127.0.0.9") as fresh:  # an address never seen is limited too: no slow hash is begun
        refused = fresh.post("/join", data={"code": f"{guess}x", "name": "eve"})
        assert refused.status_code == 429 and "lately" in refused.text
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookie}, timeout=PATIENCE) as c:
        assert c.get("/me").status_code == 200  # a session costs no slow hash, and is not limited
    with server.client(token) as c:
        assert c.get("/api/submissions/1").status_code == 404  # nor is a token checked before the flood


def _cookie(server: Server, secret: str, field: str = "token") -> str:
    with server.client() as c:
        answer = c.post("/signin", data={field: secret})
    assert answer.status_code == 303, answer.text
    return answer.cookies["arena_session"]


def _me(server: Server, cookie: str) -> httpx.Response:
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookie}, timeout=PATIENCE) as c:
        return c.get("/me")


def test_a_session_ends_when_the_token_or_link_it_was_made_from_is_replaced(logged: tuple[Server, Path],
                                                                           tmp_path: Path) -> None:
    server, _ = logged
    added = arena("authors", "add", "hal", "--results", str(server.results), cwd=tmp_path).stdout.splitlines()
    link, token = added[0].rsplit("/", 1)[1], added[-1]
    stolen = _cookie(server, token)  # a thief signs in with hal's token
    by_link = _cookie(server, link, "code")  # hal signs in with his link
    assert _me(server, stolen).status_code == 200 and _me(server, by_link).status_code == 200
    assert arena("authors", "token", "hal", "--results", str(server.results), cwd=tmp_path).returncode == 0
    assert _me(server, stolen).status_code == 401  # ended with the token it was made from
    assert _me(server, by_link).status_code == 200  # hal's own is not
    assert arena("authors", "link", "hal", "--results", str(server.results), cwd=tmp_path).returncode == 0
    assert _me(server, by_link).status_code == 401  # a new link ends the sessions of the links before
    with server.client(token) as c:
        assert c.get("/api/sessions").status_code == 401


def test_an_authors_sessions_are_bounded_listed_and_ended_everywhere(logged: tuple[Server, Path]) -> None:
    server, log = logged
    _, token = server.author("ida")
    cookies = [_cookie(server, token) for _ in range(25)]
    assert _me(server, cookies[0]).status_code == 401  # the least recently used beyond 20 ended
    page = _me(server, cookies[-1])
    assert page.status_code == 200 and "sign out everywhere" in page.text and "this browser" in page.text
    with server.client(token) as c:
        listed = c.get("/api/sessions")
    assert listed.status_code == 200 and len(listed.json()) == 20
    assert {s["source"] for s in listed.json()} == {"API token"} and not any(s["current"] for s in listed.json())
    assert all(cookie not in listed.text and cookie not in page.text for cookie in cookies)  # never a session's id
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookies[-1]}, timeout=PATIENCE) as c:
        assert c.delete("/api/sessions").status_code == 403  # a cookie's change needs its CSRF token
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert c.post("/signout/everywhere", data={"csrf": csrf}).status_code == 303
    assert all(_me(server, cookie).status_code == 401 for cookie in cookies[-20:])
    again = _cookie(server, token)
    with server.client(token) as c:  # the token is no session: it still works, and ends the one made since
        assert c.delete("/api/sessions").json() == {"ended": 1}
    assert _me(server, again).status_code == 401
    text = log.read_text()
    assert token not in text and not any(cookie in text for cookie in cookies)


def _named(name: str) -> bytes:
    """A python kit bot named `name`, as a zip."""
    return archive(Language.PYTHON, name)


def test_names_that_look_like_a_taken_one_are_refused_naming_it(tmp_path: Path) -> None:
    results, log = tmp_path / "results", tmp_path / "serve.log"
    server = _serve(results, log)
    try:
        _, alice = server.author("uidalice")
        _, bob = server.author("bob")
        assert upload(server, alice, _named("uidalice")).status_code == 202
        for token, name, clash in [(bob, "Uidalice", "looks like 'uidalice', which belongs to someone else"),
                                   (bob, "UIDALICE", "looks like 'uidalice'"),
                                   (bob, "uidalice.", "looks like 'uidalice'"),
                                   (alice, "UIDALICE", "looks like 'uidalice', your bot already"),
                                   (alice, "Heuristic_bot", "looks like 'heuristic_bot', which is a sample bot's")]:
            answer = upload(server, token, _named(name))
            assert answer.status_code == 409 and clash in answer.json()["error"], (name, answer.text)
        added = arena("authors", "add", "boss", "--organiser", "--results", str(results), cwd=tmp_path)
        assert added.returncode == 0, added.stderr
        code = _invite(results, tmp_path)
        with server.client() as c:
            for name, clash in [("Boss", "looks like 'boss', an author's already"),
                                ("organiser.", "looks like 'organiser'"),
                                ("UIDALICE", "looks like 'uidalice', an author's"),
                                ("heuristic_bot", "'heuristic_bot' is reserved")]:
                answer = c.post("/join", data={"code": code, "name": name})
                assert answer.status_code == 409 and clash in html.unescape(answer.text), (name, answer.text)
            assert c.post("/join", data={"code": code, "name": "carol"}).status_code == 200  # no use was spent
        refused = arena("authors", "add", "BOSS", "--results", str(results), cwd=tmp_path)
        assert refused.returncode == 2 and "looks like 'boss'" in refused.stderr and "Traceback" not in refused.stderr
    finally:
        stop(server.process)
    with sqlite3.connect(results / "arena.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT name FROM authors ORDER BY id")] == ["uidalice", "bob", "boss",
                                                                                       "carol"]
        assert [r[0] for r in db.execute("SELECT bot FROM submissions")] == ["uidalice"]
    entries = tmp_path / "entries"  # the organiser's own folders are held to the same rule
    kit_bot(entries / "UIDALICE", stderr=False)
    kit_bot(entries / "housebot", stderr=False)
    server = _serve(results, log, "--submissions", str(entries))
    stop(server.process)
    assert "the bot name 'UIDALICE' looks like 'uidalice', which belongs to uidalice" in log.read_text()
    with sqlite3.connect(results / "arena.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT bot FROM submissions ORDER BY id")] == ["uidalice", "housebot"]


def test_a_cookies_change_needs_its_csrf_token_and_this_sites_origin_api_included(logged: tuple[Server, Path],
                                                                                  tmp_path: Path) -> None:
    server, _ = logged
    _, token = server.author("jan")
    sid = upload(server, token, _named("janbot")).json()["id"]
    with Store(server.results / "arena.sqlite") as store:
        from arena.storage.authors import Status

        store.set_status(sid, Status.ADMITTED)
    cookie = _cookie(server, token)
    page = _me(server, cookie)
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    with httpx.Client(base_url=server.url, cookies={"arena_session": cookie}, timeout=PATIENCE) as c:
        assert c.delete("/api/bots/janbot").status_code == 403  # no CSRF token
        assert c.delete("/api/bots/janbot", headers={"X-CSRF-Token": "0" * 64}).status_code == 403
        foreign = c.delete("/api/bots/janbot", headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"})
        assert foreign.status_code == 403 and "another site" in foreign.text
        form = c.post("/me/bots/janbot/retire", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
        assert form.status_code == 403
        assert server.status(token, sid)["status"] == "admitted"  # nothing changed
        done = c.delete("/api/bots/janbot", headers={"X-CSRF-Token": csrf, "Origin": server.url})
        assert done.status_code == 200 and done.json() == {"bot": "janbot", "status": "retired"}
    with server.client(token) as c:  # a program's token needs no CSRF token
        assert c.delete("/api/bots/janbot").status_code == 404  # retired already: nothing admitted


def _store_digest(results: Path) -> str:
    return hashlib.sha256(str((results / "arena.sqlite").resolve()).encode()).hexdigest()[:16]


def test_an_uploads_leftovers_in_the_temp_folder_are_swept_at_start_and_no_one_elses(tmp_path: Path) -> None:
    temp, results = tmp_path / "tmp", tmp_path / "results"
    temp.mkdir()
    env = {**ENV, "TMPDIR": str(temp)}
    server = _serve(results, tmp_path / "serve.log", env=env)
    _, token = server.author("kai")
    assert upload(server, token, _named("kaibot")).status_code == 202
    server.process.send_signal(signal.SIGKILL)
    server.process.wait()
    ours = temp / f"arena-upload-{_store_digest(results)}-cutoff"  # what a SIGKILL during an upload leaves
    (ours / "upload").parent.mkdir()
    (ours / "upload").write_bytes(os.urandom(1 << 16))
    others = [temp / f"arena-upload-{'0' * 16}-another-store", temp / "arena-upload-unnamed", temp / "mine"]
    for other in others:
        other.mkdir()
    server = _serve(results, tmp_path / "serve.log", env=env)
    try:
        assert not ours.exists() and all(other.is_dir() for other in others)
        assert server.status(token, 1)["status"] == "queued"
    finally:
        stop(server.process)


MANY = 150_000  # files in an upload whose unpacking outlasts the 2 s a stop gives the requests under way


def _big(folder: Path) -> bytes:
    """A kit bot with MANY empty files beside it: long enough to unpack to be cut off doing it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for path in sorted(kit_bot(folder, stderr=False).rglob("*")):
            if path.is_file():
                z.write(path, str(path.relative_to(folder)))
        for i in range(MANY):
            z.writestr(f"pad/{i}", b"")
    return buffer.getvalue()


def test_an_upload_cut_off_by_ctrl_c_is_answered_503_in_one_line(tmp_path: Path) -> None:
    results, log = tmp_path / "results", tmp_path / "serve.log"
    server = _serve(results, log, "--max-members", str(MANY + 100), "--max-upload", "100")
    _, token = server.author("lee")
    data, answers = _big(tmp_path / "leebot"), []
    def send() -> None:  # its checks alone take a while on a busy machine: no timeout of the client's cuts it off
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=None) as c:
            answers.append(c.post("/api/submissions", files={"file": ("big.zip", data)}))

    sender = threading.Thread(target=send)
    sender.start()
    assert wait_until(lambda: any((results / "uploads").glob("upload-*/pad")), 10 * PATIENCE)  # being unpacked
    assert stop(server.process) == 130
    sender.join()
    assert answers[0].status_code == 503 and "stopping" in answers[0].json()["error"], answers[0].text
    text = log.read_text()
    assert "Traceback" not in text and " 503 " in text and " 500 " not in text
    with sqlite3.connect(results / "arena.sqlite") as db:  # answered 503: nothing queued, nothing counted
        assert db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM refused_uploads").fetchone()[0] == 0
