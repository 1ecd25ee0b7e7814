"""What a table tells the world: events with JSON-ready data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``to=None`` goes to everyone watching, else to that user only."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    to: int | None = None

    @property
    def private(self) -> bool:
        """Whether only one user may see this event."""
        return self.to is not None
