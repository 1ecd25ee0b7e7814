"""Bots on the protocol's client: they sit, bet within the rules, squeeze, and deal.

A bot picks a table (or is given one), takes the dealer seat when it is free, it may deal and
it can afford the floor, else a free bettor seat (and then lines up for the dealer seat). When
betting opens it bets by its strategy:

- ``flat``: the same chips on Banker every round (a rebet once it has bet here);
- ``streak``: follows the last result (Banker after Banker, Player after Player);
- ``random``: Player or Banker at random, sometimes a Tie or a Pair on the side, and now and
  then a double or an undo of its last chip.

When a bot controls a face-down card it sometimes squeezes it (a few peel moves) before
opening; after a win it sometimes cheers with an emote, and after a round it won or lost it
sometimes says a word in the table's chat. A dropped connection is retried; the
seat waits for it during the reconnect grace. With many nodes, a bot follows its table: when
its node stops answering or no longer runs the table (a failover), it asks the lobby of any
node it knows where the table runs now and reconnects there, where the table kept its seat.

``plan`` holds what a bot does, ``bot`` how it plays on a connection, ``route`` how it finds
its table's node again.
"""

from baccarat.bots.bot import Bot, run_bots
from baccarat.bots.plan import STRATEGIES, BotPlan, choose_bet
from baccarat.bots.route import Route

__all__ = ["STRATEGIES", "Bot", "BotPlan", "Route", "choose_bet", "run_bots"]
