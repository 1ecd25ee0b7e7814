"""Monte Carlo play of many rounds through real 8-deck shoes, vectorised with NumPy.

This is a statistics tool, not a table: its shuffle is NumPy's PCG64 generator
(``Generator.permuted`` on a whole batch of shoes at once), not the provably fair
algorithm of :mod:`baccarat.shoe`, which only real tables need.

Rounds are dealt as at a table: a shoe gives 78 rounds, or fewer when fewer than 6 cards
remain before a round. Work is split into fixed chunks of :data:`SHOES_PER_CHUNK` shoes;
chunk ``i`` is shuffled from ``SeedSequence(seed, spawn_key=(i,))``, and the first ``N``
rounds in (chunk, shoe, round) order are counted. The result therefore depends only on the
seed and ``N``, never on how many processes share the work.

All shoes of a chunk are played in lockstep. Every 6-card window of every shoe is first
encoded as one integer (its card values as six decimal digits); a table of all 10**6
windows, built once from the tableau of :mod:`baccarat.rules`, gives the result and the
number of cards the round uses. A round is then a handful of array look-ups per chunk.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
from collections.abc import Callable, Generator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from baccarat.bets import Area
from baccarat.odds import ODDS_KEYS
from baccarat.rules import BANKER_DRAWS, Winner
from baccarat.shoe import DECKS, MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE

SHOES_PER_CHUNK = 1024
"""Shoes shuffled and played together; fixed, because the results depend on it."""

CARDS = 52 * DECKS
MIN_ROUNDS_PER_SHOE = (CARDS - MIN_CARDS_TO_DEAL) // 6 + 1
"""A round uses at most 6 cards, so a shoe always gives at least this many rounds."""

WINDOW = 6
_WINDOWS = CARDS - WINDOW + 1
"""Positions where a round may start: at least 6 cards must remain."""

# A round's code: bits 0-1 the result (0 Banker, 1 Player, 2 Tie), bit 2 a Player Pair,
# bit 3 a Banker Pair. -1 marks a round a shoe did not reach.
_BANKER, _PLAYER, _TIE = 0, 1, 2
CODES = 16

Codes = npt.NDArray[np.int8]


@functools.cache
def window_table() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
    """For each 6-card window of values (as a 6-digit number): its result and cards used."""
    digits = np.indices((10,) * WINDOW, dtype=np.int16).reshape(WINDOW, -1)
    p1, b1, p2, b2, c4, c5 = digits
    pt = (p1 + p2) % 10
    bt = (b1 + b2) % 10
    natural = (pt >= 8) | (bt >= 8)
    player_draws = ~natural & (pt <= 5)
    table = np.zeros((10, 10), dtype=bool)
    for total, row in BANKER_DRAWS.items():
        table[total] = row
    # The Banker reads the Player's third card (c4) if there is one, else its own total.
    banker_draws = ~natural & np.where(player_draws, table[bt, c4], bt <= 5)
    pf = np.where(player_draws, (pt + c4) % 10, pt)
    banker_third = np.where(player_draws, c5, c4)
    bf = np.where(banker_draws, (bt + banker_third) % 10, bt)
    result = np.where(bf > pf, _BANKER, np.where(pf > bf, _PLAYER, _TIE)).astype(np.int8)
    used = (4 + player_draws + banker_draws).astype(np.int16)
    return result, used


def _shoe_ranks() -> npt.NDArray[np.int8]:
    ranks = np.tile(np.arange(1, 14, dtype=np.int8), 4 * DECKS)
    return ranks


def play_chunk(seed: int, chunk: int) -> Codes:
    """Play chunk ``chunk`` of the run seeded ``seed``: every round's code, in order."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(chunk,))))
    ranks = rng.permuted(np.tile(_shoe_ranks(), (SHOES_PER_CHUNK, 1)), axis=1)
    return play_shoes(ranks)


