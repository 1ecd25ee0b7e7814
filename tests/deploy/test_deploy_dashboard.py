"""The Grafana dashboard of ``deploy/grafana/``: it loads, every panel has a data source and
queries, every query follows the node picked, and its provisioning finds it and its data
source. (Which metrics its queries read is ``test_deploy_metric_names.py``'s.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana"
DASHBOARD = json.loads((GRAFANA / "baccarat.json").read_text())
PANELS = [p for p in DASHBOARD["panels"] if p["type"] != "row"]
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def _variable(name: str) -> dict[str, Any]:
    found = [v for v in DASHBOARD["templating"]["list"] if v["name"] == name]
    assert len(found) == 1, name
    variable: dict[str, Any] = found[0]
    return variable


def test_the_dashboard_picks_its_data_source_and_its_nodes() -> None:
    assert DASHBOARD["uid"] and DASHBOARD["title"]
    assert _variable("datasource")["type"] == "datasource"
    assert _variable("datasource")["query"] == "prometheus"
    nodes = _variable("instance")
    assert nodes["datasource"] == DATASOURCE
    assert nodes["multi"] and nodes["includeAll"]
    assert "instance" in nodes["definition"]


@pytest.mark.parametrize("panel", PANELS, ids=lambda p: str(p["title"]))
def test_every_panel_has_a_data_source_and_queries_for_the_nodes_picked(
    panel: dict[str, Any],
) -> None:
    assert panel["datasource"] == DATASOURCE
    assert panel["targets"]
    assert panel.get("description")
    refs = [t["refId"] for t in panel["targets"]]
    assert len(set(refs)) == len(refs)
    for target in panel["targets"]:
        assert target["datasource"] == DATASOURCE
        assert 'instance=~"$instance"' in target["expr"], target["expr"]


def test_the_panels_fit_the_grid_without_overlapping() -> None:
    taken: set[tuple[int, int]] = set()
    for panel in DASHBOARD["panels"]:
        pos = panel["gridPos"]
        assert pos["x"] + pos["w"] <= 24, panel["title"]
        cells = {
            (x, y)
            for x in range(pos["x"], pos["x"] + pos["w"])
            for y in range(pos["y"], pos["y"] + pos["h"])
        }
        assert not cells & taken, panel["title"]
        taken |= cells
    ids = [p["id"] for p in DASHBOARD["panels"]]
    assert len(set(ids)) == len(ids)


def test_the_provisioning_loads_the_dashboard_and_its_default_data_source() -> None:
    dashboards = yaml.safe_load((GRAFANA / "provisioning" / "dashboards.yml").read_text())
    assert dashboards["apiVersion"] == 1
    (provider,) = dashboards["providers"]
    assert provider["type"] == "file" and provider["options"]["path"]
    sources = yaml.safe_load((GRAFANA / "provisioning" / "datasources.yml").read_text())
    (source,) = sources["datasources"]
    assert source["type"] == "prometheus"
    assert source["uid"] == _variable("datasource")["current"]["value"]
