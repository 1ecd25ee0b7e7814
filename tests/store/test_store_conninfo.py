"""libpq's connection strings with several hosts: the URL form and the keyword form reach
psycopg as libpq's host and port lists, and a store opened through one finds the host that
answers."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from baccarat.errors import InvalidInput
from baccarat.store import open_store
from baccarat.store.url import driver_url
from pgschema import private_schema
from serving import free_port


def _connect_args(url: str) -> dict[str, object]:
    """What psycopg is given for ``url``, as SQLAlchemy makes it."""
    made = sa.make_url(driver_url(url))
    args = sa.create_engine(made).dialect.create_connect_args(made)[1]
    args.pop("context", None)
    return dict(args)


def test_a_url_with_several_hosts_gives_libpq_its_host_and_port_lists() -> None:
    url = "postgresql://mei:s%40fe@db1:5432,db2:5433/baccarat?target_session_attrs=read-write"
    assert _connect_args(url) == {
        "user": "mei",
        "password": "s@fe",
        "dbname": "baccarat",
        "host": "db1,db2",
        "port": "5432,5433",
        "target_session_attrs": "read-write",
    }


def test_a_host_without_a_port_gets_the_default_and_ipv6_goes_in_brackets() -> None:
    args = _connect_args("postgres://u@[::1]:5433,db2/baccarat")
    assert (args["host"], args["port"]) == ("::1,db2", "5433,")


def test_one_port_serves_every_host_as_in_libpq() -> None:
    args = _connect_args("postgresql://u@/baccarat?host=db1,db2&port=5433")
    assert (args["host"], args["port"]) == ("db1,db2", "5433,5433")


def test_the_keyword_form_reads_as_libpq_reads_it() -> None:
    text = (
        "host=db1,db2 port=5432,5433 dbname=baccarat user=mei password='a b' "
        "target_session_attrs=read-write connect_timeout=5"
    )
    assert _connect_args(text) == {
        "user": "mei",
        "password": "a b",
        "dbname": "baccarat",
        "host": "db1,db2",
        "port": "5432,5433",
        "target_session_attrs": "read-write",
        "connect_timeout": "5",
    }


def test_a_url_with_one_host_is_passed_on_as_written() -> None:
    url = "postgresql://u@db1:5432/baccarat?options=-csearch_path%3Dx"
    assert driver_url(url) == "postgresql+psycopg://" + url.split("://", 1)[1]


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://u@db1,db2:x/baccarat",
        "postgresql://u@db1,db2,db3/baccarat?port=1,2",
        "postgresql://u@[::1,db2/baccarat",
        "postgresql://u@[::1]x,db2/baccarat",
        "host=db1,db2 dbname",
        "host=db1 colour=blue",
    ],
)
def test_a_malformed_connection_string_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput) as err:
        open_store(text)
    assert err.value.code == "bad_db_url"
    assert "not a PostgreSQL connection string" in err.value.message


@pytest.mark.postgres
def test_a_store_with_two_hosts_opens_on_the_one_that_answers() -> None:
    with private_schema("hosts") as url:
        parts = urlsplit(url)
        nobody = f"127.0.0.1:{free_port()}"
        two = parts._replace(netloc=f"{parts.username}@{nobody},{parts.hostname}:{parts.port}")
        store = open_store(two.geturl() + "&target_session_attrs=read-write")
        try:
            user = store.create_user("mei", "password1", coins=500)
            assert store.balance(user.user_id) == 500
            with store.engine.connect() as conn:
                assert conn.exec_driver_sql("SELECT inet_server_port()").scalar() == parts.port
        finally:
            store.close()
