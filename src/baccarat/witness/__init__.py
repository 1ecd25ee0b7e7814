"""A witness of other parties' logs (c2sp.org/tlog-witness): ``baccarat witness``."""
