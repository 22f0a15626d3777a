"""The bot SDK, driven from a plain REQ socket over a real ipc endpoint, as the arena would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest
import zmq

from protocol import (
    Ack,
    Action,
    Clock,
    Decide,
    EndpointError,
    GameOver,
    Hello,
    Message,
    NewGame,
    Outcome,
    Ready,
    Shutdown,
    TimeControl,
    decode,
    encode,
    resolve_endpoint,
)
from protocol.messages import REPLY_TO
from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 10_000  # generous: a slow machine may take seconds to start Python


class Driver:
    """The arena's side of one SDK bot, reduced to a REQ socket and a process."""

    def __init__(self, tmp: Path, *command: str) -> None:
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.endpoint = f"ipc://{tmp}/bot.sock"
        self.socket.bind(self.endpoint)
        self.process = subprocess.Popen([sys.executable, *command, self.endpoint], cwd=ROOT,
                                        stderr=subprocess.PIPE, start_new_session=True)

    def ask(self, request: Message) -> Message:
        self.socket.send(encode(request))
        assert self.socket.poll(WAIT_MS), "the bot did not answer"
        return decode(self.socket.recv(), REPLY_TO[type(request)])

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        self.socket.close(linger=0)
        self.context.term()


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Callable[..., Driver]]:
    made: list[Driver] = []

    def make(*command: str) -> Driver:
        folder = tmp_path / f"bot{len(made)}"
        folder.mkdir()
        made.append(Driver(folder, *command))
        return made[-1]

    yield make
    for d in made:
        d.close()


def new_game(request_id: int, seed: int) -> NewGame:
    return NewGame(id=request_id, game="bali-2001", game_index=0, options={}, seat=1, num_players=3, seed=seed,
                   time=TimeControl())


def decide(request_id: int, options: int = 10) -> Decide:
    return Decide(id=request_id, game_index=0, decision={"kind": "turn"}, view={"seat": 1},
                  events=[{"type": "turn", "n": request_id}], event_index=request_id,
                  options=[{"action": "pick", "n": n} for n in range(options)], time=Clock(remaining=1.0, bank=0.0))


def play_session(d: Driver, seed: int, decisions: int = 20) -> list[int]:
    """Handshake, one game of `decisions` decisions, game over, shutdown; the indexes the bot chose."""
    ready = d.ask(Hello(id=1, arena="test", max_message=1 << 20))
    assert isinstance(ready, Ready) and ready.id == 1
    assert d.ask(new_game(2, seed)) == Ack(id=2)
    indexes = []
    for request_id in range(3, 3 + decisions):
        action = d.ask(decide(request_id))
        assert isinstance(action, Action) and action.id == request_id and 0 <= action.index < 10
        indexes.append(action.index)
    over = GameOver(id=100, game_index=0, seat=1, result=Outcome((1, 2, 3), (3, 2, 1), "done", False, ()),
                    events=[], event_index=50)
    assert d.ask(over) == Ack(id=100)
    assert d.ask(Shutdown(id=101, reason="match over")) == Ack(id=101)
    assert d.process.wait(10) == 0
    return indexes


def test_a_function_bot_answers_every_request_and_exits_on_shutdown(driver) -> None:
    d = driver("sample_bots/default_bot.py")
    assert play_session(d, seed=1) == [0] * 20


def test_a_class_bot_names_itself_and_replays_identically_from_its_seed(driver) -> None:
    first = play_session(driver("-m", "sample_bots.random_bot"), seed=7)
    again = play_session(driver("-m", "sample_bots.random_bot"), seed=7)
    other = play_session(driver("-m", "sample_bots.random_bot"), seed=8)
    assert first == again != other


def test_the_ready_message_carries_the_bots_name_and_version(driver) -> None:
    d = driver("-m", "sample_bots.heuristic_bot")
    assert d.ask(Hello(id=1, arena="test", max_message=1 << 20)) == Ready(id=1, name="heuristic", bot_version="1.0")


def test_hooks_see_the_game_and_accumulated_events(tmp_path: Path, driver) -> None:
    script = tmp_path / "hook_bot.py"
    script.write_text(
        "from protocol import Bot, run_bot\n"
        "class Hooks(Bot):\n"
        "    name = 'hooks'\n"
        "    def new_game(self, game):\n"
        "        self.seat = game.seat\n"
        "    def decide(self, view, options, decision):\n"
        "        return (len(self.events) + self.seat + int(self.clock.remaining)) % len(options)\n"
        "    def game_over(self, over):\n"
        "        print('events', len(self.events), 'ranks', list(over.result.ranks), flush=True)\n"
        "run_bot(Hooks())\n")
    d = driver(str(script))
    assert play_session(d, seed=1, decisions=3) == [(1 + 1 + 1) % 10, (2 + 1 + 1) % 10, (3 + 1 + 1) % 10]


def test_the_endpoint_comes_from_the_environment_or_the_last_argument() -> None:
    assert resolve_endpoint(["bot.py", "ipc:///x"], {}) == "ipc:///x"
    assert resolve_endpoint(["bot.py", "ipc:///x"], {"ARENA_ENDPOINT": "tcp://127.0.0.1:5"}) == "tcp://127.0.0.1:5"
    with pytest.raises(EndpointError, match="ARENA_ENDPOINT"):
        resolve_endpoint(["bot.py", "--depth", "3"], {})


def test_a_bot_whose_decide_raises_crashes_with_its_traceback(tmp_path: Path, driver) -> None:
    script = tmp_path / "bad_bot.py"
    script.write_text("from protocol import run_bot\n"
                      "def decide(view, options, decision):\n"
                      "    raise RuntimeError('my strategy has a bug')\n"
                      "run_bot(decide)\n")
    d = driver(str(script))
    assert isinstance(d.ask(Hello(id=1, arena="test", max_message=1 << 20)), Ready)
    d.socket.send(encode(decide(2)))
    assert d.process.wait(10) != 0
    assert b"my strategy has a bug" in d.process.stderr.read()  # type: ignore[union-attr]


def test_the_bot_leaves_when_its_parent_dies(tmp_path: Path) -> None:
    # A middle process starts the bot and exits at once, as a killed arena would.
    endpoint = f"ipc://{tmp_path}/orphan.sock"
    middle = subprocess.run(
        [sys.executable, "-c", "import os, subprocess, sys; "
         "p = subprocess.Popen([sys.executable, '-m', 'sample_bots.random_bot', sys.argv[1]], "
         "env={**os.environ, 'ARENA_PID': str(os.getpid())}, stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL); print(p.pid)",
         endpoint], cwd=ROOT, capture_output=True, text=True, check=True)
    pid = int(middle.stdout)
    if not wait_until(lambda: not running(pid)):
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the orphaned bot did not exit")


def running(pid: int) -> bool:
    """True while pid is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"
