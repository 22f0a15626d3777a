"""Time: the game clock bounds a seat's thinking per game, and a decision is charged its wall time less the time
the bot waited for a core (arena/bots/meter.py), with a wall-clock guard; the figures are kept in the record."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import zmq

from arena.bots import cgroups, meter
from arena.bots.channel import QUICK, Channel, Charge, Reply
from arena.bots.meter import Timing, WaitMeter
from arena.bots.sandbox import WALL_CEILING
from arena.errors import BotTimeout, FaultKind
from arena.match.record import DecisionRecord, load_record, record_from_dict, save_record
from arena.match.replay import resimulate, seat_messages, took
from arena.match.wire import SeatClock, time_identity
from protocol import Ack, Clock, Shutdown, TimeControl, decode, encode
from tests.helpers import wait_until
from tests.match.conftest import RANDOM, Spawned, double, play


def test_a_seat_is_told_no_more_time_than_its_game_clock_has_left() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, game_clock=2.0))
    assert clock.clock() == Clock(remaining=1.0, bank=0.0, game_clock=2.0)
    assert clock.wall_limit() == WALL_CEILING * 1.0
    clock.charge(1.5, timed_out=False, charged=0.9)  # waited 0.6 s for a core: charged 0.9 s
    assert clock.clock() == Clock(remaining=1.0, bank=0.0, game_clock=1.1) and not clock.out_of_time()
    clock.charge(0.8, timed_out=False, charged=0.8)
    assert clock.clock().remaining == clock.allowance() == clock.left == pytest.approx(0.3)
    assert clock.runs_out(0.3, 0.3) and not clock.runs_out(0.3, 0.1)
    clock.charge(0.3, timed_out=False, charged=0.3)
    assert clock.out_of_time() and clock.used == pytest.approx(2.0) and clock.waited == pytest.approx(2.6)


def test_the_guard_on_the_wall_clock_leaves_out_the_wait_for_a_core() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, game_clock=2.0))
    for _ in range(2):
        clock.charge(4.5, timed_out=False, charged=0.5)  # 4 s of it waiting for a core: not the bot's
    assert clock.left == 1.0 and clock.wall_limit() == WALL_CEILING * 1.0 and not clock.out_of_time()
    assert clock.runs_out(1.0, 1.0) and not clock.runs_out(5.0, 0.5)
    clock.charge(1.0, timed_out=False, charged=1.0)
    assert clock.out_of_time() and clock.waited == 10.0


def test_without_a_game_clock_a_decision_waits_up_to_the_guard_and_the_bank_draws_on_charged_time() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, bank=2.0))
    assert clock.clock() == Clock(remaining=3.0, bank=2.0, game_clock=0.0)
    assert clock.wall_limit() == WALL_CEILING * 3.0
    clock.charge(2.5, timed_out=False, charged=1.25)  # 0.25 s over the timeout: drawn from the bank
    assert clock.bank == 1.75 and not clock.out_of_time()
    clock.charge(2.5, timed_out=False)  # not measured: the wall time is charged
    assert clock.bank == 0.25


def test_a_record_charges_what_it_recorded_and_an_older_one_its_cpu_time_up_to_its_wall_time() -> None:
    assert DecisionRecord(0, 0, 0.9, charged=0.4, wait=0.5).spent == 0.4
    assert DecisionRecord(0, 0, 0.9, cpu=0.2).spent == 0.2  # recorded before the meter
    assert DecisionRecord(0, 0, 0.5, cpu=1.6).spent == 0.5
    assert DecisionRecord(0, 0, 0.7).spent == 0.7  # not measured
    assert DecisionRecord(0, 0, None).spent is None  # not asked


def test_the_meter_reads_every_thread_of_a_process_and_lets_go_of_the_ones_that_end() -> None:
    meter = WaitMeter(lambda: [os.getpid()], lambda: None, 1)
    try:
        span = meter.start()
        assert span is not None
        threads = meter.look()
        assert threads is not None and (os.getpid(), os.getpid()) in threads
        timing = span.timing(0.25)
        assert timing.wall == 0.25 and 0 <= timing.charged <= 0.25
        assert timing.wait == pytest.approx(timing.wall - timing.charged)
    finally:
        meter.close()
    gone = WaitMeter(lambda: [2 ** 22 + 1], lambda: None, 1)  # no such process: nothing to read
    assert gone.start() is None


THREADER = """import sys, threading
events = []
for line in sys.stdin:
    if line.startswith("start"):
        event = threading.Event()
        thread = threading.Thread(target=event.wait)
        thread.start()
        events.append((event, thread))
        print(thread.native_id, flush=True)
    else:
        event, thread = events.pop()
        event.set()
        thread.join()
        print("stopped", flush=True)
