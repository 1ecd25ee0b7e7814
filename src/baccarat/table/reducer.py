"""A viewer's view kept up to date from the events it receives: ``apply(view, kind, data)``.

A client takes one snapshot's ``view`` (on joining, on an explicit resync, or after a gap in
``seq``) and applies every event after it, public and private, in order. Each event carries
what it changes, so nothing here recomputes a rule: the viewer's own part of the view (``me``
and the dealer's ``book``) comes whole in the private ``me`` event the server sends whenever
it changes (:func:`baccarat.table.view.personal`), except that a dealer's book adds up each
``chip_placed`` here (:func:`baccarat.table.view.book_kept`).

The property test of this module checks that, after any command or timer at the table,
the viewer's view folded over the events it received equals the view the table projects
(:func:`baccarat.table.view.view`) at that moment.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from baccarat.rules import HANDS
from baccarat.table.book import exposure
from baccarat.table.chat import KEPT as CHAT_KEPT

View = dict[str, Any]
"""A view as JSON (``baccarat.table.view.view``)."""

Data = dict[str, Any]
"""An event's ``data`` as JSON."""


def apply(view: View, kind: str, data: Data) -> View:
    """The view after the event ``kind`` with ``data``; ``view`` itself is left unchanged."""
    out = copy.deepcopy(view)
    step = _STEPS.get(kind)
    if step is not None:
        step(out, data)
    return out


# -- the round's frame ---------------------------------------------------------------------


def _time(view: View, data: Data) -> None:
    view["deadline"] = data["deadline"]
    view["remaining_ms"] = data["remaining_ms"]


def _no_time(view: View) -> None:
    view["deadline"] = None
    view["remaining_ms"] = None


def _no_round(view: View) -> None:
    """The round is over (called off, or its result shown): nothing of it stays in view."""
    view["round_id"] = None
    view["dealer"] = None
    if view["shoe"] is not None:
        view["round_no"] = view["shoe"]["round_no"]
    view["hands"] = {hand: [] for hand in HANDS}
    view["squeeze"] = None
    view["controllers"] = {hand: None for hand in HANDS}
    for seat in view["seats"]:
        if seat is not None:
            seat["bets"] = {}


def _coins(view: View, user_id: int, change: int) -> None:
    for seat in view["seats"]:
        if seat is not None and seat["user_id"] == user_id:
            seat["coins"] += change


# -- seats ---------------------------------------------------------------------------------


def _seated(view: View, data: Data) -> None:
    view["seats"][data["seat"]] = {**data, "bets": dict(data["bets"])}


def _seat_freed(view: View, data: Data) -> None:
    view["seats"][data["seat"]] = None


