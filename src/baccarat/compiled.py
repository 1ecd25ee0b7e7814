"""An optional build of the hot path compiled with mypyc, and the switch that loads it.

The package runs as pure Python wherever it is installed. ``python -m baccarat.compiled
build`` compiles ``MODULES`` (the table's views and reducer, the wire's encoders, the
fan-out) with mypyc, from the ``mypy`` package on PyPI, into a directory of its own, never
beside the sources. A process started with ``BACCARAT_COMPILED=1`` imports those modules
from that build, and only while every one of their sources is the one compiled: after an
edit the whole package loads as Python again (the compiled modules call one another
directly, so one cannot stand in for another's newer source).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

MODULES = (
    "baccarat.bets",
    "baccarat.table.book",
    "baccarat.table.view",
    "baccarat.table.reducer",
    "baccarat.protocol.values",
    "baccarat.protocol.events",
    "baccarat.protocol.view",
    "baccarat.protocol.messages",
    "baccarat.protocol.codec",
    "baccarat.protocol.encode",
    "baccarat.server.sockets.frames",
    "baccarat.server.sockets.hub",
    "baccarat.server.tables.publisher",
)
"""The modules compiled: what every delivery runs through. Compiled code gains on the
values it builds (dictionaries, lists, text) and loses on attributes of objects the
interpreter's own caches read faster: the table's rules (``betting``, ``rebet``,
``round``...), which mostly read the table's objects, ran slower compiled
(``docs/benchmarks.md``)."""

SWITCH = "BACCARAT_COMPILED"
"""Set to 1 to load the compiled build (when it is there and current)."""

PLACE = "BACCARAT_COMPILED_DIR"
"""Where the build goes and is read from (default: the user's cache)."""

MANIFEST = "manifest.json"
SOURCES = Path(__file__).resolve().parent.parent
"""The directory holding the package (``src`` in a checkout)."""


def build_dir() -> Path:
    """The compiled build's directory, one per Python version."""
    place = os.environ.get(PLACE)
    if place:
        return Path(place)
    tag = sys.implementation.cache_tag
    return Path.home() / ".cache" / "baccarat" / f"mypyc-{tag}"


def source(module: str) -> Path:
    """The source file of one of ``MODULES``."""
    return SOURCES.joinpath(*module.split(".")).with_suffix(".py")


def digest(module: str) -> str:
    """The SHA-256 of a module's source, to tell a build made from it."""
    return hashlib.sha256(source(module).read_bytes()).hexdigest()


def stale(where: Path | None = None) -> str | None:
    """Why the build in ``where`` cannot be loaded (None when it can)."""
    path = (where or build_dir()) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no compiled build at {path.parent} (python -m baccarat.compiled build)"
    if manifest.get("python") != sys.implementation.cache_tag:
        return "the compiled build is for another Python"
    changed = [m for m in MODULES if manifest.get("sources", {}).get(m) != digest(m)]
    if changed:
        return f"the compiled build is older than {', '.join(changed)}"
    return None


def active() -> bool:
    """Whether the compiled modules are the ones loaded in this process."""
    return isinstance(sys.modules.get("baccarat.table.view"), ModuleType) and str(
        getattr(sys.modules["baccarat.table.view"], "__file__", "")
    ).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules (and mypyc's shared library) in the build."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def install() -> bool:
    """Load ``MODULES`` from the build from now on; False (and a line on stderr) when the
    build is missing or older than the sources."""
    where = build_dir()
    why = stale(where)
    if why is not None:
        print(f"baccarat: running as pure Python: {why}", file=sys.stderr)
        return False
    manifest = json.loads((where / MANIFEST).read_text(encoding="utf-8"))
    files = {name: where / rel for name, rel in manifest["files"].items()}
    sys.meta_path.insert(0, _Finder(files))
    return True


def requested() -> bool:
    """Whether this process was asked to run the compiled build."""
    return os.environ.get(SWITCH, "") not in ("", "0")


def build(where: Path | None = None) -> Path:
    """Compile ``MODULES`` with mypyc into ``where`` (default ``build_dir()``); return it.

    Needs the ``mypy`` and ``setuptools`` packages and a C compiler; the sources are only
    read."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    out = (where or build_dir()).resolve()
    work = out / "work"
    for old in [out / MANIFEST, *_built(out)] if out.exists() else []:
        old.unlink(missing_ok=True)  # a module no longer compiled must not be loaded
    sources = {m: digest(m) for m in MODULES}
    paths = [str(source(m).relative_to(SOURCES)) for m in MODULES]
    here = Path.cwd()
    os.chdir(SOURCES)  # mypy names each module from its path below the package's parent
    try:
        extensions = mypycify(
            [*paths, "--cache-dir", str(work / "mypy")], target_dir=str(work / "c")
        )
        dist = Distribution({"name": "baccarat-compiled", "ext_modules": extensions})
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(out)
        command.build_temp = str(work / "o")
        dist.run_command("build_ext")
    finally:
        os.chdir(here)
    files = {_module_of(f.relative_to(out)): str(f.relative_to(out)) for f in _built(out)}
    manifest = {"python": sys.implementation.cache_tag, "sources": sources, "files": files}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return out


def _built(out: Path) -> list[Path]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [f for f in out.rglob("*") if f.name.endswith(suffixes) and "work" not in f.parts]


def _module_of(rel: Path) -> str:
    """``baccarat/table/view.cpython-311-x86_64-linux-gnu.so`` -> ``baccarat.table.view``."""
    return ".".join((*rel.parts[:-1], rel.name.split(".", 1)[0]))


def main(argv: list[str] | None = None) -> int:
    """``python -m baccarat.compiled build|check``."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        print(f"compiled {len(MODULES)} modules into {build(None)}")
        return 0
    if args[:1] == ["check"]:
        why = stale()
        print(why or f"the compiled build at {build_dir()} is current")
        return 0 if why is None else 1
    print("usage: python -m baccarat.compiled build|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
