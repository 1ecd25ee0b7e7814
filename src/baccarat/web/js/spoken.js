// What the page says to a player who does not see it, in the page's language: cards named in
// words (梅花 3, 3 of clubs), the sentences of the table's live region (announcer.js), the
// squeeze card's keys and the names of landmarks that have no words on screen.

import { getLang } from "./i18n.js";

const WORDS = {
  "zh-TW": {
    suit_S: "黑桃", suit_H: "紅心", suit_D: "方塊", suit_C: "梅花",
    rank_A: "A", rank_T: "10", rank_J: "J", rank_Q: "Q", rank_K: "K",
    card: "{suit} {rank}", face_down: "蓋著的牌", nth: "第 {n} 張",
    round_betting: "第 {n} 局，請下注，{s} 秒", dealing: "發牌",
    card_line: "{hand}{nth}：{card}，{hand} {points} 點",
    time_up: "時間到，自動開牌。",
    squeeze_mine: "輪到您瞇牌：{hand}{nth}。方向鍵瞇牌，Enter 開牌",
    squeeze_other: "{name} 瞇牌中：{hand}{nth}",
    result_points: "閒 {p} 點，莊 {b} 點", sep: "，", your_net: "您的淨額 {net}", commission: "佣金 {n}",
    your_bet: "您押{area} {coins}",
    squeeze_card: "{hand}{nth}，蓋著的牌", peel_keys: "方向鍵瞇牌，Enter 開牌",
    peeled: "已瞇 {n}%",
    table_area: "牌桌", controls: "籌碼與操作", roads: "路單", name: "名字",
  },
  en: {
    suit_S: "spades", suit_H: "hearts", suit_D: "diamonds", suit_C: "clubs",
    rank_A: "ace", rank_T: "10", rank_J: "jack", rank_Q: "queen", rank_K: "king",
    card: "{rank} of {suit}", face_down: "face-down card", nth: " card {n}",
    round_betting: "Round {n}: place your bets, {s} seconds", dealing: "Dealing",
    card_line: "{hand}{nth}: {card}. {hand} {points}",
    time_up: "Time's up, opened automatically. ",
    squeeze_mine: "Your squeeze: {hand}{nth}. Arrow keys peel, Enter opens",
    squeeze_other: "{name} squeezes {hand}{nth}",
    result_points: "Player {p}, Banker {b}", sep: ". ", your_net: "Your net {net}", commission: "commission {n}",
    your_bet: "Your bet on {area}: {coins}",
    squeeze_card: "{hand}{nth}, face down", peel_keys: "Arrow keys peel, Enter opens",
    peeled: "{n}% peeled",
    table_area: "Table", controls: "Chips and controls", roads: "Roads", name: "Name",
  },
};

/** A sentence of the page's spoken words in the page's language, its {x} filled from `params`. */
export function say(key, params) {
  const text = WORDS[getLang()][key] ?? WORDS["zh-TW"][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (params && k in params ? params[k] : `{${k}}`));
}

/** A card in words ("梅花 3", "3 of clubs") from its code ("3C"); a face-down card as such. */
export function cardName(code) {
  const suit = typeof code === "string" ? code.slice(-1).toUpperCase() : "";
  let rank = typeof code === "string" ? code.slice(0, -1).toUpperCase() : "";
  if (rank === "10") rank = "T";
  if (!"SHDC".includes(suit) || !suit || !/^(A|[2-9]|T|J|Q|K)$/.test(rank)) return say("face_down");
  const words = /^[2-9]$/.test(rank) ? rank : say(`rank_${rank}`);
  return say("card", { suit: say(`suit_${suit}`), rank: words });
}

/** "第 2 張" / " card 2": a hand's card by its place (0 the first). */
export function nth(position) {
  return say("nth", { n: position + 1 });
}
