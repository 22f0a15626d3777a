"""What `arena serve` shows an author of an admission: no path of the server's or a worker's machine in a build
log, a refusal or a first game's traceback, however the server was started; and a build's output bounded like an
upload's, sparse files counted at their full size. Locally and on a local Dask cluster."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.helpers import ROOT, wait_until
from tests.server.conftest import ENV, Server, kit_bot, stop, upload, zipped

pytestmark = pytest.mark.slow  # arena serve and real admissions
BUSY = 180  # seconds an admission may take on a machine shared with others; waited in full only on failure
WHERE = [pytest.param([], id="here"), pytest.param(["--cluster", "local"], id="cluster")]


@pytest.fixture(params=WHERE)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """`arena serve` started as an organiser would, from the competition's folder with a relative --results (the
    working directory is then part of every upload's path), an upload unpacking to 1 MiB at most."""
    if request.param:
        pytest.importorskip("distributed")
        pytest.importorskip("cryptography")
    home = tmp_path / "srv" / "comp"
    home.mkdir(parents=True)
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "1",
                                    "--results", "results", "--max-unpacked", "1", *request.param], cwd=home,
                                   env={**ENV, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=err,
                                   text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), (line, log.read_text())
    try:
        yield Server(line.split()[-1], home / "results", process)
    finally:
        stop(process)


def _decided(server: Server, token: str, sid: int) -> dict:
    assert wait_until(lambda: server.status(token, sid)["status"] in ("admitted", "refused"), BUSY), \
        server.status(token, sid)
    return server.status(token, sid)


def _with_build(folder: Path, build: str) -> Path:
    manifest = folder / "manifest.toml"
    manifest.write_text("\n".join(line for line in manifest.read_text().splitlines() if not line.startswith("build"))
                        + f"\nbuild = {build}\n", encoding="utf-8")
    return folder


def _host_paths(text: str, tmp_path: Path) -> list[str]:
    """The absolute paths of the server's or a worker's machine in text (its test folder, the checkout, /tmp)."""
    return re.findall(rf"(?:{re.escape(str(tmp_path))}|{re.escape(str(ROOT))}|/tmp/|/var/)[^\s\"']*", text)


def test_a_build_log_a_refusal_and_a_crash_s_traceback_name_no_path_of_the_server_or_a_worker(
        served: Server, tmp_path: Path) -> None:
    _, alice = served.author("alice")
    # A build that says where it runs, and fails: its log and its refusal.
    failing = _with_build(kit_bot(tmp_path / "failbot"), '["sh", "-c", "pwd; ls -d \\"$PWD/bot.py\\"; exit 3"]')
    sid = upload(served, alice, zipped(failing)).json()["id"]
    refused = _decided(served, alice, sid)
    assert refused["status"] == "refused" and "failed with status 3" in refused["reason"], refused
    with served.client(alice) as c:
        page = html.unescape(c.get(f"/me/submissions/{sid}").text)  # the author's page, with the build log
    assert "\nbot.py\n" in page and "(in .)" in page, page  # a file of its folder named from it
    assert _host_paths(refused["reason"] + page, tmp_path) == [], refused
    # A bot that crashes at its first decision: the traceback of its first game.
    crash = kit_bot(tmp_path / "crashbot")
    bot = crash / "bot.py"
    bot.write_text(bot.read_text().replace('    hand = view.get("hand", [])', '    raise RuntimeError("no idea")\n'
                                           '    hand = view.get("hand", [])'), encoding="utf-8")
    sid = upload(served, alice, zipped(crash)).json()["id"]
    crashed = _decided(served, alice, sid)
    assert crashed["status"] == "refused" and crashed["replay"], crashed
    with served.client(alice) as c:
        page = html.unescape(c.get(crashed["replay"].split("#")[0]).text + c.get(f"/me/submissions/{sid}").text)
    assert "RuntimeError: no idea" in page and '\\"bot.py\\", line' in page, page  # in the page's JSON
    assert _host_paths(page + crashed["reason"], tmp_path) == []


def test_a_build_that_leaves_a_sparse_file_over_the_upload_limit_is_refused(served: Server, tmp_path: Path) -> None:
    _, alice = served.author("alice")
    # A few KB uploaded; its build makes a sparse file of 3 MiB, over the 1 MiB an upload may unpack to.
    sparse = _with_build(kit_bot(tmp_path / "sparsebot"), '["truncate", "-s", "3M", "big"]')
    sid = upload(served, alice, zipped(sparse)).json()["id"]
    refused = _decided(served, alice, sid)
    assert refused["status"] == "refused", refused
    assert "the build left 3.0 MiB of files in its folder" in refused["reason"], refused
    assert "more than the 1 MiB a submission may hold" in refused["reason"], refused
    # Within the limit, the same build is admitted.
    small = _with_build(kit_bot(tmp_path / "smallbot"), '["truncate", "-s", "100K", "big"]')
    sid = upload(served, alice, zipped(small)).json()["id"]
    assert _decided(served, alice, sid)["status"] == "admitted"
