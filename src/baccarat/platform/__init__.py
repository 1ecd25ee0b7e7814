"""The operator's platform: players launched from its lobby with a signed token, and coins
moved between its wallet and the game's (``docs/integration.md``).

``config`` (the ``--platform`` file), ``signing`` (the HMAC both sides sign their calls
with), ``tokens`` (launch tokens and the platform's keys), ``launch`` (``GET /launch``),
``transfers`` (the transfer wallet's API) and ``report`` (what ``baccarat reconcile``
compares).
"""
