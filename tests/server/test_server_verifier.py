"""The stand-alone verifier page (``/verify``) carries its scripts inline: their imports of each
other are dropped, as they share one module's scope, and a script that imports what the page
does not carry (which a page saved to a disk could not load) stops the page being built."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from baccarat.server.http.routes import web_root
from baccarat.server.http.verifier import MARKS, verifier_page


def _script(page: bytes) -> str:
    found = re.search(r'<script type="module">(.*?)</script>', page.decode(), re.S)
    assert found is not None
    return found.group(1)


def test_the_page_carries_its_scripts_inline_and_imports_nothing() -> None:
    script = _script(verifier_page(web_root()))
    assert not re.search(r"^\s*import\b", script, re.M)
    assert not [mark for mark in MARKS if mark in script]
    # Each carried once: the memory's helpers (idb.js) serve seen.js and cosigned.js alike.
    for name in ("keptStore", "witness", "checkNote", "againstKept", "verifyConsistency"):
        assert len(re.findall(rf"^export (?:async )?function {name}\(", script, re.M)) == 1, name
    assert set(MARKS.values()) == {"fair.js", "merkle.js", "idb.js", "seen.js", "cosigned.js"}


def test_a_script_importing_what_the_page_does_not_carry_is_refused(tmp_path: Path) -> None:
    shutil.copy(web_root() / "verify.html", tmp_path)
    shutil.copytree(web_root() / "js", tmp_path / "js")
    cosigned = tmp_path / "js" / "cosigned.js"
    text = cosigned.read_text()
    cosigned.write_text('import { api } from "./net.js";\n' + text)
    with pytest.raises(ValueError, match=re.escape("cosigned.js imports net.js")):
        verifier_page(tmp_path)
