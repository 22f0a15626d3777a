"""Attacks on `arena serve`, each refused with one line and changing nothing: forged, revoked and expired
credentials, forms without their CSRF token, hostile archives (zip-slip, absolute paths, links, devices, bombs by
ratio and by count, oversized), markup and control characters, names owned by others, too many uploads, and slow
or endless request bodies. A real server on a free port, a real HTTP client."""

from __future__ import annotations

import io
import os
import re
import socket
import sqlite3
import stat
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.storage import Store
from tests.helpers import PATIENCE
from tests.server.conftest import Server, kit_bot, start, stop, tarred, upload, zipped

pytestmark = pytest.mark.slow  # a real server and its real requests, some of them of seconds

MANIFEST = 'name = "{name}"\nversion = "1"\ncommand = "python3 bot.py"\n'


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that admits nothing and plays nothing (uploads stay queued): the checks before that are tested."""
    results = tmp_path_factory.mktemp("quiet") / "results"
    process, url = start(results, "--no-play", "--uploads-per-day", "3", "--max-upload", "1", "--max-unpacked", "8",
                            "--body-timeout", "1")
    yield Server(url, results, process)
    code = stop(process)
    assert code == 130, code


_count = iter(range(10**6))


def _author(server: Server) -> str:
    return server.author(f"a{next(_count)}")[1]


def _zip(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return buffer.getvalue()


def _bot(name: str = "b") -> dict[str, bytes]:
    return {"manifest.toml": MANIFEST.format(name=name).encode(), "bot.py": b"print('hi')\n"}


def _tar(infos: list[tarfile.TarInfo], files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in infos:
            tar.addfile(info)
    return buffer.getvalue()


def _refused(server: Server, data: bytes, said: str, status: int = 400, filename: str = "bot.zip",
             token: str | None = None) -> None:
    before = sorted(p.name for p in (server.results / "uploads").glob("*")) if (server.results / "uploads").exists() \
        else []
    answer = upload(server, token or _author(server), data, filename)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert said in error and "\n" not in error and all(c.isprintable() for c in error) and len(error) <= 400
    after = sorted(p.name for p in (server.results / "uploads").glob("*")) if (server.results / "uploads").exists() \
        else []
    assert after == before  # nothing left on disk


def test_a_sound_archive_is_queued(quiet: Server, tmp_path: Path) -> None:
    token = _author(quiet)
    answer = upload(quiet, token, zipped(kit_bot(tmp_path / "sound")))
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    assert quiet.status(token, answer.json()["id"])["status"] == "queued"


@pytest.mark.parametrize("name, said", [("../evil.py", "climbs out of the folder"), ("a/../../evil.py", "climbs out"),
                                        ("/etc/evil.py", "absolute path")])
def test_zip_slip_and_absolute_members_are_refused(quiet: Server, name: str, said: str) -> None:
    _refused(quiet, _zip({**_bot(), name: b"x"}), said)
    info = tarfile.TarInfo(name)
    _refused(quiet, _tar([], {**_bot(), name: b"x"}) if info else b"", said, filename="bot.tar.gz")


def test_link_and_device_members_are_refused(quiet: Server) -> None:
    _refused(quiet, _zip(_bot(), links={"secret": "/etc/shadow"}), "symbolic link")
    for kind, said in ((tarfile.SYMTYPE, "symbolic link"), (tarfile.LNKTYPE, "hard link"),
                       (tarfile.CHRTYPE, "device"), (tarfile.FIFOTYPE, "pipe")):
        info = tarfile.TarInfo("member")
        info.type, info.linkname = kind, "/etc/shadow"
        _refused(quiet, _tar([info], _bot()), said, filename="bot.tar.gz")


def test_zip_bombs_by_ratio_and_by_count_are_refused(quiet: Server) -> None:
    _refused(quiet, _zip({**_bot(), "zeros": bytes(6 << 20)}), "times its size")
    _refused(quiet, _zip({**_bot(), **{f"f{i}": b"" for i in range(2001)}}), "members, over the limit")
    # A gzip bomb is stopped while its headers are read, before the members are even listed.
    _refused(quiet, _tar([], {**_bot(), "zeros": bytes(20 << 20)}), "a gzip bomb", filename="bot.tar.gz")


def test_an_oversized_upload_is_refused_before_it_is_read(quiet: Server) -> None:
    answer = upload(quiet, _author(quiet), _zip({**_bot(), "noise": os.urandom(2 << 20)}))
    assert answer.status_code == 413 and "over the limit" in answer.json()["error"]


@pytest.mark.parametrize("manifest, said", [
    ('name = "<script>alert(1)</script>"\nversion = "1"\ncommand = "python3 bot.py"\n', "name '<script>"),
    ('name = "b"\nversion = "1\\u001b[31m"\ncommand = "python3 bot.py"\n', "field 'version'"),
    ('name = "b"\nversion = "1"\nauthor = "<img src=x onerror=alert(1)>"\ncommand = "python3 bot.py"\n',
     "field 'author'"),
    ('name = "b"\nversion = "1"\ncommand = "python3 bot.py"\nevil = 1\n', "unknown field 'evil'"),
    ('name = "b"\nversion = "1"\ncommand = "python3 ../' + "x" * 5000 + '\\u0007\\u001b[2J"\n',
     "manifest.toml: command: '../xxx"),
])
def test_markup_and_control_characters_in_the_manifest_are_refused(quiet: Server, manifest: str, said: str) -> None:
    _refused(quiet, _zip({"manifest.toml": manifest.encode(), "bot.py": b""}), said)


@pytest.mark.parametrize("member", ["<img src=x>.py", "bell\x07.py", "esc\x1b[2J.py", "back\\slash.py"])
def test_markup_and_control_characters_in_member_names_are_refused(quiet: Server, member: str) -> None:
    _refused(quiet, _zip({**_bot(), member: b""}), "control character, markup or a backslash")


def test_a_bad_archive_is_one_line(quiet: Server) -> None:
    _refused(quiet, b"not a zip at all", "not a readable zip archive")
    _refused(quiet, b"PK\x03\x04 broken", "not a readable zip archive")
    _refused(quiet, _zip(_bot()), "upload a .zip or a .tar.gz", filename="bot.rar")
    _refused(quiet, _zip({"bot.py": b""}), "no manifest.toml")


def test_a_bot_name_owned_by_someone_else_or_a_sample_bot_is_refused(quiet: Server, tmp_path: Path) -> None:
    alice, bob = _author(quiet), _author(quiet)
    assert upload(quiet, alice, tarred(kit_bot(tmp_path / "taken")), "bot.tar.gz").status_code == 202
    _refused(quiet, zipped(tmp_path / "taken"), "belongs to someone else", 409, token=bob)
    _refused(quiet, _zip(_bot("random_bot")), "is a sample bot's, which play in every competition", 409, token=bob)


def test_uploads_over_the_daily_limit_are_refused(quiet: Server, tmp_path: Path) -> None:
    token = _author(quiet)
    folder = kit_bot(tmp_path / "often")
    sent = []
    for version in ("1", "2", "3"):
        (folder / "manifest.toml").write_text(re.sub(r'version = "[^"]*"', f'version = "{version}"',
                                                     (folder / "manifest.toml").read_text()))
        sent.append(upload(quiet, token, zipped(folder)).status_code)
    assert sent == [202] * 3
    _refused(quiet, zipped(folder), "the limit: try again later", 429, token=token)


def test_refused_uploads_count_toward_the_daily_limit_and_hammering_adds_nothing(quiet: Server,
                                                                                 tmp_path: Path) -> None:
    token = _author(quiet)
    _refused(quiet, b"not a zip at all", "not a readable zip archive", token=token)
    _refused(quiet, _zip(_bot("random_bot")), "is a sample bot's", 409, token=token)
    oversized = upload(quiet, token, _zip({**_bot(), "noise": os.urandom(2 << 20)}))
    assert oversized.status_code == 413
    sound = zipped(kit_bot(tmp_path / "hammered"))
    for _ in range(10):  # the limit (3) is reached by refusals: even a sound archive waits a day now
        _refused(quiet, sound, "the limit: try again later", 429, token=token)
    with sqlite3.connect(quiet.results / "arena.sqlite") as db:
        refused = db.execute("SELECT r.reason FROM refused_uploads r JOIN authors a ON a.id = r.author_id "
                             "WHERE a.name = (SELECT name FROM authors ORDER BY id DESC LIMIT 1)").fetchall()
        queued = db.execute("SELECT COUNT(*) FROM submissions WHERE bot = 'hammered'").fetchone()[0]
    assert len(refused) == 3 and queued == 0  # the refusals at the limit are not kept: the store does not grow
    assert any("over the limit" in r for r, in refused)


@pytest.mark.parametrize("header, said", [("Bearer 1.forged", "not valid"), ("Bearer nonsense", "not valid"),
                                          ("Bearer 1.", "not valid"),
                                          ("Basic YWxpY2U6c2VjcmV0", "Authorization: Bearer TOKEN"),
                                          ("1.sometoken", "Authorization: Bearer TOKEN")])
def test_a_forged_token_is_refused(quiet: Server, header: str, said: str) -> None:
    with quiet.client() as c:
        answer = c.post("/api/submissions", headers={"Authorization": header}, files={"file": ("b.zip", _zip(_bot()))})
    assert answer.status_code == 401 and said in answer.json()["error"]


def test_a_revoked_author_s_token_link_and_session_stop_working(quiet: Server) -> None:
    code, token = quiet.author("revokee")
    with quiet.client() as c:
        c.post("/signin", data={"code": code})
        assert c.get("/me").status_code == 200
        with sqlite3.connect(quiet.results / "arena.sqlite") as db:
            db.execute("UPDATE authors SET revoked = 1, token_hash = NULL, link_hash = NULL WHERE name = 'revokee'")
        assert c.get("/me").status_code == 401
    assert upload(quiet, token, _zip(_bot("rv"))).status_code == 401


def test_sign_in_sets_an_httponly_samesite_cookie_once(quiet: Server) -> None:
    code, _ = quiet.author("signer")
    with quiet.client() as c:
        assert 'name="code"' in c.get(f"/signin/{code}").text  # a link preview does not use the code up
        answer = c.post("/signin", data={"code": code})
        assert answer.status_code == 303 and answer.headers["location"] == "/me"
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert "signer: your bots" in c.get("/me").text
    with quiet.client() as c:
        assert c.post("/signin", data={"code": code}).status_code == 403  # used up
        c.cookies.set("arena_session", "1.99999999999.forged")
        assert c.get("/me").status_code == 401


def test_an_expired_sign_in_link_is_refused(quiet: Server) -> None:
    code, _ = quiet.author("late")
    with sqlite3.connect(quiet.results / "arena.sqlite") as db:
        db.execute("UPDATE authors SET link_expires = ? WHERE name = 'late'", (time.time() - 1,))
    with quiet.client() as c:
        assert c.post("/signin", data={"code": code}).status_code == 403


def test_a_form_without_its_csrf_token_changes_nothing(quiet: Server, tmp_path: Path) -> None:
    code, _ = quiet.author("forms")
    data = zipped(kit_bot(tmp_path / "formbot"))
    with quiet.client() as c:
        c.post("/signin", data={"code": code})
        page = c.get("/me").text
        csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        for fields in ({}, {"csrf": "0" * 64}):
            answer = c.post("/me/upload", data=fields, files={"file": ("b.zip", data)})
            assert answer.status_code == 403 and "CSRF" in answer.text
        assert c.post("/signout", data={}).status_code == 403
        assert "formbot" not in c.get("/me").text
        answer = c.post("/me/upload", data={"csrf": csrf}, files={"file": ("b.zip", data)})
        assert answer.status_code == 303 and answer.headers["location"].startswith("/me/submissions/")
        assert "queued" in c.get(answer.headers["location"]).text


def test_another_author_s_pages_are_404_and_name_nothing(quiet: Server, tmp_path: Path) -> None:
    owner, other = _author(quiet), _author(quiet)
    sid = upload(quiet, owner, zipped(kit_bot(tmp_path / "private"))).json()["id"]
    with quiet.client(other) as c:
        for path in ("/me/bots/private", f"/api/submissions/{sid}", f"/me/submissions/{sid}",
                     "/api/games/1/log?bot=private", "/me/games/1?bot=private"):
            answer = c.get(path)
            assert answer.status_code == 404 and "private" not in answer.text
    with quiet.client(owner) as c:
        assert c.get("/me/bots/private").status_code == 200


def _join(server: Server, code: str, name: str) -> httpx.Response:
    with server.client() as c:
        return c.post("/join", data={"code": code, "name": name})


def test_an_invite_code_signs_up_its_uses_and_no_more(quiet: Server) -> None:
    with Store(quiet.results / "arena.sqlite") as store:
        _, code = store.add_invite(2, 3600)
    with quiet.client() as c:
        assert 'name="code"' in c.get(f"/join/{code}").text  # a link preview uses nothing up
        answer = c.post("/join", data={"code": code, "name": "joiner"})
        assert answer.status_code == 200 and "httponly" in answer.headers["set-cookie"].lower()
        token = answer.text.split('<pre id="token" class="secret">', 1)[1].split("<", 1)[0]
        assert "joiner: your bots" in c.get("/me").text  # signed in by the sign-up
    with quiet.client(token) as c:
        assert c.get("/me").status_code == 200
    taken = _join(quiet, code, "joiner")  # a taken name spends no use
    assert taken.status_code == 409 and "is taken" in taken.text
    assert _join(quiet, code, "<b>x</b>").status_code == 400
    assert _join(quiet, code, "second").status_code == 200
    reused = _join(quiet, code, "third")
    assert reused.status_code == 403 and "used up, has expired or was revoked" in reused.text


def test_an_expired_revoked_or_guessed_invite_code_signs_nobody_up(quiet: Server) -> None:
    with Store(quiet.results / "arena.sqlite") as store:
        _, late = store.add_invite(5, 3600)
        revoked_id, revoked = store.add_invite(5, 3600)
        store.revoke_invite(revoked_id)
    with sqlite3.connect(quiet.results / "arena.sqlite") as db:
        db.execute("UPDATE invites SET expires = ? WHERE id = ?", (time.time() - 1, int(late.split(".")[0])))
    iid, secret = late.split(".")
    for code in (late, revoked, f"{iid}.{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}", f"{iid}.guess",
                 "999.nonsense", "nonsense", "1." + "x" * 5000):
        answer = _join(quiet, code, "intruder")
        assert answer.status_code in (403, 413), (code[:20], answer.status_code)
    with Store(quiet.results / "arena.sqlite") as store:
        assert "intruder" not in {a.name for a in store.authors()}


PART = b'--B\r\nContent-Disposition: form-data; name="file"; filename="b.zip"\r\n\r\n'


def _raw(server: Server, head: bytes, body: Iterator[bytes]) -> bytes:
    """What the server answers to head and as much of body as it reads before it answers."""
    host, port = server.url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=PATIENCE) as s:
        s.sendall(head)
        answer = b""
        for chunk in body:
            try:
                s.settimeout(PATIENCE)
                s.sendall(chunk)
                s.settimeout(0.0)
                answer += s.recv(65536)
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
            if answer:
                break
        s.settimeout(PATIENCE)
        try:
            while True:  # to the end: the server closes the connection it refused
                more = s.recv(65536)
                if not more:
                    break
                answer += more
        except (ConnectionResetError, TimeoutError):
            pass
        return answer


def test_a_slow_body_is_cut_off(quiet: Server) -> None:
    head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\n"
            b"Authorization: Bearer " + _author(quiet).encode() + b"\r\nContent-Length: 100000\r\n\r\n")

    def dribble() -> Iterator[bytes]:
        yield PART
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            time.sleep(0.05)
            yield b"x"

    answer = _raw(quiet, head, dribble())
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1 seconds" in answer, answer[:300]


def test_an_endless_body_is_cut_off(quiet: Server) -> None:
    head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\n"
            b"Authorization: Bearer " + _author(quiet).encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n")

    def endless() -> Iterator[bytes]:
        yield b"%x\r\n%s\r\n" % (len(PART), PART)
        chunk = b"x" * 8192
        while True:
            yield b"2000\r\n" + chunk + b"\r\n"

    answer = _raw(quiet, head, endless())
    assert answer.startswith(b"HTTP/1.1 413") and b"over the limit" in answer, answer[:300]


def test_health_answers(quiet: Server) -> None:
    with quiet.client() as c:
        assert c.get("/health").json()["status"] == "ok"
        assert c.get("/api/leaderboard").json() == []


@pytest.mark.parametrize("path", ["/site/../arena.sqlite", "/site/%2e%2e/arena.sqlite", "/site/..%2farena.sqlite",
                                  "/site/%2e%2e/%2e%2e/etc/passwd"])
def test_the_published_pages_give_nothing_beside_them(quiet: Server, path: str) -> None:
    answer = _raw(quiet, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode(), iter(()))
    assert answer.startswith(b"HTTP/1.1 404"), answer[:200]
    assert b"SQLite" not in answer and b"root:" not in answer
