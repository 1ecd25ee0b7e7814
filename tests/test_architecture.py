"""The house rules a reader relies on: imports flow one way (docs/architecture.md: the engine
imports neither the table nor the wire, the table does not import the wire, and no pure layer
imports an I/O one), every function is radon grade B or better, and no module of logic runs
over 450 lines (CONTRIBUTING)."""

from __future__ import annotations

import ast
from pathlib import Path

import baccarat

SRC = Path(baccarat.__file__).parent

PURE = (
    {
        "cards", "shoe", "rules", "bets", "settlement", "odds", "roads", "names", "numbers",
        "errors", "merkle", "seal", "logbook", "logcheck", "simulate", "checkpoint",
        "witnesscheck",
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
