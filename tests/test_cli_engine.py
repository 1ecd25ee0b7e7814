"""The engine's commands: settle, verify-shoe, odds and simulate, through main(argv)."""

import io
import json
import subprocess
import sys
from typing import Any

import pytest

from baccarat.cli import main
from baccarat.odds import ODDS_KEYS, exact_odds
from baccarat.shoe import commitment, shuffled_cards

WORKED_EXAMPLE = {
    "chip_unit": 100,
    "dealer": "A",
    "bets": [
        {"user": "B", "area": "banker", "chips": 2},
        {"user": "C", "area": "player", "chips": 1},
    ],
    "cards": ["9S", "2H", "KH", "3C", "4D", "5S"],
}


def _settle(
    text: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, Any]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(["settle"])
    return status, json.loads(capsys.readouterr().out)


def _scenario(**changes: Any) -> str:
    scenario = dict(WORKED_EXAMPLE) | changes
    return json.dumps({k: v for k, v in scenario.items() if v is not None})


def test_settle_worked_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = _settle(json.dumps(WORKED_EXAMPLE), capsys, monkeypatch)
    assert status == 0
    assert out["winner"] == "player"
    assert out["player"] == {"cards": ["9S", "KH"], "points": 9, "pair": False}
    assert out["banker"] == {"cards": ["2H", "3C"], "points": 5, "pair": False}
    assert out["deltas"] == {"A": 99, "B": -200, "C": 99}
    assert out["house"] == 2
    assert out["commission"] == {"A": 1, "C": 1}


def test_settle_adds_up_a_users_bets_on_one_area(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bets = [{"user": "B", "area": "banker", "chips": 1}] * 2 + [
        {"user": "C", "area": "player", "chips": 1}
    ]
    status, out = _settle(_scenario(bets=bets), capsys, monkeypatch)
    assert status == 0
    assert out["deltas"] == {"A": 99, "B": -200, "C": 99}


def test_settle_uses_a_third_card_when_the_rules_call_for_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cards = ["2S", "3H", "KH", "KC", "4D", "5S", "9D"]
    status, out = _settle(_scenario(cards=cards), capsys, monkeypatch)
    assert status == 0
    assert out["player"]["cards"] == ["2S", "KH", "4D"]
    assert out["banker"]["cards"] == ["3H", "KC", "5S"]
    assert out["winner"] == "banker"


BAD_BETS = {
    "player_banker_exclusive": [
        {"user": "B", "area": "banker", "chips": 2},
        {"user": "B", "area": "player", "chips": 1},
    ],
    "over_limit": [
        {"user": "B", "area": "tie", "chips": 10},
        {"user": "B", "area": "tie", "chips": 1},
    ],
    "dealer_cannot_bet": [{"user": "A", "area": "tie", "chips": 1}],
    "unknown_area": [{"user": "B", "area": "dragon", "chips": 1}],
    "bad_chips": [{"user": "B", "area": "tie", "chips": 0}],
    "missing_field": [{"user": "B", "area": "tie"}],
}


@pytest.mark.parametrize("code", sorted(BAD_BETS))
def test_settle_rejects_a_bet_that_breaks_a_rule(
    code: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = _settle(_scenario(bets=BAD_BETS[code]), capsys, monkeypatch)
    assert status == 2
    assert out["error"]["code"] == code
    assert out["error"]["message"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (_scenario(chip_unit=150), "bad_chip_unit"),
        (_scenario(cards=["9S", "2H", "KH", "ZZ"]), "unknown_card"),
        (_scenario(cards=["9S", "2H", "KH"]), "too_few_cards"),
        (_scenario(cards=["2S", "3H", "KH", "KC", "4D"]), "too_few_cards"),
        ("{not json", "bad_json"),
        (_scenario(cards=None), "missing_field"),
        (_scenario(dealer=None), "missing_field"),
        ("[1, 2]", "bad_scenario"),
    ],
)
def test_settle_rejects_a_broken_scenario(
    text: str, code: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = _settle(text, capsys, monkeypatch)
    assert status == 2
    assert out["error"]["code"] == code


SEED = "ab" * 32


def test_verify_shoe_recomputes_the_cards_and_accepts_the_right_commitment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    right = commitment(bytes.fromhex(SEED))
    assert main(["verify-shoe", "--seed", SEED, "--commitment", right.upper(), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["commitment"] == right
    assert out["cards"] == [str(c) for c in shuffled_cards(bytes.fromhex(SEED))]
    assert len(out["cards"]) == 416


def test_verify_shoe_exits_1_on_a_commitment_mismatch(capsys: pytest.CaptureFixture[str]) -> None:
    wrong = commitment(bytes(32))
    assert main(["verify-shoe", "--seed", SEED, "--commitment", wrong]) == 1
    captured = capsys.readouterr()
    assert "MISMATCH" in captured.err
    assert wrong in captured.err


@pytest.mark.parametrize(
    "argv",
    [["--seed", "not hex"], ["--seed", "abcd"], ["--seed", SEED, "--commitment", "xyz"]],
)
def test_verify_shoe_bad_hex_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify-shoe", *argv, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] in {"bad_seed", "bad_commitment"}


def test_odds_json_keys_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--decks", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == [
        "decks", "total", "counts", "probabilities", "expected_value", "expected_value_exact",
    ]  # fmt: skip
    assert list(out["counts"]) == list(ODDS_KEYS)
    assert out["counts"] == exact_odds(8).counts
    assert out["total"] == exact_odds(8).total


def test_odds_table_shows_the_house_edge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--decks", "8"]) == 0
    out = capsys.readouterr().out
    assert "house edge" in out
    assert "Banker Pair" in out
    assert "2,292,252,566,437,888" in out


def _simulate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["simulate", *argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no progress bar with --json
    return json.loads(captured.out)


def test_simulate_json_is_deterministic_for_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    first = _simulate(["--rounds", "5000", "--seed", "42"], capsys)
    again = _simulate(["--rounds", "5000", "--seed", "42", "--processes", "2"], capsys)
    assert first["counts"] == again["counts"]
    assert first["observed"] == again["observed"]
    assert first["rounds"] == 5000
    assert set(first) >= {"rounds", "counts", "observed", "exact", "rounds_per_second"}
    assert list(first["counts"]) == list(ODDS_KEYS)


def test_simulate_table_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rounds", "1000", "--seed", "1"]) == 0
    assert "simulated rounds" in capsys.readouterr().out


def test_the_installed_command_settles_from_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "baccarat", "settle"],
        input=json.dumps(WORKED_EXAMPLE),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["house"] == 2
