"""libpq's connection strings that a SQLAlchemy URL cannot hold as written: several hosts in
one URL (``postgresql://USER@HOST1:PORT1,HOST2:PORT2/DB``) and the keyword form
(``host=HOST1,HOST2 port=PORT1,PORT2 dbname=DB``).

Both become a SQLAlchemy URL whose query carries libpq's own lists
(``?host=HOST1,HOST2&port=PORT1,PORT2``), which psycopg hands on to libpq: the hosts are
tried in order, and with ``target_session_attrs=read-write`` the first that takes writes is
kept, so a pool that reconnects after a failover finds the promoted standby.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

import psycopg
import sqlalchemy as sa

from baccarat.errors import InvalidInput

DRIVER = "postgresql+psycopg"


def _bad(text: str, why: str) -> InvalidInput:
    return InvalidInput("bad_db_url", f"{text!r} is not a PostgreSQL connection string: {why}.")


def is_keywords(text: str) -> bool:
    """Whether ``text`` is libpq's keyword form (``host=... dbname=...``), not a URL."""
    return "=" in text and "://" not in text


def several_hosts(text: str) -> bool:
    """Whether the PostgreSQL URL ``text`` names more than one host (in its address or as
    ``?host=A,B``)."""
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise _bad(text, str(exc)) from None
    hosts = [v for k, v in parse_qsl(parts.query) if k == "host"]
    return "," in parts.netloc.rpartition("@")[2] or any("," in h for h in hosts)


def from_keywords(text: str) -> str:
    """The SQLAlchemy URL of libpq's keyword form (``host=A,B port=1,2 dbname=DB ...``)."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(text)
    except psycopg.ProgrammingError as exc:
        raise _bad(text, str(exc).strip()) from None
    return _url(text, {k: str(v) for k, v in params.items()})


def from_uri(text: str) -> str:
    """The SQLAlchemy URL of a PostgreSQL URL that names several hosts, as libpq reads it:
    ``postgresql://[USER[:PASSWORD]@][HOST][:PORT][,...][/DB][?PARAM=VALUE&...]``."""
    parts = urlsplit(text)  # read once already by several_hosts
    userinfo, _, hostspec = parts.netloc.rpartition("@")
    params: dict[str, str] = {}
    user, _, password = userinfo.partition(":")
    if user:
        params["user"] = unquote(user)
    if password:
        params["password"] = unquote(password)
    if parts.path.strip("/"):
        params["dbname"] = unquote(parts.path.lstrip("/"))
    hosts, ports = zip(*(_host_port(text, spec) for spec in hostspec.split(",")), strict=True)
    params["host"] = ",".join(hosts)
    params["port"] = ",".join(ports)
    # A parameter in the query wins over the address, as in libpq.
    params.update(parse_qsl(parts.query, keep_blank_values=True))
    return _url(text, params)


def _host_port(text: str, spec: str) -> tuple[str, str]:
    """One ``HOST[:PORT]`` of a URL's address (an IPv6 host in brackets)."""
    if spec.startswith("["):
        host, sep, rest = spec[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise _bad(text, f"{spec!r} is not [IPv6 address]:port")
        return host, rest[1:]
    host, _, port = spec.partition(":")
    return unquote(host), port


def _ports(text: str, hosts: int, ports: str) -> str | None:
    """libpq's port list, one a host (a single port serves every host), or None for none."""
    each = ports.split(",")
    if not any(each):
        return None
    if not all(p.isdigit() or p == "" for p in each):
        raise _bad(text, f"the ports {ports!r} are not numbers")
    if len(each) == 1:
        each *= hosts
    if len(each) != hosts:
        raise _bad(text, f"{hosts} hosts and {len(each)} ports")
    return ",".join(each)


def _url(text: str, params: dict[str, str]) -> str:
    """The SQLAlchemy URL of libpq's ``params``: user, password and database in their places,
    the rest (the host and port lists among them) in its query."""
    user = params.pop("user", None) or None
    # A password without a user has no place in a URL's address: it stays a parameter.
    password = params.pop("password", None) if user else None
    dbname = params.pop("dbname", None)
    hosts = params.get("host", "")
    if not hosts:
        params.pop("host", None)
    ports = _ports(text, len(hosts.split(",")), params.pop("port", ""))
    if ports is not None:
        params["port"] = ports
    url = sa.URL.create(DRIVER, user, password or None, database=dbname, query=params)
    return url.render_as_string(hide_password=False)
