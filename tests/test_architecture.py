"""docs/ARCHITECTURE.md is true: every path it names exists, its layer table names every module of arena/, each
layer imports only from the layers below it (read from the imports themselves, those inside functions and under
TYPE_CHECKING included), and no module of arena/ is part of an import cycle."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PROJECT = ("arena", "protocol", "sample_bots")

# Imports that break the layer rule today, each with why; a fix removes its line (the test fails on a stale one).
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()


@lru_cache(maxsize=1)
def layers() -> list[tuple[str, list[str]]]:
    """The rows of the layer table, bottom layer first: (layer, the paths its second column names)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    table = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        table.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return table


def layer_of(path: str) -> int | None:
    """The index of the layer whose table row names path or a folder holding it (the longest match)."""
    best: tuple[int, int] | None = None
    for index, (_, paths) in enumerate(layers()):
        for named in paths:
            if path == named or (named.endswith("/") and path.startswith(named)):
                if best is None or len(named) > best[1]:
                    best = (index, len(named))
    return None if best is None else best[0]


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Every Python module of the project's packages by dotted name (a package by its own name)."""
    found = {}
    for package in PROJECT:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "__pycache__" in relative.parts or (relative.parts[:2] == ("arena", "kits") and len(relative.parts) > 3):
                continue  # a starter kit's template bot is copied out for an author, not imported
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _targets(node: ast.AST, known: dict[str, Path]) -> list[str]:
    """The project modules an import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                 for alias in node.names]
    else:
        return []
    found = []
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name.split(".")[0] in PROJECT:
            found.append(name)
    return found


@lru_cache(maxsize=1)
def imports() -> dict[str, set[str]]:
    """The project modules each module of arena/ imports, wherever in it the import stands."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        if name.split(".")[0] != "arena":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {target for node in ast.walk(tree) for target in _targets(node, known) if target != name}
    return graph


def _path(module: str) -> str:
    return modules()[module].relative_to(ROOT).as_posix()


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:arena|protocol|sample_bots|tests|docs)/[^`\s]*)`", text))
    named |= {(DOC.parent / link).resolve().relative_to(ROOT).as_posix()
              for link in re.findall(r"\]\(([^)#:]+)\)", text)}
    assert len(named) > 30  # the table and the prose name the tree
    missing = [path for path in sorted(named) if not list(ROOT.glob(re.sub(r"<[^>]+>", "*", path.rstrip("/"))))]
    assert missing == [], f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"


def test_the_layer_table_names_every_module_of_arena() -> None:
    top = [p for p in sorted((ROOT / "arena").iterdir()) if p.suffix == ".py" or (p / "__init__.py").is_file()]
    entries = [p.relative_to(ROOT).as_posix() + ("/" if p.is_dir() else "") for p in top]
    named = [path for _, paths in layers() for path in paths]
    assert [e for e in entries if e not in named] == [], "modules of arena/ the layer table does not name"
    assert len(named) == len(set(named)), "the layer table names a module twice"
    assert all(layer_of(_path(m)) is not None for m in imports()), "a module of arena/ without a layer"


def test_each_layer_imports_only_from_the_layers_below() -> None:
    violations = set()
    for module, targets in imports().items():
        mine = layer_of(_path(module))
        for target in targets:
            theirs = layer_of(_path(target))
            if theirs is None or mine is None or theirs > mine:
                violations.add((_path(module), _path(target)))
    assert violations - KNOWN_VIOLATIONS == set(), "imports from a layer above (docs/ARCHITECTURE.md, Layers)"
    assert KNOWN_VIOLATIONS - violations == set(), "fixed: take these off KNOWN_VIOLATIONS"


def test_no_module_of_arena_is_in_an_import_cycle() -> None:
    graph = imports()
    cycles = []
    for start in graph:
        # Depth-first from start: a path back to start is a cycle through it.
        stack, seen = [(start, (start,))], set()
        while stack:
            node, path = stack.pop()
            for target in graph.get(node, ()):
                if target == start:
                    cycles.append(" -> ".join(path + (start,)))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, path + (target,)))
    assert cycles == [], "\n".join(sorted(set(cycles))[:20])


def test_the_ratings_import_nothing_of_the_arena_but_its_errors() -> None:
    """The statistics stand below every layer that uses them: a leaderboard reads a store, so it is not among them."""
    found = {target for module, targets in imports().items() if module.startswith("arena.ratings")
             for target in targets if not target.startswith("arena.ratings")}
    assert found == {"arena.errors"}


