"""The alert rules of ``deploy/prometheus/``: valid for Prometheus, tested, and each one
saying what to do.

``promtool`` (Debian's ``prometheus`` package, installed by ``.ci/run``) checks the rules and
the scrape configuration that loads them, and runs ``alerts_test.yml``: each alert fires on
the series it is about and not on its neighbours'.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
ALERTS = PROMETHEUS / "alerts.yml"
UNIT_TESTS = Path(__file__).with_name("alerts_test.yml")
PROMTOOL = shutil.which("promtool")
SEVERITIES = {"critical", "warning"}
DOC_SECTION = re.compile(r'(docs/(?:deployment|reliability)\.md), "([^"]+)"')

needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is not installed (Debian: apt-get install prometheus)"
)


def _rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for group in yaml.safe_load(ALERTS.read_text())["groups"]:
        rules.extend(group["rules"])
    return rules


def _promtool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run(
        [PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


@needs_promtool
def test_promtool_accepts_the_rules() -> None:
    done = _promtool("check", "rules", str(ALERTS))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_promtool_accepts_the_scrape_config_and_the_rules_it_loads() -> None:
    done = _promtool("check", "config", str(PROMETHEUS / "prometheus.yml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 rule files found" in done.stdout


@needs_promtool
def test_each_alert_fires_on_its_series_and_not_on_its_neighbours(tmp_path: Path) -> None:
    rules = yaml.safe_load(ALERTS.read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            del rule["annotations"]
    (tmp_path / "alerts.yml").write_text(yaml.safe_dump(rules))
    shutil.copy(UNIT_TESTS, tmp_path / UNIT_TESTS.name)
    done = _promtool("test", "rules", UNIT_TESTS.name, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_alert_has_a_unit_test() -> None:
    tested = {
        case["alertname"]
        for test in yaml.safe_load(UNIT_TESTS.read_text())["tests"]
        for case in test["alert_rule_test"]
        if case.get("exp_alerts")
    }
    assert {rule["alert"] for rule in _rules()} <= tested


@pytest.mark.parametrize("rule", _rules(), ids=lambda rule: str(rule["alert"]))
def test_every_alert_has_a_severity_and_says_what_to_do_and_where(rule: dict[str, Any]) -> None:
    assert rule["labels"]["severity"] in SEVERITIES
    annotations = rule["annotations"]
    assert annotations["summary"].strip()
    description = annotations["description"]
    # A runbook line: at least one section of the operator's documents, which must exist.
    sections = DOC_SECTION.findall(description)
    assert sections, description
    for doc, section in sections:
        headings = re.findall(r"^#+ (.+)$", (ROOT / doc).read_text(), re.MULTILINE)
        assert section in headings, f"{doc} has no section {section!r}"
