"""The house rules a reader relies on: imports flow one way, top to bottom, between the
packages of ``baccarat`` and between the rooms of ``baccarat.server`` (docs/architecture.md,
"Layers"), no module or package imports one that imports it back, no pure module imports an
I/O one, every function is radon grade B or better, no module of logic runs over 450 lines
(CONTRIBUTING), and docs/architecture.md names every module.

The import graph is grimp's: every import counts, one inside a function or under
``TYPE_CHECKING`` too."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import grimp
import pytest

import baccarat

SRC = Path(baccarat.__file__).parent
DOC = SRC.parents[1] / "docs" / "architecture.md"

Order = Sequence[str | grimp.Layer]

PACKAGES: Order = (
    "__main__",
    "cli",
    "commands",
    grimp.Layer("server", "loadtest", "bots", "witness"),
    grimp.Layer("platform", "client"),
    grimp.Layer("cluster", "api"),
    "store",
    "protocol",
    "table",
    grimp.Layer(
        "roads", "odds", "risk", "simulate", "settlement", "bets", "shoe", "rules", "cards",
        "names", "numbers", "errors", "merkle", "seal", "logbook", "logcheck", "checkpoint",
        "witnesscheck", "logs", "compiled",
        independent=False,
    ),
)  # fmt: skip
"""The parts of ``baccarat``, top first: each imports only the layers below its own. The
parts of one ``Layer`` import none of each other, except those of the bottom one (the
engine and its helpers), which may, never in a ring."""

ROOMS: Order = (
    "http",
    "app",
    "witnesses",
    "tables",
    "sockets",
    grimp.Layer(
        "config", "metrics", "collector", "health", "stalls", "keyfile", "kepthead", "loghead",
        "limits", "passwords",
        independent=False,
    ),
)  # fmt: skip
"""The rooms of ``baccarat.server``, top first (its ``__init__`` names the top ones)."""

PURE = (
    {
        "cards", "shoe", "rules", "bets", "settlement", "odds", "roads", "names", "numbers",
        "errors", "merkle", "seal", "logbook", "logcheck", "simulate", "checkpoint",
        "witnesscheck",
    },
    {"table"},
    {"protocol"},
)  # fmt: skip
"""The pure layers: no module of theirs imports a module outside them."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("baccarat", cache_dir=None)


def _names(order: Order) -> list[str]:
    return [
        n
        for part in order
        for n in (part.module_tails if isinstance(part, grimp.Layer) else [part])
    ]


def unplaced(graph: grimp.ImportGraph, container: str, order: Order) -> list[str]:
    """The parts of ``container`` the order leaves out, and the names it gives twice."""
    parts = {m.rsplit(".", 1)[1] for m in graph.find_children(container)}
    names = _names(order)
    twice = sorted({n for n in names if names.count(n) > 1})
    return sorted(parts - set(names)) + [f"{n} (twice)" for n in twice]


def upward(graph: grimp.ImportGraph, container: str, order: Order) -> list[str]:
    """Each import that goes up ``order`` (or across a layer of independent parts), with
    the chains of imports that carry it."""
    found = graph.find_illegal_dependencies_for_layers(layers=order, containers={container})
    return sorted(
        f"{dep.importer} -> {dep.imported}: "
        + "; ".join(" -> ".join([*r.heads, *r.middle, *r.tails]) for r in dep.routes)
        for dep in found
    )


def cycles(graph: grimp.ImportGraph, root: str) -> list[str]:
    """For each package whose parts import each other in a ring (a module, or a package
    taken whole), the imports that would have to go to break every ring."""
    packages = sorted(m for m in graph.modules if m.startswith(root) and graph.find_children(m))
    return [
        f"{package}: " + ", ".join(sorted(f"{a} -> {b}" for a, b in breakers))
        for package in packages
        if (breakers := graph.nominate_cycle_breakers(package))
    ]


def test_the_order_names_every_package_and_every_room(graph: grimp.ImportGraph) -> None:
    assert unplaced(graph, "baccarat", PACKAGES) == []
    assert unplaced(graph, "baccarat.server", ROOMS) == []


def test_every_package_imports_downward_only(graph: grimp.ImportGraph) -> None:
    assert upward(graph, "baccarat", PACKAGES) == []


def test_every_room_of_the_server_imports_downward_only(graph: grimp.ImportGraph) -> None:
    assert upward(graph, "baccarat.server", ROOMS) == []


def test_no_module_or_package_imports_one_that_imports_it_back(graph: grimp.ImportGraph) -> None:
    assert cycles(graph, "baccarat") == []


def test_no_pure_module_imports_an_io_one(graph: grimp.ImportGraph) -> None:
    pure = set().union(*PURE)
    impure = sorted(
        f"{module} imports {name}"
        for module in graph.modules
        if module.split(".")[1:2] and module.split(".")[1] in pure
        for name in graph.find_modules_directly_imported_by(module)
        if name.split(".")[1] not in pure
    )
    assert impure == []


