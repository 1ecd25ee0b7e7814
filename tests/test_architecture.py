"""Imports flow one way (docs/architecture.md): the engine imports neither the table nor the
wire, the table does not import the wire, and no pure layer imports an I/O one."""

from __future__ import annotations

import ast
from pathlib import Path

import baccarat

SRC = Path(baccarat.__file__).parent

PURE = (
    {
        "cards", "shoe", "rules", "bets", "settlement", "odds", "roads", "names", "numbers",
        "errors", "merkle", "seal", "logbook", "logcheck", "simulate",
    },
    {"table"},
    {"protocol"},
)  # fmt: skip
"""The pure layers, top first: a module may import its own layer and those above it only."""

KNOWN: set[tuple[str, str]] = set()
"""Imports that break the rule for now, each with its reason (none today)."""


def _layer(package: str) -> int | None:
    return next((i for i, names in enumerate(PURE) if package in names), None)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "baccarat":
                found.update(f"baccarat.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("baccarat.")}


def test_no_pure_module_imports_a_layer_below_it() -> None:
    upward = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        layer = _layer(rel.parts[0].removesuffix(".py"))
        if layer is None:
            continue
        for name in sorted(_imports(path)):
            theirs = _layer(name.split(".")[1])
            if (theirs is None or theirs > layer) and (rel.as_posix(), name) not in KNOWN:
                upward.append(f"{rel.as_posix()} imports {name}")
    assert upward == []


def test_the_check_reads_an_import_inside_a_function(tmp_path: Path) -> None:
    # An import hidden in a call is an import all the same: the check must see it.
    module = tmp_path / "hidden.py"
    module.write_text("def f() -> None:\n    from baccarat.protocol.view import view\n")
    assert "baccarat.protocol.view" in _imports(module)