def _dealer_leaving(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["leaving"] = True


def _disconnected(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["connected"] = False


def _reconnected(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["connected"] = True


def _coins_set(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["coins"] = data["coins"]


def _dealer_queue(view: View, data: Data) -> None:
    view["dealer_queue"] = data["queue"]


# -- shoes and phases ----------------------------------------------------------------------


def _waiting(view: View, data: Data) -> None:
    view["phase"] = "waiting"
    _no_time(view)
    _no_round(view)


def _table_closing(view: View, data: Data) -> None:
    view["closing"] = True


def _table_suspended(view: View, data: Data) -> None:
    view["suspended"] = data["reason"]


def _table_resumed(view: View, data: Data) -> None:
    view["suspended"] = None


def _shoe_started(view: View, data: Data) -> None:
    view["shoe"] = {
        "id": data["shoe_id"],
        "commitment": data["commitment"],
        "round_no": 0,
        "cards_left": data["cards_left"],
    }
    view["round_no"] = 0
    view["history"] = []
    view["result"] = None
    view["phase"] = "waiting"
    _no_time(view)


def _shoe_ended(view: View, data: Data) -> None:
    _no_round(view)
    view["last_shoe"] = {k: data[k] for k in ("shoe_id", "commitment", "seed", "history")}
    view["shoe"] = None


def _shuffling(view: View, data: Data) -> None:
    view["phase"] = "shuffling"
    _time(view, data)


# -- betting -------------------------------------------------------------------------------


def _betting_opened(view: View, data: Data) -> None:
    _no_round(view)
    view["phase"] = "betting"
    _time(view, data)
    view["round_id"] = data["round_id"]
    view["round_no"] = data["round_no"]
    view["dealer"] = data["dealer"]
    for seat in view["seats"]:
        if seat is not None:
            # A new round: everyone seated now is dealt into it.
            seat["waiting_next_round"] = False


def _chip_placed(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["bets"][data["area"]] = data["chips"]
    book = view.get("book")
    if book is not None:
        # The dealer's book: the server sends no ``me`` for a chip (``view.book_kept``).
        area = data["area"]
        book["per_seat"].setdefault(str(data["seat"]), {})[area] = data["chips"]
        if area in book["totals"]:
            chips = sum(bets.get(area, 0) for bets in book["per_seat"].values())
            book["totals"][area] = {"chips": chips, "coins": chips * view["chip_unit"]}
            totals = book["totals"]
            book["exposure"] = exposure(totals["player"]["coins"], totals["banker"]["coins"])


def _bets_changed(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["bets"] = dict(data["bets"])


def _bets_cleared(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["bets"] = {}


def _stakes_returned(view: View, data: Data) -> None:
    view["seats"][data["seat"]]["bets"] = {}
    _coins(view, data["user_id"], data["coins"])


def _round_cancelled(view: View, data: Data) -> None:
    _no_round(view)


def _betting_closed(view: View, data: Data) -> None:
    for bet in data["bets"]:
        _coins(view, bet["user_id"], -bet["coins"])
    for seat, idle in data["idle_rounds"].items():
        view["seats"][int(seat)]["idle_rounds"] = idle
    # The deal follows in the same breath: a squeeze, or at once the settlement.
    view["phase"] = "squeeze"


# -- the deal ------------------------------------------------------------------------------


def _controllers(view: View, data: Data) -> None:
    view["controllers"] = {hand: data[hand] for hand in HANDS}


def _card_dealt(view: View, data: Data) -> None:
    entry = {"face_down": True} if data["face_down"] else {"card": data["card"]}
    view["hands"][data["hand"]].append(entry)
    view["shoe"]["cards_left"] -= 1


def _squeeze_started(view: View, data: Data) -> None:
    view["phase"] = "squeeze"
    _time(view, data)
    view["squeeze"] = {
        k: data[k]
        for k in (
            "hand",
            "position",
            "card",
            "controller_user_id",
            "controller_name",
            "progress",
            "corner",
            "deadline",
        )
    }
    view["hands"][data["hand"]][data["position"]] = {"face_down": True, "card": data["card"]}


def _squeeze_progress(view: View, data: Data) -> None:
    squeeze = view["squeeze"]
    if squeeze is not None and squeeze["hand"] == data["hand"]:
        squeeze["progress"] = data["progress"]
        squeeze["corner"] = data["corner"]
        if "deadline" in data:
            # The peel extended the countdown.
            squeeze["deadline"] = data["deadline"]
            _time(view, data)


def _card_opened(view: View, data: Data) -> None:
    view["hands"][data["hand"]][data["position"]] = {"card": data["card"]}
    view["squeeze"] = None
    _no_time(view)


def _round_settled(view: View, data: Data) -> None:
    view["phase"] = "result"
    _time(view, data)
    view["squeeze"] = None
    outcome = data["outcome"]
    view["result"] = {
        "round_id": data["round_id"],
        "round_no": data["round_no"],
        "outcome": outcome,
        "settlement": data["settlement"],
    }
    winner = outcome["winner"]
    view["history"].append(
        {
            "winner": winner,
            "points": outcome["banker" if winner == "banker" else "player"]["points"],
            "player_pair": outcome["player"]["pair"],
            "banker_pair": outcome["banker"]["pair"],
            # Nobody draws after a natural, so two cards each and an 8 or 9 tell it.
            "natural": all(len(outcome[h]["cards"]) == 2 for h in HANDS)
            and any(outcome[h]["points"] >= 8 for h in HANDS),
        }
    )
    view["shoe"]["round_no"] += 1
    dealer = view["seats"][0]
    if dealer is not None:
        # The dealer seat's occupant dealt this round: one more in a row (連莊).
        dealer["dealer_rounds"] += 1
    for result in data["results"]:
        # Each seat gets its escrowed stake back with its delta.
        _coins(view, result["user_id"], result["stake"] + result["delta"])


# -- the viewer's own ----------------------------------------------------------------------


def _chat(view: View, data: Data) -> None:
    view["chat"] = [*view.get("chat", []), data][-CHAT_KEPT:]


def _me(view: View, data: Data) -> None:
    view["me"] = data["me"]
    view["book"] = data["book"]


def _nothing(view: View, data: Data) -> None:
    """An event that changes no view (``urged``, ``dealer_turn``, ``round_voided``, ``urge``)."""


_STEPS: dict[str, Callable[[View, Data], None]] = {
    "seated": _seated,
    "seat_freed": _seat_freed,
    "dealer_leaving": _dealer_leaving,
    "disconnected": _disconnected,
    "reconnected": _reconnected,
    "coins_set": _coins_set,
    "dealer_queue": _dealer_queue,
    "dealer_turn": _nothing,
    "chat": _chat,
    "waiting": _waiting,
    "table_closing": _table_closing,
    "table_suspended": _table_suspended,
    "table_resumed": _table_resumed,
    "shoe_started": _shoe_started,
    "shoe_ended": _shoe_ended,
    "shuffling": _shuffling,
    "betting_opened": _betting_opened,
    "chip_placed": _chip_placed,
    "bets_changed": _bets_changed,
    "bets_cleared": _bets_cleared,
    "stakes_returned": _stakes_returned,
    "urged": _nothing,
    "round_cancelled": _round_cancelled,
    "betting_closed": _betting_closed,
    "controllers": _controllers,
    "card_dealt": _card_dealt,
    "squeeze_started": _squeeze_started,
    "squeeze_progress": _squeeze_progress,
    "card_opened": _card_opened,
    "round_settled": _round_settled,
    "round_voided": _nothing,
    "urge": _nothing,
    "me": _me,
}
"""How each event changes a view; the table's every event, the server's and ``me``."""

EVENTS = frozenset(_STEPS)