"""


def test_the_meter_lists_a_bots_tasks_again_only_when_its_task_count_or_a_task_it_knows_changes() -> None:
    child = subprocess.Popen([sys.executable, "-c", THREADER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    listings: list[int] = []

    def pids() -> list[int]:
        listings.append(child.pid)
        return [child.pid]

    def tids() -> set[int]:
        return {int(name) for name in os.listdir(f"/proc/{child.pid}/task")}

    def command(line: str) -> str:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(line + "\n")
        child.stdin.flush()
        return child.stdout.readline().strip()

    # The count a cgroup would give: every task of the child.
    meter = WaitMeter(pids, lambda: None, 1, lambda: len(tids()))
    try:
        first = meter.look()
        assert first is not None and {tid for _, tid in first} == tids() and len(listings) == 1
        assert meter.look() is not None and len(listings) == 1  # the same tasks: read through the kept files
        born = int(command("start"))
        assert born in {tid for _, tid in meter.look() or {}} and len(listings) == 2  # one more task: listed
        assert command("stop") == "stopped"
        assert wait_until(lambda: born not in tids())
        again = int(command("start"))  # as many tasks as before, but one the meter does not know
        assert {tid for _, tid in meter.look() or {}} == tids() and again in tids() and len(listings) == 3
    finally:
        meter.close()
        child.kill()
        child.wait()


def _own_tid() -> int:
    """The thread the arena's kept-open /proc/thread-self files describe, as the calling thread reads them."""
    return int(meter._own_file(meter._OWN_STAT, 1024).split()[0])


