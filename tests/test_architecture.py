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