PLANTED = {
    "__init__.py": "",
    "table/__init__.py": "",
    "table/state.py": "SEATS = 9\n",
    "table/dealing.py": "from planted.table.state import SEATS\n",
    "protocol/__init__.py": "",
    "protocol/view.py": "from planted.table import dealing\n",
    "server/__init__.py": "",
    "server/app.py": "from planted.server.tables import driver\n",
    "server/tables/__init__.py": "",
    "server/tables/driver.py": "from planted.server.sockets import hub\n",
    "server/sockets/__init__.py": "",
    "server/sockets/hub.py": "from planted.protocol import view\n",
}
"""A small package laid out like this one: every import downward."""


def _planted(
    root: Path, extra: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> grimp.ImportGraph:
    """The import graph of ``PLANTED`` with the files of ``extra`` in place of its own."""
    for name, text in {**PLANTED, **extra}.items():
        path = root / "planted" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(root))
    for name in [m for m in sys.modules if m == "planted" or m.startswith("planted.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()
    return grimp.build_graph("planted", cache_dir=None)


def test_the_checks_pass_a_package_that_imports_downward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = _planted(tmp_path, {}, monkeypatch)
    assert unplaced(clean, "planted.server", ROOMS[2:]) == ["app"]
    assert upward(clean, "planted", PACKAGES) == []
    assert upward(clean, "planted.server", ROOMS) == []
    assert cycles(clean, "planted") == []


def test_the_checks_find_a_planted_upward_import_and_a_ring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Upward, seen only by a type checker: the table names the wire.
    state = """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from planted.protocol.view import dealing
        SEATS = 9
        """
    # Upward between rooms, from inside a function: the hub and the driver in a ring.
    hub = """\
        from planted.protocol import view
        def watchers() -> None:
            from planted.server.tables import driver
        """
    # A ring of two modules of one package, one side inside a function.
    ring = {
        "table/dealing.py": "from planted.table import queue\n",
        "table/queue.py": "def call_dealer() -> None:\n    from planted.table import dealing\n",
    }
    files = {"table/state.py": state, "server/sockets/hub.py": hub, **ring}
    dirty = _planted(tmp_path, files, monkeypatch)
    assert upward(dirty, "planted", PACKAGES) == [
        "planted.table -> planted.protocol: planted.table.state -> planted.protocol.view"
    ]
    assert upward(dirty, "planted.server", ROOMS) == [
        "planted.server.sockets -> planted.server.tables: "
        "planted.server.sockets.hub -> planted.server.tables.driver"
    ]
    # The table and the wire (packages), the hub and the driver (rooms), dealing and queue.
    rings = cycles(dirty, "planted")
    assert [r.split(":")[0] for r in rings] == ["planted", "planted.server", "planted.table"]


def _listed(doc: str) -> dict[str, set[str]]:
    """The modules docs/architecture.md names under "Every module", by package."""
    section = doc.split("\n## Every module\n", 1)[1]
    block = section.split("```\n", 2)[1]
    listed: dict[str, set[str]] = {}
    package = ""
    for line in block.splitlines():
        words = line.split()
        if not line.startswith(" "):
            package, words = words[0].removeprefix("baccarat/"), words[1:]
        listed.setdefault(package, set()).update(words)
    return listed


def _modules_by_package() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in _modules():
        package = path.parent.relative_to(SRC).as_posix() + "/"
        names = found.setdefault("" if package == "./" else package, set())
        if path.stem != "__init__":
            names.add(path.stem)
    return found


def test_the_architecture_page_names_every_module() -> None:
    listed = _listed(DOC.read_text())
    found = _modules_by_package()
    missing = sorted(f"{p}{m}" for p, names in found.items() for m in names - listed.get(p, set()))
    gone = sorted(f"{p}{m}" for p, names in listed.items() for m in names - found.get(p, set()))
    assert (missing, gone) == ([], [])


def test_the_module_list_check_reads_the_page_as_written() -> None:
    doc = "## Every module\n\n```\nbaccarat/  cli\n           logs\nserver/    app\n```\n"
    assert _listed("x\n" + doc) == {"": {"cli", "logs"}, "server/": {"app"}}


DECLARATIONS = {"table/events.py", "store/schema.py"}
"""Modules of declarations (the event dataclasses, the schema), which may run longer."""
MAX_LINES = 450


def _modules(pattern: str = "*.py") -> list[Path]:
    return [p for p in sorted(SRC.rglob(pattern)) if "migrations" not in p.parts]


def test_every_function_is_radon_grade_b_or_better() -> None:
    from radon.complexity import cc_rank, cc_visit

    graded = [
        f"{path.relative_to(SRC)}: {block.fullname} {cc_rank(block.complexity)} ({block.complexity})"
        for path in _modules()
        for block in cc_visit(path.read_text())
        if cc_rank(block.complexity) not in ("A", "B")
    ]
    assert graded == [], "split these (CONTRIBUTING, 'Simple functions'):\n" + "\n".join(graded)


def test_no_module_of_logic_is_over_450_lines() -> None:
    long = [
        f"{path.relative_to(SRC)}: {n} lines"
        for path in [*_modules(), *_modules("*.js")]
        if (n := len(path.read_text().splitlines())) > MAX_LINES
        and str(path.relative_to(SRC)) not in DECLARATIONS
    ]
    assert long == [], "split these (CONTRIBUTING, 'Small'):\n" + "\n".join(long)
