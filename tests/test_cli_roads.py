"""``baccarat roads``: JSON output, drawing, a shoe from a seed, and the error exit."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from baccarat.cli import main
from baccarat.commands import roads as command
from baccarat.roads import RoundMark, roads
from baccarat.rules import deal
from baccarat.shoe import Shoe

ROUNDS = [
    {"winner": "tie", "points": 4, "banker_pair": False, "player_pair": True},
    {"winner": "banker", "points": 7, "banker_pair": True, "player_pair": False},
    {"winner": "banker", "points": 6, "banker_pair": False, "player_pair": False},
    {"winner": "player", "points": 9, "banker_pair": False, "player_pair": False},
    {"winner": "player", "points": 8, "banker_pair": False, "player_pair": False},
    {"winner": "banker", "points": 5, "banker_pair": False, "player_pair": False},
]
SEED = "00" * 31 + "2a"


def run(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = command.run(parser.parse_args(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_json_prints_the_roads_of_the_rounds_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["--json"], json.dumps(ROUNDS), monkeypatch, capsys)
    assert status == 0
    data = json.loads(out)
    assert set(data) == {
        "bead_plate",
        "big_road",
        "big_eye_boy",
        "small_road",
        "cockroach_pig",
        "ask",
        "counts",
    }
    assert data["big_road"][0] == {"col": 0, "row": 0, "winner": "banker", "ties": 1}
    assert data["bead_plate"][1] == {"col": 0, "row": 1, **ROUNDS[1]}
    assert data["counts"] == {
        "banker": 3,
        "player": 2,
        "tie": 1,
        "banker_pair": 1,
        "player_pair": 1,
        "rounds": 6,
    }
    # Big Road columns: BB, PP, B; Big Eye Boy marks (1,1) red, (2,0) red.
    assert data["big_eye_boy"] == [
        {"col": 0, "row": 0, "color": "red"},
        {"col": 0, "row": 1, "color": "red"},
    ]
    # A next Banker is (2,1): column 1 reaches row 1, red. A next Player starts column 3:
    # column 2 (1) is shorter than column 1 (2), blue.
    assert data["ask"]["banker"]["big_eye_boy"] == "red"
    assert data["ask"]["player"]["big_eye_boy"] == "blue"


@pytest.mark.parametrize(
    ("stdin", "code"),
    [
        ("[{", "bad_json"),
        ('{"winner": "banker"}', "bad_rounds"),
        ('[{"winner": "banker", "points": 12}]', "bad_points"),
        ('[{"winner": "house", "points": 1}]', "unknown_winner"),
        ('[{"winner": "banker", "points": 1, "cards": []}]', "unknown_field"),
    ],
)
def test_bad_input_exits_2_with_a_json_error(
    stdin: str,
    code: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(["--json"], stdin, monkeypatch, capsys)
    assert status == 2
    error = json.loads(out)["error"]
    assert error["code"] == code
    assert error["message"]


def test_bad_input_without_json_exits_2_with_a_message_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run([], '[{"winner": "banker", "points": 12}]', monkeypatch, capsys)
    assert status == 2
    assert out == ""
    assert "Round 0" in err and "0 to 9" in err


def test_drawing_shows_counts_and_ask_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run([], json.dumps(ROUNDS), monkeypatch, capsys)
    assert status == 0
    for title in ("Bead Plate", "Big Road", "Big Eye Boy", "Small Road", "Cockroach Pig"):
        assert title in out
    assert "Banker 3" in out and "Player 2" in out and "Tie 1" in out and "Rounds 6" in out
    assert "Ask Banker:" in out and "Ask Player:" in out


def test_seed_plays_a_whole_shoe_to_78_rounds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["--json", "--seed", SEED], "", monkeypatch, capsys)
    assert status == 0
    shoe = Shoe.from_seed(bytes.fromhex(SEED))
    expected = [RoundMark.from_outcome(deal(shoe.draw)) for _ in range(78)]
    assert json.loads(out) == roads(expected).to_dict()


def test_seed_drawing_fits_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    status, out, _ = run(["--seed", SEED], "", monkeypatch, capsys)
    assert status == 0
    assert "Rounds 78" in out
    assert max(len(line) for line in out.splitlines()) <= 60


def test_bad_seed_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["--json", "--seed", "abc"], "", monkeypatch, capsys)
    assert status == 2
    assert json.loads(out)["error"]["code"] == "bad_seed"


def test_shoe_ends_early_when_fewer_than_6_cards_remain() -> None:
    # A one-deck shoe (52 cards) cannot last 78 rounds of 4 to 6 cards.
    marks = command.shoe_marks(bytes(32), decks=1)
    assert 8 <= len(marks) <= 13
    shoe = Shoe.from_seed(bytes(32), decks=1)
    for _ in marks:
        deal(shoe.draw)
    assert shoe.remaining < 6


def test_the_baccarat_command_has_roads(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(ROUNDS)))
    assert main(["roads", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["rounds"] == len(ROUNDS)
