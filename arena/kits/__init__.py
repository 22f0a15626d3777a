"""Starter kits for `arena new`: a template folder per language, copied and filled in, and what each needs."""

from __future__ import annotations

import glob
import io
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from arena.bots.manifest import MANIFEST, NAME_PATTERN, NAME_RULE
from arena.bots.sandbox.paths import which
from arena.errors import ConfigError

TEMPLATE_SUFFIXES = (".toml", ".py", ".js", ".json", ".cpp", ".java", ".rs", ".md", ".txt", "Makefile")
KIT_FILES = ("__init__.py",)  # the package's own files, not part of any kit


class Language(StrEnum):
    """The languages a kit exists for; the value is the --lang name and the template folder."""

    PYTHON = "python"
    JAVASCRIPT = "javascript"
    CPP = "cpp"
    JAVA = "java"
    RUST = "rust"


@dataclass(frozen=True)
class Need:
    """Something a kit needs to build and run: a program on PATH, a file (glob) or a Python module, and what
    provides it."""

    program: str = ""
    path: str = ""
    module: str = ""
    install: str = ""  # Debian packages, or for a Python module the pip packages

    def met(self) -> bool:
        """True if it is there."""
        if self.program:
            return which(self.program) is not None
        if self.path:
            return bool(glob.glob(self.path))
        return _python_has(self.module)


_HEADERS = "/usr/include"
_JARS = "/usr/share/java"
_CRATES = "/usr/share/cargo/registry"
NEEDS: dict[Language, tuple[Need, ...]] = {
    Language.PYTHON: (Need(program="python3", install="python3"), Need(module="zmq", install="pyzmq"),
                      Need(module="msgpack", install="msgpack")),
    Language.JAVASCRIPT: (Need(program="node", install="nodejs"), Need(program="npm", install="npm")),
    Language.CPP: (Need(program="g++", install="g++"), Need(program="make", install="make"),
                   Need(path=f"{_HEADERS}/zmq.h", install="libzmq3-dev"),
                   Need(path=f"{_HEADERS}/zmq.hpp", install="cppzmq-dev"),
                   Need(path=f"{_HEADERS}/msgpack.hpp", install="libmsgpack-cxx-dev")),
    Language.JAVA: (Need(program="javac", install="default-jdk-headless"), Need(program="jar",
                    install="default-jdk-headless"), Need(program="make", install="make"),
                    Need(path=f"{_JARS}/jeromq.jar", install="libjeromq-java"),
                    Need(path=f"{_JARS}/msgpack-core.jar", install="libmsgpack-java")),
    Language.RUST: (Need(program="cargo", install="cargo"), Need(program="pkg-config", install="pkg-config"),
                    Need(path=f"{_HEADERS}/zmq.h", install="libzmq3-dev"),
                    Need(path=f"{_CRATES}/zmq-0.*", install="librust-zmq-dev"),
                    Need(path=f"{_CRATES}/rmp-serde-1.*", install="librust-rmp-serde-dev")),
}


# What `arena new` runs in a new folder, with the network, so that the arena's build (which has none) need not:
# the exact versions of package-lock.json into node_modules/.
PREPARE: dict[Language, tuple[str, ...]] = {Language.JAVASCRIPT: ("npm", "ci", "--no-audit", "--no-fund")}
PREPARED = {Language.JAVASCRIPT: "node_modules"}  # where each step installs, removed if it is interrupted
PREPARE_TIMEOUT = 600.0  # seconds


def prepare(folder: Path, language: Language) -> str | None:
    """Fetch what the kit's build needs into folder (the network is used here, never in the arena's build);
    None if it worked or nothing is needed, else one line saying what failed and what to run instead."""
    step = PREPARE.get(language)
    if step is None:
        return None
    try:
        run = subprocess.run(step, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=PREPARE_TIMEOUT)
        failed = None if run.returncode == 0 else (run.stderr.strip().splitlines() or [f"status {run.returncode}"])[-1]
    except (OSError, subprocess.TimeoutExpired) as exc:
        failed = str(exc)
    except KeyboardInterrupt:
        if language in PREPARED:  # no half-installed packages left behind
            shutil.rmtree(folder / PREPARED[language], ignore_errors=True)
        raise
    if failed is None:
        return None
    return f"could not fetch the packages ({' '.join(step)}: {failed[:200]}); {prepare_advice(folder, language)}"