def test_every_registered_game_has_every_file_adding_a_game_names() -> None:
    from arena.games import available, package

    section = DOC.read_text(encoding="utf-8").split("**Adding a game**", 1)[1].split("\n\n", 2)[:2]
    named = sorted({p for p in re.findall(r"`([^`\s]*<game>[^`\s]*)`", "\n\n".join(section)) if "/" in p})
    assert len(named) >= 6, named
    for game in available():
        missing = [path for path in named if not (ROOT / path.replace("<game>", package(game))).exists()]
        assert missing == [], f"{game} lacks what docs/ARCHITECTURE.md's 'Adding a game' names"


def test_no_format_is_told_apart_by_its_class_outside_the_formats() -> None:
    """A format answers its own questions (seats, rounds, whether its entrants change): nothing outside
    arena/tournament/formats/ tests which format it holds."""
    from arena.tournament.formats import FORMATS

    classes = {type(f).__name__ for f in FORMATS.values()} | {"FixedFormat", "TournamentFormat"}
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name.startswith("arena.tournament.formats"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                found += [f"{name}: isinstance(..., {c})" for c in names & classes]
    assert found == []


def test_no_module_outside_the_sandbox_compares_against_a_sandbox_level() -> None:
    """What a level gives (its own namespaces, its helper processes) is asked of the Sandbox; only
    the sandbox package (arena/bots/sandbox/) compares a level against an Isolation member."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name == "arena.bots.sandbox" or name.startswith("arena.bots.sandbox."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                     for op in node.ops):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and isinstance(s.value, ast.Name) and s.value.id == "Isolation"
                       for s in sides):
                    found.append(f"{name}:{node.lineno}")
    assert found == []


SQL_CALLS = ("execute", "executemany", "executescript")


def test_no_sql_outside_the_storage_package() -> None:
    """Every SQL statement of the arena is run by arena/storage/ (a store of another kind is one package): no
    other module calls a connection's execute or opens SQLite itself."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name.startswith("arena.storage"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            if isinstance(called, ast.Attribute) and (called.attr in SQL_CALLS or
                                                      (called.attr == "connect" and isinstance(called.value, ast.Name)
                                                       and called.value.id == "sqlite3")):
                found.append(f"{name}:{node.lineno}")
    assert found == []


ORGANISER_READERS = {"arena.competition.access", "arena.cli.authors"}  # the policy; a listing of the accounts


def test_only_the_access_policy_asks_whether_a_viewer_is_the_organiser() -> None:
    """Who may see what is decided in one place (arena/competition/access.py): no route, page or other module reads
    an author's `organiser` to decide it (the accounts' own listing only shows it)."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name in ORGANISER_READERS or name.startswith("arena.storage"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "organiser" and isinstance(node.ctx, ast.Load):
                found.append(f"{name}:{node.lineno}")
    assert found == []


def test_the_web_layer_imports_nothing_of_the_bots() -> None:
    """arena/server/ is routes, templates, sessions and streams over the competition's library: building, checking
    and running bots (arena/bots/) is the competition's and the tournament's business, never a route's."""
    found = sorted(f"{module} -> {target}" for module, targets in imports().items() if module.startswith("arena.server")
                   for target in targets if target == "arena.bots" or target.startswith("arena.bots."))
    assert found == []


def test_every_folder_of_tests_is_named_after_a_package() -> None:
    """tests/ mirrors the packages: each folder of tests is named after a package of arena/ or a top-level one;
    the bot programs the tests run are in a folder named as such."""
    packages = {p.name for p in (ROOT / "arena").iterdir() if (p / "__init__.py").is_file()} | set(PROJECT)
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders - packages == set()
    assert not any((ROOT / "tests" / "bot_programs").glob("test_*.py"))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_no_function_outside_the_tests_is_over_fifty_lines() -> None:
    """Functions stay short: from its def line to its last, none of the project's packages has one over 50 lines."""
    found = [f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
             for name, path in modules().items()
             for node in _functions(ast.parse(path.read_text(encoding="utf-8")))
             if node.end_lineno is not None and node.end_lineno - node.lineno + 1 > 50]
    assert len(modules()) > 100  # every package is read
    assert found == []


