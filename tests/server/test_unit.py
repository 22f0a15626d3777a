"""The systemd unit of docs/serving.md, run as written there: its command, its working folder and a service
manager's environment (PATH holds only the system's folders, whose Python has neither pyzmq nor msgpack), admit
the starter kits a competitor makes with `arena new`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.kits import Language, missing
from tests.helpers import PATIENCE, ROOT, wait_until
from tests.server.conftest import stop, zipped

pytestmark = pytest.mark.slow

# The PATH systemd gives a system service that sets none of its own (systemd.exec(5), "Environment").
SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DOCUMENTED_PREFIX = "/srv/arena/.venv"  # where the docs' unit has the arena installed; here, this environment
ADMISSION = 900.0  # seconds for every kit's build and first game, two at a time, on a busy machine


def documented_unit() -> dict[str, list[str]]:
    """The [Service] settings of the arena's unit in docs/serving.md (each key's values, in order)."""
    text = (ROOT / "docs" / "serving.md").read_text()
    block = re.search(r"```ini\n# /etc/systemd/system/arena\.service\n(.*?)```", text, re.S)
    assert block, "docs/serving.md has no arena.service unit"
    service = block.group(1).split("[Service]\n", 1)[1].split("\n[", 1)[0]
    settings: dict[str, list[str]] = {}
    for line in service.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def unit_environment(settings: dict[str, list[str]], home: Path) -> dict[str, str]:
    """What systemd gives the unit's process: its PATH, the user's HOME, and the unit's Environment= lines."""
    env = {"PATH": SYSTEMD_PATH, "HOME": str(home), "LANG": "C.UTF-8"}
    for line in settings.get("Environment", []):
        for word in shlex.split(line):
            key, value = word.split("=", 1)
            env[key] = value
    return env


def here(word: str) -> str:
    """A word of the unit with the documented installation replaced by this one (sys.prefix)."""
    return word.replace(DOCUMENTED_PREFIX, sys.prefix)


def kits_on(path: str) -> list[Language]:
    """The kits whose toolchains this machine has on PATH path (as the arena sees it: its own Python first)."""
    before = os.environ["PATH"]
    os.environ["PATH"] = path
    try:
        return [language for language in Language if not missing(language)]
    finally:
        os.environ["PATH"] = before


@pytest.fixture
def unit(tmp_path: Path) -> Iterator[tuple[str, Path, dict[str, str], list[str]]]:
    """`arena serve` started as the documented unit starts it (on a free port): its address, working folder,
    environment and command."""
    settings = documented_unit()
    folder = tmp_path / "srv"
    folder.mkdir()
    (folder / "competition.toml").write_text('game = "bali-2001"\ntitle = "unit-ladder"\njobs = 1\n')
    env = unit_environment(settings, tmp_path)
    argv = [here(word) for word in shlex.split(settings["ExecStart"][0])]
    assert argv[0] == f"{sys.prefix}/bin/arena" and "--port" in argv
    argv[argv.index("--port") + 1] = "0"  # a free port, not the documented 8000
    process = subprocess.Popen(argv, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    if not line.startswith("serving on "):
        process.kill()
        pytest.fail(f"the documented unit did not start: {line}{process.communicate()[1]}")
    try:
        yield line.split()[-1], folder, env, argv
    finally:
        stop(process)


def test_the_documented_unit_admits_the_starter_kits(unit: tuple[str, Path, dict[str, str], list[str]],
                                                     tmp_path: Path) -> None:
    url, folder, env, argv = unit
    # The Python kit always: the arena's own interpreter has what it needs. The others where their toolchains are
    # on the unit's PATH.
    languages = [Language.PYTHON, *(lang for lang in kits_on(SYSTEMD_PATH) if lang != Language.PYTHON)]
    submissions: dict[Language, tuple[str, int]] = {}
    for language in languages:
        name = f"{language.value}kit"
        # The organiser adds each author as the docs say: the unit's own arena, in its folder, as its user.
        added = subprocess.run([argv[0], "authors", "add", f"a{language.value}"], cwd=folder, env=env,
                               capture_output=True, text=True, timeout=PATIENCE * 3)
        assert added.returncode == 0, added.stderr
        token = added.stdout.strip().splitlines()[-1]
        made = subprocess.run([sys.executable, "-m", "arena", "new", name, "--lang", language.value],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert made.returncode == 0, made.stderr
        response = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                              files={"file": ("bot.zip", zipped(tmp_path / name, top=True))}, timeout=PATIENCE)
        assert response.status_code == 202, response.text
        submissions[language] = token, response.json()["id"]

    def status(language: Language) -> dict:
        token, sid = submissions[language]
        return httpx.get(f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"},
                         timeout=PATIENCE).json()

    decided = wait_until(lambda: all(status(lang)["status"] in ("admitted", "refused") for lang in languages),
                         ADMISSION, interval=1.0)
    answers = {language.value: status(language) for language in languages}
    assert decided, answers
    refused = {lang: answer.get("reason") for lang, answer in answers.items() if answer["status"] != "admitted"}
    assert not refused, refused
