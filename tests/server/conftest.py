"""A real `arena serve` on a free port, real authors, real archives: what the server tests share."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.kits import Language, create
from arena.storage import Store
from tests.helpers import PATIENCE, ROOT, wait_until

# Submissions run `python3`: this interpreter (with pyzmq and msgpack) first on PATH, as a competitor's has them.
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
STDERR_LINE = 'print(f"thinking about {len(options)} options", file=sys.stderr)'


@dataclass
class Server:
    """A running server: its address, its results folder and process."""

    url: str
    results: Path
    process: subprocess.Popen[str]

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=PATIENCE, follow_redirects=False)

    def author(self, name: str, organiser: bool = False) -> tuple[str, str]:
        """A new author: (sign-in code, API token)."""
        with Store(self.results / "arena.sqlite") as store:
            _, token, code = store.add_author(name, organiser)
        return code, token

    def status(self, token: str, sid: int) -> dict:
        with self.client(token) as c:
            return c.get(f"/api/submissions/{sid}").json()


def start(results: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """`arena serve` on a free port: the process and the address it printed."""
    process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "1",
                                "--results", str(results), *args], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), line
    return process, line.split()[-1]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A server over a fresh store, with its ladder playing; stopped (as by Ctrl-C) at the end."""
    results = tmp_path / "results"
    with Store(results / "arena.sqlite"):
        pass
    process, url = start(results)
    yield Server(url, results, process)
    stop(process)


def stop(process: subprocess.Popen[str]) -> int:
    """Ctrl-C the server; its exit status."""
    if process.poll() is None:
        process.send_signal(2)
        try:
            return process.wait(PATIENCE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def kit_bot(folder: Path, stderr: bool = True) -> Path:
    """A python starter-kit bot, as `arena new NAME --lang python` makes it; with stderr, it tells its stderr
    something at every decision."""
    create(folder, Language.PYTHON)
    if stderr:
        bot = folder / "bot.py"
        bot.write_text(bot.read_text().replace('    hand = view.get("hand", [])', f'    {STDERR_LINE}\n'
                                               '    hand = view.get("hand", [])'))
    return folder


def slip_bot(folder: Path) -> Path:
    """A python kit bot that answers legally at every decision but its third, where it names an option that is not
    there: a fault of its own in its first game (with its file's path on stderr, as a traceback would say it)."""
    kit_bot(folder)
    bot = folder / "bot.py"
    bot.write_text(bot.read_text().replace('            socket.send(reply(request, "action", index=index))', (
        '            main.calls = getattr(main, "calls", 0) + 1\n'
        '            if main.calls == 3:\n'
        '                print(f"slipping in {os.path.abspath(__file__)}", file=sys.stderr)\n'
        '            socket.send(reply(request, "action", index=len(options) + 7 if main.calls == 3 else index))'), 1))
    return folder


def zipped(folder: Path, top: bool = False) -> bytes:
    """The folder as a .zip (its files at the root, or in one top folder)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, str(path.relative_to(folder.parent if top else folder)))
    return buffer.getvalue()


def tarred(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, str(path.relative_to(folder)))
    return buffer.getvalue()


def upload(server: Server, token: str, data: bytes, filename: str = "bot.zip") -> httpx.Response:
    with server.client(token) as c:
        return c.post("/api/submissions", files={"file": (filename, data)})


def admitted(server: Server, token: str, sid: int) -> bool:
    return wait_until(lambda: server.status(token, sid)["status"] in ("admitted", "refused"), 120) and \
        server.status(token, sid)["status"] == "admitted"
