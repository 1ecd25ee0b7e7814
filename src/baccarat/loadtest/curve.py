"""The capacity curve as a small self-contained SVG: latency and CPU against tables."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

W, H = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 64, 40, 56
PW, PH = W - LEFT - RIGHT, H - TOP - BOTTOM
"""The plotting area's width and height."""
COLOURS = ("#c62828", "#1565c0", "#2e7d32", "#6a1b9a", "#ef6c00")
"""One colour per server in the report, in order of appearance (project, raw, raw-picows)."""


def _nice(top: float) -> float:
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if top <= step * 5:
            return float(step * 5)
    return top


@dataclass(frozen=True, slots=True)
class _Plot:
    """Where values land: tables across; latency (left axis) and CPU share (right) up."""

    xmax: float
    ymax: float

    def x(self, v: float) -> float:
        return LEFT + PW * v / self.xmax

    def y(self, v: float) -> float:
        return TOP + PH * (1 - min(v, self.ymax) / self.ymax)

    def ycpu(self, v: float) -> float:
        return TOP + PH * (1 - min(v, 1.0))


def curve_svg(report: dict[str, Any]) -> str:
    """The SVG text: p99 delivery latency (solid, left axis) and server CPU (dashed, right)."""
    steps = report["steps"]
    limit = report.get("p99_limit_ms", 50.0)
    plot = _Plot(
        xmax=max((s["tables"] for s in steps), default=1),
        ymax=_nice(max([limit, *(s["delivery"]["p99_ms"] for s in steps)])),
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="#fff"/>',
        f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">'
        f"{escape(report.get('model', ''))} clients: p99 delivery latency and server CPU</text>",
    ]
    out += _scales(plot)
    out += _limit_line(plot, limit)
    out += _axis_titles()
    servers = list(dict.fromkeys(s["server"] for s in steps))
    for i, (server, colour) in enumerate(zip(servers, COLOURS * len(servers), strict=False)):
        mine = sorted((s for s in steps if s["server"] == server), key=lambda s: s["tables"])
        out += _series(plot, mine, colour)
        out += _legend(TOP + 8 + 18 * i, server, colour)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _scales(plot: _Plot) -> list[str]:
    """Grid lines with latency on the left and CPU on the right; tables along the bottom."""
    out = []
    for i in range(6):
        v = plot.ymax * i / 5
        y = plot.y(v)
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
        out.append(f'<text x="{W - RIGHT + 6}" y="{y + 4:.1f}">{round(100 * i / 5)}%</text>')
    for i in range(6):
        v = plot.xmax * i / 5
        out.append(
            f'<text x="{plot.x(v):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">{round(v)}</text>'
        )
    return out


def _limit_line(plot: _Plot, limit: float) -> list[str]:
    y = plot.y(limit)
    return [
        f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
        'stroke="#999" stroke-dasharray="2,3"/>',
        f'<text x="{LEFT + 4}" y="{y - 4:.1f}" fill="#777">p99 limit</text>',
    ]


def _axis_titles() -> list[str]:
    return [
        f'<text x="{W / 2}" y="{H - 14}" text-anchor="middle">full tables (9 clients each)</text>',
        f'<text transform="translate(16 {H / 2}) rotate(-90)" text-anchor="middle">'
        "p99 delivery latency (ms)</text>",
        f'<text transform="translate({W - 14} {H / 2}) rotate(90)" text-anchor="middle">'
        "server CPU (one core)</text>",
    ]


def _series(plot: _Plot, steps: list[dict[str, Any]], colour: str) -> list[str]:
    """One server's steps: latency as a solid line with points, CPU (if measured) dashed."""
    lat = " ".join(
        f"{plot.x(s['tables']):.1f},{plot.y(s['delivery']['p99_ms']):.1f}" for s in steps
    )
    out = [f'<polyline points="{lat}" fill="none" stroke="{colour}" stroke-width="2"/>']
    for s in steps:
        out.append(
            f'<circle cx="{plot.x(s["tables"]):.1f}" cy="{plot.y(s["delivery"]["p99_ms"]):.1f}" '
            f'r="3" fill="{colour}"/>'
        )
    cpu = [s for s in steps if "server_cpu" in s]
    if cpu:
        pts = " ".join(f"{plot.x(s['tables']):.1f},{plot.ycpu(s['server_cpu']):.1f}" for s in cpu)
        out.append(
            f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.5" '
            'stroke-dasharray="6,4"/>'
        )
    return out


def _legend(y: int, server: str, colour: str) -> list[str]:
    return [
        f'<line x1="{LEFT + 10}" x2="{LEFT + 34}" y1="{y}" y2="{y}" '
        f'stroke="{colour}" stroke-width="2"/>',
        f'<text x="{LEFT + 40}" y="{y + 4}">{escape(server)}: p99 (solid), CPU (dashed)</text>',
    ]


def write_curve(report: dict[str, Any], path: Path) -> None:
    """Write the curve of ``report`` to ``path``."""
    path.write_text(curve_svg(report), encoding="utf-8")