def test_every_public_name_of_the_game_interface_has_a_docstring() -> None:
    """The game interface (arena/games/__init__.py and base.py) documents every public class, function and method."""
    found = []
    for name in ("arena.games", "arena.games.base"):
        tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
        todo: list[tuple[str, ast.AST]] = [("", tree)]
        while todo:
            prefix, node = todo.pop()
            for child in getattr(node, "body", []):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                        not child.name.startswith("_"):
                    if not ast.get_docstring(child):
                        found.append(f"{name}.{prefix}{child.name}")
                    if isinstance(child, ast.ClassDef):
                        todo.append((f"{prefix}{child.name}.", child))
    assert found == []


def test_the_tournament_settings_travel_typed() -> None:
    """No function of arena/tournament/ takes its keywords as `**...: Any` (but a wrapper that passes `*args` and
    `**kwargs` on as they came): the settings are typed (a Play, the spec's own fields) from the command line to the
    spec."""
    found = [f"{name}.{node.name}" for name, path in modules().items() if name.startswith("arena.tournament")
             for node in _functions(ast.parse(path.read_text(encoding="utf-8")))
             if node.args.kwarg is not None and node.args.vararg is None
             and isinstance(node.args.kwarg.annotation, ast.Name)
             and node.args.kwarg.annotation.id == "Any"]
    assert found == []


ADMISSION_STEPS = re.compile(r"^_?(build|build_step|game_step|run_step|admit_one|first_game)$")


def test_the_competition_runs_no_admission_step_of_its_own() -> None:
    """Admission is one pipeline in the tournament layer (arena/tournament/admission/), which the command line and
    the season drive alike: arena/competition/ declares no Admitter and no worker of its own, defines no build or
    first-game step, and neither builds a folder nor plays a first game itself."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.competition"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name in ("Admitter", "AdmissionWorker"):
                found.append(f"{name}: class {node.name}")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and ADMISSION_STEPS.match(node.name):
                found.append(f"{name}: def {node.name}")
            called = node.func if isinstance(node, ast.Call) else None
            called_name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", None)
            if called_name in ("ensure_built", "run_build", "first_game", "run_match"):
                found.append(f"{name}:{node.lineno}: {called_name}()")
    assert found == []
    assert "arena.bots.submission" not in {t for m, ts in imports().items() if m.startswith("arena.competition")
                                           for t in ts}


AUTHOR_PATHS = re.compile(r"(without|strip|host)\w*paths?|shown_to_author|_for_author$")


def test_one_function_says_what_an_author_is_shown_of_a_path() -> None:
    """Whatever an author reads (a refusal, a build log, a replay's data) loses the paths of the arena's machine
    in one function, arena/bots/shown.py's shown_to_author: no other function of arena/ is defined for it, and no
    module replaces a path in a text by hand (`text.replace(str(folder), ...)`)."""
    defined, by_hand = [], []
    for name, path in modules().items():
        if not name.startswith("arena."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and AUTHOR_PATHS.search(node.name):
                defined.append(f"{name}.{node.name}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace" \
                    and node.args and (isinstance(node.args[0], ast.JoinedStr) or (
                        isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Name)
                        and node.args[0].func.id == "str")):
                by_hand.append(f"{name}:{node.lineno}")
    assert defined == ["arena.bots.shown.shown_to_author"]
    assert by_hand == []


MANIFEST_WORDS = ("must be a non-empty string", "unknown field", "not valid TOML")


def test_a_manifest_s_fields_are_checked_in_one_module() -> None:
    """A manifest is checked by arena/bots/manifest.py alone, for a submission folder and an uploaded archive alike:
    no other module that reads a manifest parses its TOML, imports the list of its fields or words a field's
    problem."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name == "arena.bots.manifest":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        manifests = "MANIFEST" in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.alias) and node.name == "FIELDS":
                found.append(f"{name}: imports FIELDS")
            if manifests and isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    any(words in node.value for words in MANIFEST_WORDS):
                found.append(f"{name}:{node.lineno}: {node.value[:40]!r}")
            if isinstance(node, ast.Attribute) and node.attr == "loads" and isinstance(node.value, ast.Name) \
                    and node.value.id == "tomllib" and manifests:
                found.append(f"{name}:{node.lineno}: tomllib.loads of a manifest")
    assert found == []


def test_the_runner_keeps_nothing_for_a_long_lived_caller() -> None:
    """The Runner plays one schedule into a store: no field lends it a caller's ratings, workers, paces or counts
    across runs (a long-lived ladder is arena/tournament/ladder.py's), and no branch asks for one."""
    import dataclasses

    from arena.tournament.run import Runner

    lent = {"ladder", "sweep", "pool", "recorded", "pace"}
    assert {f.name for f in dataclasses.fields(Runner)} & lent == set()
    tree = ast.parse(modules()["arena.tournament.run"].read_text(encoding="utf-8"))
    runner = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Runner")
    asked = sorted({n.attr for n in ast.walk(runner) if isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr in lent})
    assert asked == []


def _private_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module assigns (or setattr()s) a private attribute of an object other than its own `self`/`cls`."""
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            owner, attribute = node.args[0], node.args[1].value
            if attribute.startswith("_") and not attribute.endswith("_") and not (
                    isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, f"setattr({ast.unparse(owner)}, {attribute!r})"))
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and sub.attr.startswith("_") and not sub.attr.endswith("_") and \
                        not (isinstance(sub.value, ast.Name) and sub.value.id in ("self", "cls")):
                    found.append((node.lineno, ast.unparse(sub)))
    return found


def test_no_module_writes_a_private_attribute_of_another_object() -> None:
    """An object is stopped, cut short or changed through its public methods: no module of the project assigns an
    attribute with a leading underscore of anything but its own `self` (an enum's `_value_` aside)."""
    found = [f"{name}:{line}: {text}" for name, path in modules().items()
             for line, text in _private_writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def _calls_of(tree: ast.AST) -> set[str]:
    return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))}


