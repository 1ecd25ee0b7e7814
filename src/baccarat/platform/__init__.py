"""The operator's platform: players launched from its lobby with a signed token, and coins
moved between its wallet and the game's (``docs/integration.md``).

``config`` (the ``--platform`` file), ``signing`` (the HMAC both sides sign their calls
with), ``tokens`` (launch tokens and the platform's keys), ``seamless`` (the seamless
wallet, which fills ``server/tables/wallet.py``) and ``report`` (what ``baccarat reconcile``
compares). Its HTTP routes are the server's (``server/http/launch``, ``transfers`` and
``platform_routes``): this package imports no part of the server.
"""
