"""``baccarat loadtest``: full tables of human-like clients against a server, measured.

``accounts`` makes the crews' accounts, ``clients`` plays them over picows, ``stats`` counts,
``process`` starts and measures the server, ``raw`` is the bare server of the same stack,
``curve`` draws the capacity curve, ``runner`` steps the number of tables up.
"""

MODELS = ("minimal", "browser", "auto-open")
"""The client models (``baccarat.loadtest.clients``)."""
P99_LIMIT_MS = 50.0
"""A step passes while the p99 delivery latency stays within this."""