def test_the_ladder_format_and_the_served_season_play_through_the_one_ladder() -> None:
    """`arena tournament --format ladder` and the season each open an arena.tournament.ladder.Ladder; the season
    builds no Runner (a run a wave, its tournament reopened and its field rejoined each time), and its waves
    neither scan the tournaments and the roster nor read a bot's manifest: the ladder keeps them."""
    users = {"arena.cli.tournament", "arena.competition.season"}
    for name in users:
        tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
        imported = {(n.module, alias.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    for alias in n.names}
        assert ("arena.tournament.ladder", "Ladder") in imported, name
        assert "Ladder" in _calls_of(tree), name
    season = ast.parse(modules()["arena.competition.season"].read_text(encoding="utf-8"))
    assert "Runner" not in _calls_of(season)
    classes = {n.name: n for n in ast.walk(season) if isinstance(n, ast.ClassDef)}
    waves = [f for f in _functions(classes["Season"]) if f.name in ("_ladder", "play_wave")]
    assert len(waves) == 2
    scans = {"tournaments", "roster", "from_folder", "paused", "pause_reason", "faulty_streak", "recorded_count"}
    assert sorted(set().union(*(_calls_of(f) for f in waves)) & scans) == []


def test_the_long_lived_ladder_and_the_runner_are_each_under_250_lines() -> None:
    """The ladder's state and the Runner's one schedule stay small enough to read whole."""
    for name, cls in (("arena.tournament.ladder", "Ladder"), ("arena.tournament.run", "Runner"),
                      ("arena.tournament.run", "Tables")):
        tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
        node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls)
        assert node.end_lineno is not None and node.end_lineno - node.lineno + 1 <= 250, (name, cls)


CLASS_LINES = 250  # about where a class starts answering more than one question
# Classes over it today, each with why; a split takes its line off (the test fails on a stale one).
KNOWN_LONG_CLASSES: set[str] = set()


def test_no_class_of_the_arena_is_over_about_250_lines() -> None:
    """A class answers one question: from its class line to its last, none of arena/ is over CLASS_LINES lines but
    the known ones."""
    found = {f"{name}.{node.name}" for name, path in modules().items() if name.startswith("arena.")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ClassDef) and node.end_lineno is not None
             and node.end_lineno - node.lineno + 1 > CLASS_LINES}
    assert found - KNOWN_LONG_CLASSES == set(), f"classes over {CLASS_LINES} lines"
    assert KNOWN_LONG_CLASSES - found == set(), "split: take these off KNOWN_LONG_CLASSES"


def _server_modules() -> list[tuple[str, ast.AST]]:
    return [(name, ast.parse(path.read_text(encoding="utf-8"))) for name, path in modules().items()
            if name == "arena.server" or name.startswith("arena.server.")]


