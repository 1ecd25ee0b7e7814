"""The tables, as SQLAlchemy Core objects for queries (the migrations create them).

Wallets are named by text: ``user:<id>``, ``house``, ``mint`` and ``escrow:<round_id>``.
A user wallet's balance is ``users.coins``, the house's and the mint's are rows of
``system_wallets``, a round's escrow is ``rounds.escrow``. ``ledger_tx`` and ``postings``
are append-only: each transaction's postings sum to zero and its key is unique.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("username", sa.String(64), nullable=False),
    sa.Column("username_key", sa.String(64), nullable=False, unique=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("display_name", sa.String(64), nullable=False),
    sa.Column("display_key", sa.String(128), nullable=False, unique=True),
    sa.Column("level", sa.Integer, nullable=False),
    sa.Column("coins", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("role", sa.String(16), nullable=False, server_default="player"),
    sa.Column("totp_secret", sa.String(64), nullable=True),
    sa.Column("totp_enrolled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("totp_last", sa.BigInteger, nullable=True),
    sa.Column("banned", sa.Text, nullable=True),
    sa.Column("muted_until", sa.Float, nullable=True),
    sa.Column("code_failures", sa.Integer, nullable=False, server_default="0"),
    sa.Column("console_locked", sa.Float, nullable=True),
)

user_prefs = sa.Table(
    "user_prefs",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("auto_open", sa.Boolean, nullable=False),
)

system_wallets = sa.Table(
    "system_wallets",
    metadata,
    sa.Column("name", sa.String(16), primary_key=True),
    sa.Column("balance", sa.BigInteger, nullable=False),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)

ledger_tx = sa.Table(
    "ledger_tx",
    metadata,
    sa.Column("key", sa.String(128), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("memo", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

postings = sa.Table(
    "postings",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tx_key", sa.String(128), sa.ForeignKey("ledger_tx.key"), nullable=False),
    sa.Column("wallet", sa.String(80), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
)

shoes = sa.Table(
    "shoes",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("seed", sa.String(64), nullable=True),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("ended_at", sa.Float, nullable=True),
    sa.Column("sealed_seed", sa.Text, nullable=True),
    sa.Column("next_card", sa.Integer, nullable=True),
    sa.Column("end_reason", sa.String(16), nullable=True),
    sa.Column("log_index", sa.Integer, nullable=True),
)
"""A shoe: its commitment, its seed sealed while it is dealt (``baccarat.seal``) and plain
once it has ended, the shoe position no card has been drawn from yet (``next_card``, at least
as far as any card shown), why it ended, and its entry in the commitment log."""

rounds = sa.Table(
    "rounds",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("shoe_id", sa.String(64), nullable=False),
    sa.Column("round_no", sa.Integer, nullable=False),
    sa.Column("dealer_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("escrow", sa.BigInteger, nullable=False),
    sa.Column("cards", sa.JSON, nullable=True),
    sa.Column("outcome", sa.JSON, nullable=True),
    sa.Column("house", sa.BigInteger, nullable=True),
    sa.Column("escrowed_at", sa.Float, nullable=False),
    sa.Column("closed_at", sa.Float, nullable=True),
    sa.Column("void_reason", sa.String(32), nullable=True),
    sa.Column("first_card", sa.Integer, nullable=True),
)

bets = sa.Table(
    "bets",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("round_id", sa.String(64), sa.ForeignKey("rounds.id"), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("area", sa.String(16), nullable=False),
    sa.Column("chips", sa.Integer, nullable=False),
    sa.Column("coins", sa.BigInteger, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

round_results = sa.Table(
    "round_results",
    metadata,
    sa.Column("round_id", sa.String(64), sa.ForeignKey("rounds.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("delta", sa.BigInteger, nullable=False),
    sa.Column("commission", sa.BigInteger, nullable=False),
)

table_epochs = sa.Table(
    "table_epochs",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.BigInteger, nullable=False),
    sa.Column("node_id", sa.String(128), nullable=False),
    sa.Column("taken_at", sa.Float, nullable=False),
    sa.Column("seats", sa.JSON, nullable=True),
    sa.Column("suspended", sa.Text, nullable=True),
)
"""Each table's epoch: raised by every takeover; a table's escrow, settlement or void is
refused unless it carries the current one. A table never taken has epoch 0 (no row)."""

admin_sessions = sa.Table(
    "admin_sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)
"""The operator console's sessions: short, and apart from the game's."""

operator_log = sa.Table(
    "operator_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("actor", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("target", sa.String(128), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("before", sa.JSON, nullable=True),
    sa.Column("after", sa.JSON, nullable=True),
    sa.Column("ledger_tx", sa.String(128), nullable=True, unique=True),
)
"""Every operator's action, from the console or ``baccarat admin``: who, when, what, to
whom, why, and the state before and after. Append-only (triggers refuse UPDATE and DELETE);
a grant's entry names its ledger transaction and is written in the same transaction."""

