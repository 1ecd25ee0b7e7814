"""The options of ``baccarat serve`` that name the log's witnesses and the policy."""

from __future__ import annotations

import argparse

from baccarat.errors import BaccaratError
from baccarat.server.witnesses import WitnessAt, check_quorum, parse_witness


def _witness(text: str) -> WitnessAt:
    try:
        return parse_witness(text)
    except BaccaratError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``--witness URL=VKEY`` (repeatable) and ``--witness-quorum K``."""
    parser.add_argument(
        "--witness",
        action="append",
        default=[],
        type=_witness,
        metavar="URL=VKEY",
        help="a witness that cosigns the log's heads: its address and its verifier key, as "
        "`baccarat witness` prints it (repeatable)",
    )
    parser.add_argument(
        "--witness-quorum",
        type=int,
        metavar="K",
        help="how many witnesses must cosign a head (default: all of them)",
    )


def check(args: argparse.Namespace) -> None:
    """Check the policy against the witnesses named (``bad_quorum``)."""
    args.witness_quorum = check_quorum(args.witness_quorum, len(args.witness))