def test_only_the_middleware_asks_who_sent_a_request() -> None:
    """Who sent a request is asked once, by the authentication middleware (arena/server/guard.py), and every route
    is built there, held to the rule its handler states: no handler calls who() or checks by hand, and only the
    authentication seam (arena/server/auth.py) reads the session cookie."""
    found = []
    for name, tree in _server_modules():
        for node in ast.walk(tree):
            called = node.func if isinstance(node, ast.Call) else None
            if isinstance(called, ast.Attribute) and called.attr == "who" and name != "arena.server.guard":
                found.append(f"{name}:{node.lineno} calls who()")
            if isinstance(called, ast.Name) and called.id == "Route" and name != "arena.server.guard":
                found.append(f"{name}:{node.lineno} builds a Route")
            if isinstance(node, ast.Attribute) and node.attr == "cookies" and name != "arena.server.auth":
                found.append(f"{name}:{node.lineno} reads the cookies")
    assert found == []


def test_no_request_of_the_server_scans_the_tournaments() -> None:
    """The served ladder's tournament is looked up by name until it exists and then held
    (arena/competition/queries.py): nothing in arena/server/ lists every tournament of the store to find it."""
    found = [f"{name}:{node.lineno}" for name, tree in _server_modules() for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tournaments"]
    assert found == []


def test_the_server_package_only_names_what_it_offers() -> None:
    """arena/server/__init__.py re-exports what the package offers; the processes it runs are supervise.py's."""
    assert len((ROOT / "arena" / "server" / "__init__.py").read_text(encoding="utf-8").splitlines()) < 40


GAME_PACKAGES = {"bali2001", "bali2017"}  # a game's side in another layer (arena/viewer/games/) is named after it
NAMED_AFTER_COMMANDS = ("arena.cli", "arena.bench")  # modules named after the command or benchmark they run


def test_no_module_shadows_a_package_or_a_module_of_another_layer() -> None:
    """A module's name says what it holds and means one thing: none is named like a package of arena/ (but a game's
    side, named after its game), and no module at the top of a package shares its name with one at the top of a
    package of another layer (the command line's and the benchmarks' modules are named after their commands)."""
    mine = {name: path for name, path in modules().items() if name.startswith("arena.")
            and not any(name == p or name.startswith(p + ".") for p in NAMED_AFTER_COMMANDS)}
    packages = {name.rsplit(".", 1)[-1] for name, path in modules().items() if path.name == "__init__.py"}
    found = [name for name, path in mine.items() if path.name != "__init__.py"
             and name.rsplit(".", 1)[-1] in packages - GAME_PACKAGES]
    tops: dict[str, set[int | None]] = {}
    for name, path in mine.items():
        if path.name != "__init__.py" and name.count(".") == 2:  # arena.<package>.<module>
            tops.setdefault(name.rsplit(".", 1)[-1], set()).add(layer_of(_path(name)))
    found += [f"{stem}.py in {len(layers)} layers" for stem, layers in sorted(tops.items()) if len(layers) > 1]
    assert found == []


def _code_strings(tree: ast.AST) -> list[ast.AST]:
    """The string constants and f-strings of a module's code, its docstrings left out."""
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Constant)}
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Constant, ast.JoinedStr))
            and id(node) not in docstrings]


