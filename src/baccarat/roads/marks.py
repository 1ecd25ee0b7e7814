"""One round as the roads see it: who won, on how many points, and the pairs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.rules import Outcome, Winner, is_natural

WINNERS: tuple[Winner, ...] = ("banker", "player", "tie")
FIELDS = ("winner", "points", "banker_pair", "player_pair", "natural")


@dataclass(frozen=True, slots=True)
class RoundMark:
    """A round's result: the winner, the winner's points (the tied points on a tie), pairs."""

    winner: Winner
    points: int
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False
    """A hand's first two cards made 8 or 9 (天牌), for the shoe's statistics."""

    def __post_init__(self) -> None:
        if self.winner not in WINNERS:
            raise InvalidInput(
                "unknown_winner",
                f"The winner must be 'banker', 'player' or 'tie', not {self.winner!r}.",
            )
        # bool is an int subclass; True is not a number of points.
        if not whole(self.points):
            raise InvalidInput(
                "bad_points", f"Points must be a whole number from 0 to 9, not {self.points!r}."
            )
        if not 0 <= self.points <= 9:
            raise InvalidInput("bad_points", f"Points must be from 0 to 9, not {self.points}.")
        for name in ("banker_pair", "player_pair", "natural"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidInput("bad_pair", f"{name} must be true or false, not {value!r}.")

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> RoundMark:
        """The mark of a dealt round."""
        natural = is_natural(outcome.player[:2]) or is_natural(outcome.banker[:2])
        return cls(
            outcome.winner,
            outcome.winner_points,
            outcome.banker_pair,
            outcome.player_pair,
            natural,
        )

    @classmethod
    def from_dict(cls, data: object) -> RoundMark:
        """Read a mark from JSON-ready data; the two pair flags default to false."""
        if not isinstance(data, Mapping):
            raise InvalidInput("bad_round", f"A round must be an object, not {data!r}.")
        unknown = sorted(str(k) for k in data if k not in FIELDS)
        if unknown:
            raise InvalidInput(
                "unknown_field",
                f"A round has only the fields {', '.join(FIELDS)}; unknown: {', '.join(unknown)}.",
            )
        for name in ("winner", "points"):
            if name not in data:
                raise InvalidInput("missing_field", f"A round needs the field '{name}'.")
        fields: dict[str, Any] = dict(data)
        return cls(
            fields["winner"],
            fields["points"],
            fields.get("banker_pair", False),
            fields.get("player_pair", False),
            fields.get("natural", False),
        )


def parse_marks(data: object) -> list[RoundMark]:
    """Read a JSON array of rounds; a bad round is named by its position (from 0)."""
    if not isinstance(data, list):
        raise InvalidInput("bad_rounds", "The rounds must be a JSON array of round objects.")
    marks = []
    for i, item in enumerate(data):
        try:
            marks.append(RoundMark.from_dict(item))
        except InvalidInput as exc:
            raise InvalidInput(exc.code, f"Round {i}: {exc.message}", index=i) from None
    return marks