def prepare_advice(folder: Path, language: Language) -> str:
    """What to run, where, to fetch the kit's packages by hand."""
    step = " ".join(PREPARE.get(language, ()))
    return f"run `{step}` in {folder} with the network before validating: the arena's build has none"


def missing(language: Language) -> list[Need]:
    """What the kit of language needs and this machine lacks."""
    return [need for need in NEEDS[language] if not need.met()]


def install_hint(needs: list[Need]) -> str:
    """How to install what is missing, in one line."""
    pip = [n.install for n in needs if n.module]
    apt = list(dict.fromkeys(n.install for n in needs if not n.module))
    parts = ([f"apt-get install {' '.join(apt)}"] if apt else []) + \
        ([f"python3 -m pip install {' '.join(pip)}"] if pip else [])
    return " and ".join(parts)


def _python_has(module: str) -> bool:
    python = which("python3")  # the bots' python3: the arena's interpreter first
    if python is None:
        return False
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=30).returncode == 0


def identifier(name: str) -> str:
    """name as a package or crate name: letters, digits and '_' only, starting with a letter."""
    word = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return word if word[:1].isalpha() else f"bot_{word}"


def create(folder: Path, language: Language) -> Path:
    """A new submission folder from the kit of language, its bot named after the folder; ConfigError if the
    folder exists or the name is not a valid bot name."""
    name = folder.name
    if not NAME_PATTERN.match(name):
        raise ConfigError(f"{name!r} is not a valid bot name: {NAME_RULE}")
    if folder.exists():
        raise ConfigError(f"{str(folder)!r} already exists: choose a new folder")
    template = resources.files(__name__) / language.value
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise ConfigError(f"cannot create {str(folder)!r}: {exc.strerror or exc}") from None
    try:
        _copy(template, folder, {"{{name}}": name, "{{crate}}": identifier(name).lower()})
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)  # no half-made kit left behind
        raise ConfigError(f"cannot write the kit into {str(folder)!r}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        shutil.rmtree(folder, ignore_errors=True)  # the same command, run again, would refuse a half-made kit
        raise
    return folder


def _copy(source: Traversable, target: Path, values: dict[str, str]) -> None:
    for entry in source.iterdir():
        if entry.name in KIT_FILES or entry.name == "__pycache__":
            continue
        # Files a package cannot ship under their own name (dot-files) carry a 'dot-' prefix.
        name = "." + entry.name[4:] if entry.name.startswith("dot-") else entry.name
        if entry.is_dir():
            (target / name).mkdir()
            _copy(entry, target / name, values)
            continue
        data = entry.read_bytes()
        if entry.name.endswith(TEMPLATE_SUFFIXES):
            text = data.decode("utf-8")
            for key, value in values.items():
                text = text.replace(key, value)
            data = text.encode("utf-8")
        (target / name).write_bytes(data)


def archive(language: Language, name: str) -> bytes:
    """The kit of language as a zip whose one top folder is the bot `name`, ready to upload as it is (a kit with a
    step to prepare, such as npm's packages, needs that step run first); ConfigError for a name that is not valid,
    or that says the kit could not be made, naming no path of this machine."""
    if not NAME_PATTERN.match(name):
        raise ConfigError(f"{name[:64]!r} is not a valid bot name: {NAME_RULE}")
    with tempfile.TemporaryDirectory(prefix="arena-kit-") as work:
        try:
            folder = create(Path(work) / name, language)
        except ConfigError:
            raise ConfigError(f"the {language.value} kit could not be made: the server's disk refused it") from None
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as zipped:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    zipped.write(path, path.relative_to(folder.parent).as_posix())
        return data.getvalue()
