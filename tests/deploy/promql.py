"""The metric and label names a PromQL expression reads, found by a small tokenizer.

Enough of PromQL for the expressions under ``deploy/``: strings, ranges, Grafana's
``$variables`` and numbers are set aside; an identifier followed by ``(`` is a function or
an aggregation; the words of ``by (...)``, ``without (...)``, ``on (...)``, ``ignoring
(...)``, ``group_left (...)`` and ``group_right (...)`` are label names, and so are the
names before the matchers in ``{...}``; every other identifier is a metric name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_VARIABLE = re.compile(r"\$\{?\w+\}?")
_RANGE = re.compile(r"\[[^\]]*\]")
_CLAUSE = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_MATCHERS = re.compile(r"\{([^}]*)\}")
_MATCHER_LABEL = re.compile(r"([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)")
_SELECTOR = re.compile(r"([A-Za-z_:][\w:]*)\s*\{([^}]*)\}")
_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?")
_NUMBER_WORDS = {"inf", "nan"}
_KEYWORDS = {"and", "or", "unless", "bool", "offset", "atan2"}


@dataclass
class Query:
    """What one expression reads."""

    metrics: set[str] = field(default_factory=set)
    """Series names, as Prometheus stores them (``..._total``, ``..._bucket``)."""
    labels: set[str] = field(default_factory=set)
    """Label names it matches on, groups by or joins on."""
    matchers: dict[str, set[str]] = field(default_factory=dict)
    """Each selector's metric name with the label names of its matchers."""


def parse(expr: str) -> Query:
    """The metric and label names of ``expr``."""
    query = Query()
    # Strings go first (a matcher's value is never a name), then Grafana's variables.
    text = _VARIABLE.sub(" ", _STRING.sub('""', expr))
    text = _RANGE.sub(" ", text)
    for selector in _SELECTOR.finditer(text):
        labels = set(_MATCHER_LABEL.findall(selector.group(2)))
        query.matchers.setdefault(selector.group(1), set()).update(labels)
        query.labels |= labels
    for matchers in _MATCHERS.findall(text):
        query.labels |= set(_MATCHER_LABEL.findall(matchers))
    text = _MATCHERS.sub(" ", text)
    for names in _CLAUSE.findall(text):
        query.labels |= {n.strip() for n in names.split(",") if n.strip()}
    text = _CLAUSE.sub(" ", text)
    for name, call in _IDENTIFIER.findall(text):
        if call or name.lower() in _NUMBER_WORDS or name in _KEYWORDS:
            continue
        query.metrics.add(name)
    return query
