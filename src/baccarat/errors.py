"""The one exception tree of the project.

Every rejection carries a stable ``code`` (snake_case, part of the protocol) and a
``message`` (one sentence for a person). The tree:

- ``BaccaratError``: the root.
  - ``InvalidInput`` (also a ``ValueError``): the input cannot be understood at all
    (an unknown card, a malformed message, a bad configuration value).
  - ``RuleViolation``: the input is understood but a rule of the game forbids it
    (over a limit, out of phase, not your seat).
  - ``NotFound``: the thing named does not exist (a user, a table, a round).
  - ``Conflict``: the thing already exists or was already done (a taken name, a
    settled round).
  - ``InternalError``: the server failed (a bug); the caller did nothing wrong and the
    command changed nothing. Its code is ``internal_error``.
"""

from __future__ import annotations

from typing import Any


class BaccaratError(Exception):
    """Root of every error the project raises on purpose."""

    default_code = "error"

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The error as the protocol and the CLI send it."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class InvalidInput(BaccaratError, ValueError):
    """The input is malformed: it cannot be understood."""


class RuleViolation(BaccaratError):
    """The input is understood, but a rule of the game forbids it."""


class NotFound(BaccaratError):
    """The thing named does not exist."""


class Conflict(BaccaratError):
    """The thing already exists, or the action was already done."""


class InternalError(BaccaratError):
    """The server failed at something it should have done: never the caller's fault."""

    def __init__(self, message: str = "The server could not carry out the command.") -> None:
        super().__init__("internal_error", message)
