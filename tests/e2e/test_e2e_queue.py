"""The dealer queue's line in words, in both languages: the page's selector and its i18n."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import DESKTOP, Server, needs_chromium, open_page

pytestmark = [pytest.mark.browser, needs_chromium]

STREAK = """async ([rounds, waiting, lang]) => {
  const { dealerStreak } = await import('/js/selectors.js');
  const { t, setLang } = await import('/js/i18n.js');
  setLang(lang);
  const view = { seats: [{ user_id: 1, dealer_rounds: rounds }], limits: { dealer_round_limit: 10 },
    dealer_queue: waiting ? [{ user_id: 2, name: 'q' }] : [] };
  const s = dealerStreak(view);
  return t(s.key, s);
}"""


CASES = [
    (50, True, "zh-TW", "連莊 50 · 有人排隊，本局後換莊"),
    (50, True, "en", "Dealt 50 in a row · someone waits: a new dealer after this round"),
    (10, True, "zh-TW", "連莊 10 · 有人排隊，本局後換莊"),
    (4, True, "zh-TW", "連莊 4/10"),
    (50, False, "zh-TW", "連莊 50"),
]


def test_a_dealer_over_the_limit_with_someone_waiting_is_said_in_words(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    try:
        said = [page.evaluate(STREAK, [n, waiting, lang]) for n, waiting, lang, _ in CASES]
        assert said == [words for *_, words in CASES]
    finally:
        page.context.close()