grant_requests = sa.Table(
    "grant_requests",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("coins", sa.BigInteger, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("why", sa.String(16), nullable=False),
    sa.Column("requested_by", sa.String(64), nullable=False),
    sa.Column("requested_by_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("decided_by", sa.String(64), nullable=True),
    sa.Column("decided_by_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("decided_at", sa.Float, nullable=True),
    sa.Column("decision", sa.Text, nullable=True),
    sa.Column("ledger_tx", sa.String(128), nullable=True),
)
"""Grants that wait for a second operator (``pending``, then ``approved`` or ``refused``);
an approved one names its ledger transaction. Each step is also in the operator log."""

cli_tokens = sa.Table(
    "cli_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("expires_at", sa.Float, nullable=False),
)
"""One-minute tokens ``baccarat admin`` makes to act through a running server: whoever
can write the database may act as ``cli``, through the server as well as without it."""

console_endpoints = sa.Table(
    "console_endpoints",
    metadata,
    sa.Column("node_id", sa.String(128), primary_key=True),
    sa.Column("url", sa.String(512), nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
)
"""Where each running server's console API answers, renewed while it runs."""

shoe_log = sa.Table(
    "shoe_log",
    metadata,
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("shoe_id", sa.String(64), nullable=False, unique=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("logged_at", sa.BigInteger, nullable=False),
    sa.Column("leaf_hash", sa.String(64), nullable=False),
)
"""The commitment log: every shoe's commitment, in the order logged, as the leaves of a
Merkle tree (``baccarat.logbook``). Append-only (triggers refuse UPDATE and DELETE)."""

log_state = sa.Table(
    "log_state",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("frontier", sa.JSON, nullable=False),
)
"""One row: the log's size and the roots of its perfect subtrees (``merkle.Frontier``); it is
locked by every append, so entries get their index one at a time."""

log_heads = sa.Table(
    "log_heads",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tree_size", sa.Integer, nullable=False),
    sa.Column("timestamp", sa.BigInteger, nullable=False),
    sa.Column("root_hash", sa.String(64), nullable=False),
    sa.Column("key_id", sa.String(16), nullable=False),
    sa.Column("signature", sa.String(128), nullable=False),
)
"""Every signed head of the log (size, time in ms, root), newest last. Append-only."""

platform_users = sa.Table(
    "platform_users",
    metadata,
    sa.Column("platform_user", sa.String(128), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, unique=True),
    sa.Column("linked_at", sa.Float, nullable=False),
    sa.Column("launched_at", sa.Float, nullable=False),
)
"""The operator's platform's users (their id there), each linked to the account made for
them at their first launch (``baccarat.platform``)."""

platform_tokens = sa.Table(
    "platform_tokens",
    metadata,
    sa.Column("jti", sa.String(128), primary_key=True),
    sa.Column("expires_at", sa.Float, nullable=False),
)
"""The ``jti`` of every launch token used and not yet expired: a token launches once."""

platform_transfers = sa.Table(
    "platform_transfers",
    metadata,
    sa.Column("transfer_id", sa.String(64), primary_key=True),
    sa.Column("platform_user", sa.String(128), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("balance", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
"""Every transfer the platform made (positive: coins in, negative: out), by the platform's
id, with the balance it left; its ledger transaction is ``transfer:<transfer_id>``."""

wallet_calls = sa.Table(
    "wallet_calls",
    metadata,
    sa.Column("call_id", sa.String(96), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("round_id", sa.String(64), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("platform_user", sa.String(128), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("refers_to", sa.String(96), nullable=True),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("answered_at", sa.Float, nullable=True),
    sa.Index("wallet_calls_by_round", "round_id"),
    sa.Index("wallet_calls_by_state", "state"),
)
"""The seamless wallet's calls to the platform (``debit``, ``credit``, ``rollback``), by the
game's id, each ``pending`` until the platform answers: ``done``, or ``failed`` (a debit the
platform did not take). The coins a call moves are the ledger transaction ``wallet:<id>``."""

wallet_answers = sa.Table(
    "wallet_answers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("call_id", sa.String(96), sa.ForeignKey("wallet_calls.call_id"), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Index("wallet_answers_by_call", "call_id"),
)
"""Every attempt of a wallet call and what came back (``status`` 0: no answer in time)."""

login_addresses = sa.Table(
    "login_addresses",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("address", sa.String(64), primary_key=True),
    sa.Column("first_at", sa.Float, nullable=False),
    sa.Column("last_at", sa.Float, nullable=False),
)
"""Every address an account logged in from (the game's logins), first and last seen: the risk
view weighs a pair of accounts from one address (``baccarat.risk``)."""