def test_a_games_record_file_is_named_in_one_place() -> None:
    """A match's record of a game is game-0001.json, game-0002.json...: one function (record_file in
    arena/match/record.py) spells the name; every writer and reader asks it."""
    found = []
    for name, path in modules().items():
        for node in _code_strings(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if "game-" in text and ".json" in text:
                    found.append(f"{name}:{node.lineno}")
            elif isinstance(node.value, str) and "game-0001" in node.value:
                found.append(f"{name}:{node.lineno}")
    assert [place.split(":")[0] for place in found] == ["arena.match.record"], found


def test_a_name_given_twice_is_numbered_in_one_place() -> None:
    """NAME, NAME-2, NAME-3 (entrants, sample bots, tournaments, keys): one loop counts past the names taken
    (free_name in arena/numbering.py), and every place that numbers a name calls it."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and \
                    any(isinstance(op, ast.In) for op in node.test.ops) and \
                    any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) for n in ast.walk(node)):
                found.append(name)
    assert found == ["arena.numbering"]


SHARED_TEST_FOLDERS = {
    "bot_programs": "the faulty and hostile bots the tests of several packages run",
    "fixtures": "stores and folders of earlier versions that the storage and server tests load (its README.md)",
    "artifacts": "the screenshots the browser tests write for a person to look at (ignored by git)",
}


def test_the_tests_mirror_the_packages_both_ways() -> None:
    """Every package of arena/ has its folder of tests, and every folder of tests names a package of arena/ or a
    top-level one, or is a shared folder named with its reason in SHARED_TEST_FOLDERS."""
    packages = {p.name for p in (ROOT / "arena").iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    tested = {name for name in folders if any((ROOT / "tests" / name).rglob("test_*.py"))}
    assert packages - tested == set(), "packages of arena/ without a folder of tests"
    assert folders - packages - set(PROJECT) - set(SHARED_TEST_FOLDERS) == set(), "folders of tests of no package"
    assert all((ROOT / "tests" / name).is_dir() for name in SHARED_TEST_FOLDERS), "a shared folder that is gone"


COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")  # a commit's hash, short or whole


def test_the_reference_docs_name_no_commit() -> None:
    """docs/ describes the arena as it is; its history, and the commits it names, are in docs/changes.md only."""
    found = [f"{path.name}: {match}" for path in sorted((ROOT / "docs").glob("*.md")) if path.name != "changes.md"
             for match in COMMIT.findall(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_play_settings_are_declared_once_in_the_play_a_spec_holds() -> None:
    """The game, its options, clocks, sandbox and ratings are declared by Play alone: TournamentSpec holds a Play,
    declares none of them again, and no TypedDict of the tournament layer lists a spec's settings."""
    from dataclasses import fields

    from arena.tournament.formats.base import Play, TournamentSpec

    spec = {f.name: f.type for f in fields(TournamentSpec)}
    assert spec.get("play") == "Play" and not {f.name for f in fields(Play)} & set(spec)
    typed_dicts = [f"{name}.{node.name}" for name, path in modules().items() if name.startswith("arena.")
                   for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "TypedDict"
                                                             for b in node.bases)]
    assert not [t for t in typed_dicts if t.endswith(".PlaySettings")] and not [
        t for t in typed_dicts if t.startswith("arena.tournament")]


def test_the_sample_opponents_and_the_spec_are_imported_from_their_own_modules() -> None:
    """The runner plays a schedule: the sample bots come from arena/tournament/opponents.py and the spec with its
    checks from arena/tournament/formats/base.py, never handed on by arena/tournament/run.py."""
    owned = {"sample_opponents", "faulty_samples", "DEFAULT_LEVEL", "SAMPLE_VERSION", "TournamentSpec", "Play",
             "check_spec", "check_options"}
    found = [f"{name}: {alias.name}" for name, path in modules().items()
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module == "arena.tournament.run"
             for alias in node.names if alias.name in owned]
    found += [f"tests: {alias.name}" for path in sorted((ROOT / "tests").rglob("*.py"))
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ImportFrom) and node.module == "arena.tournament.run"
              for alias in node.names if alias.name in owned]
    assert found == []


def _strings(node: ast.AST) -> bool:
    """Whether node is a string constant, or a tuple, list or set of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_strings(e) for e in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


OTHERS_STATUSES = {"arena.tournament.cluster"}  # Dask's client and futures: their statuses are Dask's strings


def test_no_status_is_compared_as_a_string() -> None:
    """A stored game's status (GameStatus) and a submission's (Status) are enums: no module of arena/ compares a
    `status` against a string of its own spelling."""
    found = []
    for name, path in modules().items():
        if not name.startswith("arena.") or name in OTHERS_STATUSES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and s.attr == "status" for s in sides) and \
                        any(_strings(s) for s in sides):
                    found.append(f"{name}:{node.lineno}")
    assert found == []


def test_the_competition_and_the_server_find_a_tournament_by_its_name() -> None:
    """The season's ladder, its finals and a challenge are each found by name (Store.named_tournament, or held once
    found: queries.LadderTournament), never by reading every tournament of the store at each request or wave."""
    found = [f"{name}:{node.lineno}" for name, path in modules().items()
             if name.startswith(("arena.competition", "arena.server"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tournaments"]
    assert found == []


def test_no_two_parts_of_the_store_define_the_same_method() -> None:
    """Store is its parts over one connection (arena/storage/store.py): a method two parts define would be one
    part's silently, by the order of Store's bases."""
    defined: dict[str, list[str]] = {}
    for name, path in modules().items():
        if name.startswith("arena.storage."):
            for cls in (n for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.ClassDef)):
                for method in (f for f in cls.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("__")):
                    defined.setdefault(method.name, []).append(f"{name}.{cls.name}")
    assert {m: where for m, where in defined.items() if len(where) > 1} == {}
