"""The lock of a server alone on its database: a second holder is refused, saying who holds
it, and the lock goes with its holder (a release, or the end of its process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from baccarat.errors import Conflict
from baccarat.store import open_store
from baccarat.store.solo import SoloLock
from pgschema import private_schema


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'solo.db'}"
    else:
        with private_schema("solo") as pg:
            yield pg


def test_a_second_holder_is_refused_until_the_first_lets_go(url: str) -> None:
    first, second = open_store(url), open_store(url)
    try:
        held = SoloLock(first.engine, url)
        held.take()
        assert held.kept()
        other = SoloLock(second.engine, url)
        with pytest.raises(Conflict) as refused:
            other.take()
        assert refused.value.code == "server_running"
        assert "another baccarat server is running alone on this database" in refused.value.message
        held.release()
        other.take()
        other.release()
    finally:
        first.close()
        second.close()


def test_nodes_share_the_lock_and_a_server_alone_is_refused_beside_them(url: str) -> None:
    stores = [open_store(url) for _ in range(3)]
    try:
        a, b = (SoloLock(s.engine, url, shared=True) for s in stores[:2])
        a.take()
        b.take()  # two nodes of one system
        alone = SoloLock(stores[2].engine, url)
        with pytest.raises(Conflict) as refused:
            alone.take()
        assert "baccarat nodes (--redis) are running on this database" in refused.value.message
        a.release()
        b.release()
        alone.take()
        with pytest.raises(Conflict) as refused:
            a.take()
        assert "another baccarat server is running alone" in refused.value.message
        alone.release()
    finally:
        for store in stores:
            store.close()


def test_the_lock_goes_with_a_process_that_dies_holding_it(url: str) -> None:
    # A restart after a crash starts at once: no lock outlives its process.
    script = textwrap.dedent(
        f"""
        import os
        from baccarat.store import open_store
        from baccarat.store.solo import SoloLock
        store = open_store({url!r})
        SoloLock(store.engine, {url!r}).take()
        print("held", flush=True)
        os._exit(0)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "held", done.stderr
    store = open_store(url)
    try:
        lock = SoloLock(store.engine, url)
        lock.take()
        lock.release()
    finally:
        store.close()


def test_systems_in_two_schemas_of_one_database_do_not_meet() -> None:
    with private_schema("solo") as one, private_schema("solo") as two:
        a, b = open_store(one), open_store(two)
        try:
            first, second = SoloLock(a.engine, one), SoloLock(b.engine, two)
            first.take()
            second.take()
            first.release()
            second.release()
        finally:
            a.close()
            b.close()


def test_a_lock_lost_with_the_database_is_taken_again_once_it_is_back() -> None:
    from services import own_postgres

    with own_postgres() as pg:
        node, alone = open_store(pg.url), open_store(pg.url)
        try:
            lock = SoloLock(node.engine, pg.url, shared=True)
            lock.take()
            pg.stop()
            # A check during the outage: the session and its lock are gone, no new one.
            with pytest.raises(Exception, match="connect"):
                lock.kept()
            pg.start()
            assert lock.kept()
            with pytest.raises(Conflict):
                SoloLock(alone.engine, pg.url).take()
            lock.release()
        finally:
            node.close()
            alone.close()
