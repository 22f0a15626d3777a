"""Bad input of every kind a new user gives (options, bot commands, manifests, competition files, records, stores
missing, damaged or of another program, and the read commands on them): no traceback, exit 2 for usage and 1 for
the rest, and one line that names the problem and, where there is one, the way out."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.helpers import RANDOM, arena

BOT = "python3 my_bot.py"
FILES = {
    "my_bot.py": "from protocol import run_bot\nrun_bot(lambda view, options, decision: 0, name='my-bot')\n",
    "m_badtoml/manifest.toml": "name = 'x'\ncommand = [unclosed\n",
    "m_noname/manifest.toml": "version = '1'\ncommand = 'python3 bot.py'\n",
    "m_nocmd/manifest.toml": "name = 'a'\nversion = '1'\n",
    "m_badname/manifest.toml": "name = 'a b'\nversion = '1'\ncommand = 'python3 bot.py'\n",
    "m_noprog/manifest.toml": "name = 'a'\nversion = '1'\ncommand = 'no-such-prog-xyz'\n",
    "m_noscript/manifest.toml": "name = 'a'\nversion = '1'\ncommand = 'python3 nothere.py'\n",
    "m_transport/manifest.toml": "name = 'a'\nversion = '1'\ncommand = 'python3 bot.py'\ntransport = 'udp'\n",
    "m_nametype/manifest.toml": "name = 3\nversion = '1'\ncommand = 'python3 bot.py'\n",
    "m_unknown/manifest.toml": "name = 'a'\nversion = '1'\ncommand = 'python3 bot.py'\ncolour = 'red'\n",
    "m_buildtype/manifest.toml": "name = 'a'\nversion = '1'\ncommand = 'python3 bot.py'\nbuild = 5\n",
    "nomanifest/bot.py": "",
    "c_unknown.toml": f"game = 'bali-2017'\nbots = ['{BOT}', 'x={BOT}']\ncolour = 1\n",
    "c_badtoml.toml": "game = 'bali-2017\n",
    "c_seats.toml": f"game = 'bali-2017'\nseats = 'four'\nbots = ['{BOT}', 'x={BOT}']\n",
    "c_table.toml": "game = 'bali-2017'\n[time]\ntimeout = 1\nturbo = 2\n",
    "c_timetype.toml": "game = 'bali-2017'\ntime = 3\n",
    "c_options.toml": "game = 'bali-2017'\noptions = 3\n",
    "c_optlist.toml": "game = 'bali-2017'\n[options]\noracle = [1]\n",
    "c_game.toml": "game = 'chess'\n",
    "c_results.toml": "game = 'bali-2017'\nresults = 3\n",
    "c_badopt.toml": f"game = 'bali-2017'\nbots = ['{BOT}', 'x={BOT}']\n[options]\nnosuch = 1\n",
    "c_negative.toml": f"game = 'bali-2017'\nrounds = -1\nbots = ['{BOT}', 'x={BOT}']\n",
    "r_garbage.json": "{not json",
    "r_empty.json": "",
    "r_list.json": "[1, 2]",
    "r_obj.json": '{"a": 1}',
    "a_file": "",
    "st_garbage/results/arena.sqlite": "garbage" * 100,
    "st_empty/results/arena.sqlite": "",
}
NO_STORE = "no results store at 'results/arena.sqlite': run a tournament first, or give --db"
DAMAGED = ("is damaged", "recover what is readable with: sqlite3", "use --db recovered.sqlite")

# (folder, arguments, exit code, what the error line must say: the problem and the way out)
CASES = [
    # options
    (".", ["play", "bali-2017", "--players", "9"], 2, ["players must be an integer from 2 to 4, got 9"]),
    (".", ["play", "chess"], 2, ["unknown game 'chess'", "available: bali-2001, bali-2017"]),
    (".", ["play", "bali-2017", "-p", "2", "--seed", "abc"], 2, ["'--seed'", "'abc' is not a valid integer"]),
    (".", ["play", "bali-2017", "-p", "2", "--option", "oracle"], 2, ["'--option'", "expected KEY=VALUE"]),
    (".", ["play", "bali-2017", "-p", "2", "--option", "start_farmers=abc"], 2,
     ["'start_farmers' must be a list", "written as JSON, for example the default: [["]),
    (".", ["play", "bali-2017", "-p", "2", "--variant", "nosuch"], 2,
     ["'--variant'", "no variant 'nosuch'", "it has the variants oracle and demon"]),
    (".", ["play", "bali-2001", "-p", "3", "--option", "max_turns=0"], 2, ["'max_turns' must be a positive integer"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--timeout", "0"], 2, ["'--timeout'", "x>0"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--timeout", "abc"], 2, ["'--timeout'", "'abc'"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--games", "0"], 2, ["'--games'", "x>=1"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--players", "9"], 2, ["bali-2017 takes 2 to 4 bots, got 9"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--sandbox", "nosuch"], 2, ["'--sandbox'", "'auto', 'none'"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--memory-limit", "abc"], 2, ["'--memory-limit'", "'abc'"]),
    (".", ["validate", BOT], 2, ["Missing option '--game'"]),
    (".", ["match", "bali-2017", BOT], 2, ["bali-2017 takes 2 to 4 bots, got 1"]),
    (".", ["match", "bali-2017", *[BOT] * 5], 2, ["bali-2017 takes 2 to 4 bots, got 5"]),
    (".", ["tournament", "bali-2017"], 2, ["give at least one bot command or --submissions DIR"]),
    (".", ["tournament", "bali-2017", "--submissions", "nowhere"], 2, ["'nowhere' does not exist"]),
    (".", ["tournament", "bali-2017", BOT, "--format", "nosuch"], 2, ["'--format'", "'round-robin'"]),
    (".", ["tournament", "bali-2017", BOT, f"x={BOT}", "--seats", "9"], 2, ["2 to 4 seats, not 9"]),
    (".", ["tournament", "bali-2017", f"a={BOT}", f"a={BOT}"], 2,
     ["duplicate bot name 'a'", "give each bot its own name (NAME=COMMAND"]),
    (".", ["new", "x", "--lang", "cobol"], 2, ["'--lang'", "'python', 'javascript'"]),
    (".", ["new", "bad name", "--lang", "python"], 2, ["'bad name' is not a valid bot name", "1-64 letters"]),
    (".", ["new", "m_badtoml", "--lang", "python"], 2, ["'m_badtoml' already exists", "choose a new folder"]),
    (".", ["bench", "--count", "0"], 2, ["'--count'", "x>=1"]),
    (".", ["publish"], 2, ["Missing option '--output'"]),
    # bot commands and submission folders
    (".", ["validate", "python3 'my_bot.py", "-g", "bali-2017"], 2, ["cannot split bot command", "No closing quot"]),
    (".", ["validate", "", "-g", "bali-2017"], 2, ["a bot command must not be empty"]),
    (".", ["validate", "no-such-prog-xyz", "-g", "bali-2017"], 2, ["'no-such-prog-xyz' is not found on PATH"]),
    (".", ["validate", "python3 nothere.py", "-g", "bali-2017"], 2, ["the script 'nothere.py' does not exist"]),
    (".", ["validate", "nomanifest", "-g", "bali-2017"], 2,
     ["'nomanifest' is a folder without a manifest.toml", "arena new NAME --lang LANG"]),
    (".", ["validate", "m_badtoml", "-g", "bali-2017"], 2, ["m_badtoml/manifest.toml: not valid TOML", "line 2"]),
    (".", ["validate", "m_noname", "-g", "bali-2017"], 2, ["m_noname/manifest.toml: missing field 'name'"]),
    (".", ["validate", "m_nocmd", "-g", "bali-2017"], 2, ["m_nocmd/manifest.toml: missing field 'command'"]),
    (".", ["validate", "m_badname", "-g", "bali-2017"], 2, ["name 'a b' must be 1-64 letters"]),
    (".", ["validate", "m_noprog", "-g", "bali-2017"], 2, ["m_noprog/manifest.toml", "is not found on PATH"]),
    (".", ["validate", "m_noscript", "-g", "bali-2017"], 2, ["m_noscript/manifest.toml", "does not exist"]),
    (".", ["validate", "m_transport", "-g", "bali-2017"], 2, ["transport must be one of ipc, tcp, got 'udp'"]),
    (".", ["validate", "m_nametype", "-g", "bali-2017"], 2, ["field 'name' must be a non-empty string"]),
    (".", ["validate", "m_unknown", "-g", "bali-2017"], 2, ["unknown field 'colour'", "(fields: name, version"]),
    (".", ["validate", "m_buildtype", "-g", "bali-2017"], 2, ["field 'build' must be"]),
    # competition files
    (".", ["tournament", "--config", "nosuch.toml"], 2, ["cannot read the competition file 'nosuch.toml'"]),
    (".", ["tournament", "--config", "c_unknown.toml"], 2, ["unknown setting 'colour'", "the settings are: bots"]),
    (".", ["tournament", "--config", "c_badtoml.toml"], 2, ["the competition file 'c_badtoml.toml' is not valid TOML"]),
    (".", ["tournament", "--config", "c_seats.toml"], 2, ["c_seats.toml: bad value for 'seats'", "'four'"]),
    (".", ["tournament", "--config", "c_table.toml"], 2,
     ["unknown setting 'turbo' in [time]", "the settings there are: timeout"]),
    (".", ["tournament", "--config", "c_timetype.toml"], 2, ["'time' must be a table ([time])"]),
    (".", ["tournament", "--config", "c_options.toml"], 2, ["'options' must be a table ([options])"]),
    (".", ["tournament", "--config", "c_optlist.toml"], 2, ["game option 'oracle' must be a single value"]),
    (".", ["tournament", "--config", "c_game.toml"], 2, ["unknown game 'chess'", "available: bali-2001"]),
    (".", ["tournament", "--config", "c_results.toml"], 2, ["c_results.toml: 'results' must be a path"]),
    (".", ["tournament", "--config", "c_badopt.toml"], 2, ["unknown option 'nosuch'", "the variants oracle and demon"]),
    (".", ["tournament", "--config", "c_negative.toml"], 2, ["c_negative.toml: bad value for 'rounds'"]),
    # game records
    (".", ["replay", "nosuch.json"], 2, ["'nosuch.json' does not exist"]),
    (".", ["replay", "r_garbage.json"], 1, ["r_garbage.json is not JSON"]),
    (".", ["replay", "r_empty.json"], 1, ["r_empty.json is not JSON"]),
    (".", ["replay", "r_list.json"], 1, ["r_list.json is not a valid game record"]),
    (".", ["replay", "r_obj.json"], 1, ["r_obj.json is not a valid game record: field 'format'"]),
    (".", ["replay", "m_badtoml"], 2, ["'m_badtoml' is a directory"]),
    (".", ["replay", "r_edited.json"], 1, ["the replay does not reproduce the record", "decision #3 (seat"]),
    (".", ["replay", "r_version.json"], 1, ["field 'format_version'"]),
    (".", ["replay", "r_noseats.json"], 1, ["field 'seats': missing"]),
    (".", ["replay", "r_good.json", "--seat", "9"], 2, ["'--seat'", "the game had seats 0 to 1"]),
    (".", ["replay", "r_good.json", "--html", "nowhere/x.html"], 1, ["cannot write nowhere/x.html"]),
    # stores: none, damaged, of another program, a folder; and what is asked of a sound one
    *[(".", command, 1, [NO_STORE]) for command in (["leaderboard"], ["matches"], ["show", "1"],
                                                    ["publish", "-o", "site"], ["rerate"], ["tournaments"])],
    *[("st_garbage", command, 1, ["(file is not a database)", *DAMAGED]) for command in (["leaderboard"],
                                                                                         ["tournaments"])],
    ("st_trunc", ["matches"], 1, DAMAGED),
    ("st_trunc", ["publish", "-o", "site"], 1, DAMAGED),
    ("st_empty", ["show", "1"], 1, ["the results store results/arena.sqlite is empty", "run a tournament first"]),
    ("st_dir", ["matches"], 1, ["is a folder, not a results store: give --db the store's file"]),
    ("st_other", ["leaderboard"], 1, ["is not an arena results store", "give --db the right file"]),
    ("st_sound", ["show", "1"], 1, ["cannot show the replay", "No such file"]),
    ("st_sound", ["show", "9"], 2, ["no game 9 in", "its games are numbered 1 to 2", "arena matches -t"]),
    ("st_sound", ["show", "0"], 2, ["'GAME'", "x>=1"]),
    ("st_sound", ["show", "2", "--seat", "0"], 2, ["'--seat'", "only with --html"]),
    ("st_sound", ["leaderboard", "-t", "nosuch"], 2, ["no tournament 'nosuch'", "the tournaments there: "]),
    ("st_sound", ["leaderboard", "--format", "nosuch"], 2, ["'--format'", "'table', 'markdown'"]),
    ("st_sound", ["leaderboard", "--max-fault-rate", "2"], 2, ["'--max-fault-rate'", "0<=x<=1"]),
    ("st_sound", ["publish", "-o", "site", "-t", "nosuch"], 2, ["no tournament 'nosuch'", "the tournaments there"]),
    ("st_sound", ["publish", "-o", "../a_file"], 2, ["'../a_file' is a file"]),
    # output paths that cannot be made or written: under /proc, under a file, a missing folder
    ("st_sound", ["publish", "-o", "/proc/site"], 1, ["cannot write the site into '/proc/site'"]),
    ("st_sound", ["publish", "-o", "../a_file/site"], 1, ["cannot write the site into '../a_file/site'",
                                                          "Not a directory"]),
    ("st_sound", ["leaderboard", "-o", "/proc/board.md"], 1, ["cannot write the leaderboard to '/proc/board.md'"]),
    ("st_sound", ["leaderboard", "-o", "nowhere/board.md"], 1, ["cannot write the leaderboard to 'nowhere/board.md'",
                                                               "No such file or directory"]),
    ("st_sound", ["leaderboard", "-o", "../a_file/board.md"], 1, ["cannot write the leaderboard", "Not a directory"]),
    ("st_sound", ["show", "2", "--html", "/proc/x.html"], 1, ["cannot write /proc/x.html"]),
    (".", ["new", "/proc/bot", "--lang", "python"], 2, ["cannot create '/proc/bot'"]),
    # validate's game options
    (".", ["validate", BOT, "-g", "bali-2017", "--variant", "nosuch"], 2, ["bali-2017 has no variant 'nosuch'",
                                                                             "the variants oracle and demon"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--option", "nonsense"], 2, ["'--option'", "expected KEY=VALUE"]),
    (".", ["validate", BOT, "-g", "bali-2017", "--option", "max_turns=50"], 2, ["bad options for bali-2017",
                                                                                 "max_turns"]),
    # a command line's script in the results folder, which the sandbox would hide from it
    (".", ["validate", BOT, "-g", "bali-2017", "--results", "."], 2, ["my_bot.py lies in the results folder",
                                                                       "give --results another folder"]),
    (".", ["tournament", "bali-2017", f"a={BOT}", f"b={RANDOM}", "--results", "."], 2,
     ["my_bot.py lies in the results folder", "give --results another folder"]),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every bad file of the table, and stores made by a real match (sound, truncated, missing a record)."""
    root = tmp_path_factory.mktemp("bad-input")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "st_dir" / "results" / "arena.sqlite").mkdir(parents=True)
    (root / "st_other" / "results").mkdir(parents=True)
    with sqlite3.connect(root / "st_other" / "results" / "arena.sqlite") as con:
        con.execute("CREATE TABLE notes (text)")
    sound = root / "st_sound"
    sound.mkdir()
    assert arena("match", "bali-2017", RANDOM, RANDOM, "--games", "2", cwd=sound).returncode == 0
    record = next((sound / "results" / "matches").glob("*/game-0001.json"))
    shutil.copy(record, root / "r_good.json")
    data = json.loads(record.read_text(encoding="utf-8"))
    for name, change in (("r_edited.json", lambda d: d["decisions"][3].update(index=99)),
                         ("r_version.json", lambda d: d.update(format_version=99)),
                         ("r_noseats.json", lambda d: d.pop("seats"))):
        edited = json.loads(json.dumps(data))
        change(edited)
        (root / name).write_text(json.dumps(edited), encoding="utf-8")
    store = (sound / "results" / "arena.sqlite").read_bytes()
    (root / "st_trunc" / "results").mkdir(parents=True)
    (root / "st_trunc" / "results" / "arena.sqlite").write_bytes(store[:len(store) // 2])
    record.unlink()  # the sound store's game 1 has lost its record
    return root


@pytest.mark.parametrize("where, args, code, says", CASES, ids=[" ".join([w, *a])[:60] for w, a, _, _ in CASES])
def test_bad_input_gets_one_line_naming_the_problem_and_the_way_out(
        folder: Path, monkeypatch: pytest.MonkeyPatch, where: str, args: list[str], code: int, says: list[str]) -> None:
    monkeypatch.chdir(folder / where)
    result = CliRunner().invoke(main, args)
    assert isinstance(result.exception, SystemExit), result.exc_info  # a traceback would be another exception
    assert result.exit_code == code, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and result.output.rstrip().endswith(errors[0]), result.output
    assert all(s in errors[0] for s in says), (errors[0], says)


def test_the_table_holds_sixty_bad_inputs_of_every_kind() -> None:
    assert len(CASES) >= 60
    kinds = {args[0] for _, args, _, _ in CASES}
    assert {"play", "validate", "match", "tournament", "replay", "leaderboard", "matches", "show", "publish",
            "rerate", "tournaments", "new", "bench"} <= kinds