def test_the_arenas_kept_open_files_of_its_own_thread_are_each_threads_own_in_a_forked_process_too() -> None:
    assert _own_tid() == threading.get_native_id() and meter.own_turns() is not None
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(_own_tid() - threading.get_native_id()))
    thread.start()
    thread.join()
    assert seen == [0]
    child = os.fork()
    if child == 0:  # the forked thread keeps the parent thread's locals: its files must be opened afresh
        os._exit(0 if _own_tid() == threading.get_native_id() == os.getpid() else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_the_arenas_messaging_threads_are_listed_again_when_their_number_changes() -> None:
    def carriers() -> int:
        return sum(Path(f"/proc/self/task/{tid}/comm").read_bytes().startswith(b"ZMQbg/IO/")
                   for tid in os.listdir("/proc/self/task"))

    meter._carriers.waited()
    known, named = len(meter._carriers._listed or []), carriers()
    context = zmq.Context()
    socket = context.socket(zmq.REQ)  # a context's messaging thread starts with its first socket
    try:
        assert wait_until(lambda: carriers() > named)  # named as a messaging thread (it is not at its birth)
        meter._carriers.waited()
        assert len(meter._carriers._listed or []) == known + 1
    finally:
        socket.close(linger=0)
        context.term()


class Hindsight:
    """A meter whose look finds the bot charged its whole wall time, and whose next reading credits back 0.05 s of
    it: a thread's wait for a core that the kernel counts only once the thread runs again."""

    def __init__(self) -> None:
        self.cut_at: float | None = None

    def start(self, at: float = 0.0) -> "Hindsight":
        return self

    def timing(self, wall: float, late: float = 0.0, handed: object = None) -> Timing:
        if self.cut_at is None:
            if wall >= 0.2:
                self.cut_at = wall
            return Timing(wall, wall, 0.0)
        return Timing(0.15, wall, wall - 0.15)

    def queued(self) -> bool:
        return False


def test_a_decision_cut_when_a_look_found_its_allowance_spent_is_charged_the_allowance_whatever_a_later_reading_says(
        tmp_path: Path) -> None:
    context = zmq.Context()
    link = Channel(context, f"ipc://{tmp_path}/clock.sock")
    bot = context.socket(zmq.REP)  # connected, never answers
    bot.connect(link.endpoint)
    meter = Hindsight()
    try:
        with pytest.raises(BotTimeout) as caught:
            link.ask(Shutdown(id=0, reason="test"), 0.2, Charge(meter, ceiling=5.0))  # type: ignore[arg-type]
    finally:
        bot.close(linger=0)
        link.close()
        context.term()
    fault = caught.value
    assert meter.cut_at is not None and fault.elapsed is not None and fault.charged == 0.2
    assert fault.wait == pytest.approx(fault.elapsed - 0.2) and "charged 0.2 s" in fault.detail, fault.detail


class FixedWait:
    """A meter whose every reading finds the bot waited WAIT seconds for a core since the decision began, noting
    when (seconds into the decision) it was started."""

    WAIT = 0.0005  # less than QUICK: all of it is credited to an answer that comes beyond QUICK

    def __init__(self) -> None:
        self.started: list[float] = []
        self.begun = threading.Event()

    def start(self, at: float = 0.0) -> "FixedWait":
        self.started.append(at)
        self.begun.set()
        return self

    def timing(self, wall: float, late: float = 0.0, handed: object = None) -> Timing:
        wait = min(wall, self.WAIT)
        return Timing(wall - wait, wall, wait)

    def queued(self) -> bool:
        return False


def _answering(context: zmq.Context, endpoint: str, holds: list[threading.Event]) -> threading.Thread:
    """A bot on a thread that answers every request with an ack: at once, or once the event in `holds` (if any)
    is set; until a shutdown whose reason is "stop"."""
    bot = context.socket(zmq.REP)
    bot.connect(endpoint)

    def answer() -> None:
        while True:
            request = decode(bot.recv(), Shutdown)
            for hold in holds:
                hold.wait(10.0)
            bot.send(encode(Ack(id=request.id), request.id))
            if request.reason == "stop":
                bot.close(linger=1000)
                return

    thread = threading.Thread(target=answer, daemon=True)  # a failed test leaves it waiting: it must not hang
    thread.start()
    return thread


def test_an_answer_within_the_quick_bound_is_charged_its_wall_time_and_one_beyond_it_its_wall_less_its_wait(
        tmp_path: Path) -> None:
    context = zmq.Context()
    link = Channel(context, f"ipc://{tmp_path}/clock.sock")
    quick: list[Reply] = []
    holds: list[threading.Event] = []
    bot = _answering(context, link.endpoint, holds)

    def ask_quick() -> bool:
        meter = FixedWait()
        reply = link.ask(Shutdown(id=0, reason="test"), 1.0, Charge(meter, ceiling=5.0))  # type: ignore[arg-type]
        quick[:] = [reply] if reply.elapsed <= QUICK else []
        return bool(quick) and not meter.started  # answered within the bound, and the meter never read

    try:
        # A busy machine may hold any one answer up beyond the bound: the first that comes within it is looked at.
        assert wait_until(ask_quick, interval=0.0)
        assert quick[0].timing == Timing(quick[0].elapsed, quick[0].elapsed, 0.0)
        meter = FixedWait()
        holds.append(meter.begun)  # the bot answers once the meter has started: beyond the bound
        slow = link.ask(Shutdown(id=0, reason="stop"), 1.0, Charge(meter, ceiling=5.0))  # type: ignore[arg-type]
        assert slow.timing is not None and slow.timing.wait == pytest.approx(FixedWait.WAIT)
        assert slow.timing.charged == pytest.approx(slow.elapsed - FixedWait.WAIT)
        assert meter.started and meter.started[0] >= QUICK  # started lazily, once the bound had passed
        bot.join()
    finally:
        link.close()
        context.destroy(linger=0)


def test_the_fields_added_to_the_time_maps_default_for_older_arenas_and_records() -> None:
    assert TimeControl.parse({"timeout": 1, "init": 10, "bank": 0, "increment": 0}, "time").game_clock == 0.0
    assert Clock.parse({"remaining": 1.0, "bank": 0.0}, "time").game_clock == 0.0
    # A tournament without a game clock is identified as before there was one, so that it resumes.
    assert "game_clock" not in time_identity(TimeControl())
    assert time_identity(TimeControl(game_clock=60.0))["game_clock"] == 60.0


def test_a_decide_message_carries_the_game_clock_in_its_time_map() -> None:
    assert Clock(remaining=0.4, bank=0.0, game_clock=0.4).to_wire() == {"remaining": 0.4, "bank": 0.0,
                                                                      "game_clock": 0.4}


def test_every_decision_records_its_charged_wall_and_waiting_time_and_a_record_of_before_loads(
        tmp_path: Path) -> None:
    record = play(tmp_path, "bali-2017", [RANDOM, RANDOM]).records[0]
    asked = [d for d in record.decisions if d.time is not None]
    assert asked and all(d.charged is not None and d.wait is not None for d in asked)
    assert all(0 <= d.charged <= d.time and d.charged + d.wait == pytest.approx(d.time) for d in asked)
    # `arena replay` gives the three figures of each decision.
    assert all(took(d) == f"{d.time * 1000:.1f} ms (charged {d.charged * 1000:.1f} ms, {d.wait * 1000:.1f} ms "
               "waiting for a core)" for d in asked)
    save_record(record, tmp_path / "game.json")
    assert load_record(tmp_path / "game.json") == record
    plain = record.to_dict()
    for decision in plain["decisions"]:
        decision.pop("charged", None)
        decision.pop("wait", None)
    del plain["time"]["game_clock"]
    old = record_from_dict(plain)
    assert all(d.charged is None and d.spent == d.time for d in old.decisions) and old.time.game_clock == 0.0


def test_without_cgroups_the_meter_finds_the_threads_in_the_process_tree(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroups.DISABLE_ENV, "1")
    cgroups.hierarchy.cache_clear()
    try:
        record = play(tmp_path, "bali-2017", [RANDOM, RANDOM]).records[0]
    finally:
        monkeypatch.delenv(cgroups.DISABLE_ENV)
        cgroups.hierarchy.cache_clear()
    assert all(d.charged is not None and d.wait is not None for d in record.decisions if d.time is not None)


SECOND = TimeControl(timeout=1.0, init=20.0)


def paced(tmp_path: Path, mode: str, seconds: float, decisions: int = 1,
          time: TimeControl = SECOND) -> tuple[list[DecisionRecord], list[str]]:
    """The pacer's decisions (a bali-2017 game against a random bot, 1 s per decision unless told, three faults
    allowed) and its faults' details."""
    record = play(tmp_path, "bali-2017", [double("pacer_bot", mode, str(seconds), str(decisions)), RANDOM],
                  time=time, max_faults=3).records[0]
    assert record.disqualified == () and resimulate(record).reproduces
    mine = [d for d in record.decisions if d.seat == 0 and d.time is not None]
    return mine, [f.detail for f in record.faults if f.seat == 0]


def charged_in(detail: str) -> float:
    """The seconds a fault's detail says the decision was charged."""
    found = re.search(r"charged ([\d.e-]+) s", detail)
    assert found, detail
    return float(found.group(1))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sleep", "spin"])
def test_a_bot_that_overruns_one_decision_gets_one_timeout_whose_figures_are_the_ones_charged(
        tmp_path: Path, mode: str, spawned: Spawned) -> None:
    # 1.6 s of a 1 s limit at its first decision, asleep or thinking: charged 1 s when the arena stops waiting. The
    # 0.6 s it still takes are charged to its next decision, which stays within its limit: one fault in all.
    mine, faults = paced(tmp_path, mode, 1.6)
    assert [d.fault for d in mine[:2]] == [FaultKind.TIMEOUT, None] and len(faults) == 1, faults
    first = mine[0]
    assert first.charged is not None and first.wait is not None and first.charged >= 1.0
    assert charged_in(faults[0]) == float(f"{first.charged:.3g}") and f"wall {first.time:.3g} s" in faults[0]
    assert all(d.fault is None and d.spent is not None and d.spent < 1.0 for d in mine[1:])
    spawned.assert_all_gone()


@pytest.mark.slow
def test_a_bot_still_busy_with_a_decision_that_timed_out_is_told_so_at_the_next(tmp_path: Path,
                                                                                spawned: Spawned) -> None:
    # 2.5 s asleep of a 1 s limit: the next decision too is over before the bot reads it, and its fault says why.
    mine, faults = paced(tmp_path, "sleep", 2.5)
    assert [d.fault for d in mine[:3]] == [FaultKind.TIMEOUT, FaultKind.TIMEOUT, None] and len(faults) == 2
    busy = "still busy with an earlier request"
    assert busy not in faults[0] and busy in faults[1], faults
    spawned.assert_all_gone()


@pytest.mark.slow
def test_a_bot_thinking_on_two_threads_at_once_is_charged_the_time_it_took_not_the_sum(tmp_path: Path) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two threads take twice as long on one core, on a machine of the bot's own too")
    # 5 s per decision: on a machine so busy that the two threads get a tenth of a core each, the wall-clock guard
    # (5 times the limit) is still far.
    mine, faults = paced(tmp_path, "threads", 0.5, time=TimeControl(timeout=5.0, init=20.0))
    first = mine[0]
    # Each thread computes 0.5 s; however long they waited for a core, the decision is charged about 0.5 s, not 1 s.
    assert not faults and first.charged is not None and 0.45 <= first.charged <= 0.8, first
    assert first.wait is not None and first.charged + first.wait == pytest.approx(first.time)


def test_a_seat_whose_game_clock_runs_out_plays_the_default_for_the_rest_of_the_game(tmp_path: Path,
                                                                                    spawned: Spawned) -> None:
    blind = double("last_ms_bot", "blind")  # answers just before the per-decision timeout, game clock or not
    result = play(tmp_path, "bali-2017", [blind, RANDOM], time=TimeControl(timeout=0.3, init=20.0, game_clock=1.0))
    record = result.records[0]
    clock_faults = [f for f in record.faults if f.kind == FaultKind.CLOCK]
    assert len(clock_faults) == 1 and "--game-clock" in clock_faults[0].message()
    out = clock_faults[0].decision
    assert out is not None
    mine = [(n, d) for n, d in enumerate(record.decisions) if d.seat == 0]
    assert all(d.time is not None for n, d in mine if n <= out)
    assert all(d.time is None and d.index == 0 for n, d in mine if n > out)
    # The clock in charged time, and the arena's look at its end; on the wall clock, that and the wait for a core.
    assert sum(d.spent or 0.0 for _, d in mine) <= 1.0 + 0.1
    assert sum(d.time or 0.0 for _, d in mine) <= 1.0 + 0.1 + sum(d.wait or 0.0 for _, d in mine)
    assert record.disqualified == () and resimulate(record).reproduces
    # What `arena replay --seat 0` shows is what the bot was told: never more time than its game clock had left.
    told = [m.time for m in seat_messages(record, 0) if m.TYPE.value == "decide"]
    assert told[0].game_clock == 1.0 and all(t.remaining <= t.game_clock for t in told)
    spawned.assert_all_gone()


class HeldLock:
    """A thread of the arena's process that keeps Python's interpreter lock and is kept off its core: pinned at the
    lowest priority to one core that a CPU-bound process at the ordinary priority keeps busy. Whenever the arena's
    thread that waits for an answer needs the lock, it waits for this thread's next turn on that core, as it does on
    a busy machine behind the watchdog or a log reader that was preempted holding the lock."""

    def __init__(self) -> None:
        self.core = max(os.sched_getaffinity(0))
        self.burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        os.sched_setaffinity(self.burner.pid, {self.core})
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        os.sched_setaffinity(0, {self.core})
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        while not self.stop.is_set():
            pass  # pure Python: the lock is held from one switch interval to the next

    def __enter__(self) -> "HeldLock":
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()
        self.burner.kill()
        self.burner.wait()


@pytest.mark.slow
def test_the_arena_held_up_by_its_own_threads_on_the_interpreter_lock_does_not_charge_the_bot(
        tmp_path: Path, spawned: Spawned) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the thread that holds the lock needs a core of its own to be kept off")
    if not os.access("/proc/thread-self/sched", os.R_OK):
        pytest.skip("this kernel stamps no thread's stop (no /proc/PID/sched): decisions are charged as before")
    with HeldLock():
        mine, faults = paced(tmp_path, "sleep", 0.1, decisions=0, time=TimeControl(timeout=5.0, init=20.0))
    # Asleep 0.1 s at every decision, while the arena's thread that waits for the answer is held up for the lock
    # again and again, for up to seconds: the bot is charged its sleep (and what answering takes it), not the
    # arena's wait for the lock after the answer came. (5 s per decision: the arena held up before its request goes
    # out, a moment the meter cannot see, is rarer and is not what this shows.)
    charged = sorted(d.charged or 0.0 for d in mine)
    assert not faults and len(charged) > 20, faults
    assert charged[len(charged) * 3 // 4] < 0.1 + 0.05, charged
    assert sum(d.time or 0.0 for d in mine) > 2 * sum(charged), "the lock did not hold the arena up"
    spawned.assert_all_gone()
