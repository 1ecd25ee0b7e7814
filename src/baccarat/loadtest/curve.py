"""The capacity curve as a small self-contained SVG: latency and CPU against tables."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

W, H = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 64, 40, 56
COLOURS = ("#c62828", "#1565c0", "#2e7d32", "#6a1b9a", "#ef6c00")
"""One colour per server in the report, in order of appearance (project, then raw)."""


def _nice(top: float) -> float:
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if top <= step * 5:
            return float(step * 5)
    return top


def curve_svg(report: dict[str, Any]) -> str:
    """The SVG text: p99 delivery latency (solid, left axis) and server CPU (dashed, right)."""
    steps = report["steps"]
    xmax = max((s["tables"] for s in steps), default=1)
    ymax = _nice(max([report.get("p99_limit_ms", 50.0), *(s["delivery"]["p99_ms"] for s in steps)]))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + pw * v / xmax

    def y(v: float) -> float:
        return TOP + ph * (1 - min(v, ymax) / ymax)

    def ycpu(v: float) -> float:
        return TOP + ph * (1 - min(v, 1.0))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="#fff"/>',
        f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">'
        f"{escape(report.get('model', ''))} clients: p99 delivery latency and server CPU</text>",
    ]
    for i in range(6):
        v = ymax * i / 5
        out.append(
            f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>'
        )
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        out.append(f'<text x="{W - RIGHT + 6}" y="{y(v) + 4:.1f}">{round(100 * i / 5)}%</text>')
    for i in range(6):
        v = xmax * i / 5
        out.append(
            f'<text x="{x(v):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">{round(v)}</text>'
        )
    limit = report.get("p99_limit_ms", 50.0)
    out.append(
        f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(limit):.1f}" y2="{y(limit):.1f}" '
        'stroke="#999" stroke-dasharray="2,3"/>'
    )
    out.append(f'<text x="{LEFT + 4}" y="{y(limit) - 4:.1f}" fill="#777">p99 limit</text>')
    out.append(
        f'<text x="{W / 2}" y="{H - 14}" text-anchor="middle">full tables (9 clients each)</text>'
    )
    out.append(
        f'<text transform="translate(16 {H / 2}) rotate(-90)" text-anchor="middle">'
        "p99 delivery latency (ms)</text>"
    )
    out.append(
        f'<text transform="translate({W - 14} {H / 2}) rotate(90)" text-anchor="middle">'
        "server CPU (one core)</text>"
    )
    legend_y = TOP + 8
    servers = list(dict.fromkeys(s["server"] for s in steps))
    for server, colour in zip(servers, COLOURS * len(servers), strict=False):
        mine = sorted((s for s in steps if s["server"] == server), key=lambda s: s["tables"])
        lat = " ".join(f"{x(s['tables']):.1f},{y(s['delivery']['p99_ms']):.1f}" for s in mine)
        out.append(f'<polyline points="{lat}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for s in mine:
            out.append(
                f'<circle cx="{x(s["tables"]):.1f}" cy="{y(s["delivery"]["p99_ms"]):.1f}" '
                f'r="3" fill="{colour}"/>'
            )
        cpu = [s for s in mine if "server_cpu" in s]
        if cpu:
            pts = " ".join(f"{x(s['tables']):.1f},{ycpu(s['server_cpu']):.1f}" for s in cpu)
            out.append(
                f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.5" '
                'stroke-dasharray="6,4"/>'
            )
        out.append(
            f'<line x1="{LEFT + 10}" x2="{LEFT + 34}" y1="{legend_y}" y2="{legend_y}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(
            f'<text x="{LEFT + 40}" y="{legend_y + 4}">{escape(server)}: p99 (solid), CPU (dashed)</text>'
        )
        legend_y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_curve(report: dict[str, Any], path: Path) -> None:
    """Write the curve of ``report`` to ``path``."""
    path.write_text(curve_svg(report), encoding="utf-8")