def play_shoes(ranks: npt.NDArray[np.int8]) -> Codes:
    """Deal every round of each shoe (one row of card ranks, 1 to 13, in dealing order).

    Returns each round's code, shoe by shoe and round by round.
    """
    shoes = ranks.shape[0]
    values = np.where(ranks >= 10, 0, ranks).astype(np.int32)
    window = np.zeros((shoes, _WINDOWS), dtype=np.int32)
    for k in range(WINDOW):
        window = window * 10 + values[:, k : k + _WINDOWS]
    # Pair bits of a round starting at each position: ranks of cards 1 and 3, 2 and 4.
    pairs = (ranks[:, 0:_WINDOWS] == ranks[:, 2 : _WINDOWS + 2]).astype(np.int8) << 2
    pairs |= (ranks[:, 1 : _WINDOWS + 1] == ranks[:, 3 : _WINDOWS + 3]).astype(np.int8) << 3
    result_of, used_of = window_table()
    flat_window = window.ravel()
    flat_pairs = pairs.ravel()
    row = np.arange(shoes, dtype=np.int64) * _WINDOWS
    pos = np.zeros(shoes, dtype=np.int64)
    codes = np.full((shoes, ROUNDS_PER_SHOE), -1, dtype=np.int8)
    for k in range(ROUNDS_PER_SHOE):
        live = pos < _WINDOWS
        # A finished shoe reads a harmless position; its code is masked out below.
        at = row + np.minimum(pos, _WINDOWS - 1)
        w = flat_window[at]
        code = result_of[w] | flat_pairs[at]
        codes[:, k] = np.where(live, code, -1)
        pos += np.where(live, used_of[w], 0)
    flat = codes.ravel()
    return flat[flat >= 0]


def _chunks(seed: int, count: int, processes: int) -> Generator[Codes, None, None]:
    """The chunks' codes in chunk order, computed by ``processes`` processes."""
    processes = min(processes, count)
    if processes <= 1:
        for chunk in range(count):
            yield play_chunk(seed, chunk)
        return
    # Each worker builds its own look-up table once; imap keeps chunk order.
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        # Leaving the block (also when the caller stops early) terminates the workers.
        yield from pool.imap(functools.partial(play_chunk, seed), range(count))


@dataclass(frozen=True, slots=True)
class Tally:
    """What a run of simulated rounds counted."""

    rounds: int
    counts: dict[Area, int]

    def observed(self) -> dict[Area, float]:
        """Each area's observed winning frequency."""
        return {a: self.counts[a] / self.rounds if self.rounds else 0.0 for a in ODDS_KEYS}


def tally(codes: Codes) -> Tally:
    """Count results and pairs in an array of round codes."""
    return _tally_histogram(np.bincount(codes.astype(np.int64), minlength=CODES))


def _tally_histogram(hist: npt.NDArray[np.int64]) -> Tally:
    code = np.arange(CODES)
    counts: dict[Area, int] = {
        "banker": int(hist[(code & 3) == _BANKER].sum()),
        "player": int(hist[(code & 3) == _PLAYER].sum()),
        "tie": int(hist[(code & 3) == _TIE].sum()),
        "player_pair": int(hist[(code & 4) != 0].sum()),
        "banker_pair": int(hist[(code & 8) != 0].sum()),
    }
    return Tally(int(hist.sum()), counts)


def simulate(
    rounds: int,
    seed: int,
    processes: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """Play the first ``rounds`` rounds of the run seeded ``seed`` and count them.

    ``progress`` is told how many more rounds each finished chunk contributed.
    """
    per_chunk = MIN_ROUNDS_PER_SHOE * SHOES_PER_CHUNK
    needed_chunks = -(-rounds // per_chunk)
    hist = np.zeros(CODES, dtype=np.int64)
    done = 0
    with contextlib.closing(_chunks(seed, needed_chunks, processes)) as chunks:
        for codes in chunks:
            take = codes[: rounds - done]
            hist += np.bincount(take.astype(np.int64), minlength=CODES)
            done += int(take.size)
            if progress is not None:
                progress(int(take.size))
            if done >= rounds:
                break
    return _tally_histogram(hist)


def describe(code: int) -> tuple[Winner, bool, bool]:
    """A round code as (winner, Player Pair, Banker Pair)."""
    winner: Winner = ("banker", "player", "tie")[code & 3]
    return winner, bool(code & 4), bool(code & 8)
