// The console's words in zh-TW and English; the language is the game's (one setting).

import { getLang, setLang as setGameLang } from "../js/i18n.js";

export { getLang };

const WORDS = {
  "zh-TW": {
    title: "營運後台", login: "登入", logout: "登出", username: "帳號", password: "密碼",
    code: "驗證碼（6 位數）", enrol: "第一次登入：用驗證器 App 掃描 QR 碼，再輸入它顯示的驗證碼。",
    secret: "金鑰", tables: "牌桌", users: "使用者", records: "牌局紀錄", log: "操作紀錄",
    table: "牌桌", room: "廳", phase: "階段", shoe_round: "本靴局數", dealer: "荷官", seats: "座位",
    watchers: "觀眾", escrow: "託管中", node: "節點", search: "搜尋名稱", find: "搜尋",
    name: "名稱", display_name: "暱稱", coins: "星幣", level: "等級", role: "角色", status: "狀態",
    banned: "已停權", muted: "禁言至 {until}", active: "正常", last_seen: "最後登入",
    seat: "座位", online: "在線", offline: "離線", sessions: "登入中的裝置",
    grant: "發放／扣回星幣", amount: "數量（負數為扣回）", reason: "原因",
    set_level: "設定等級", mute: "禁言", minutes: "分鐘（0 為解除）", ban: "停權", unban: "解除停權",
    stand_up: "請離座位", set_role: "設定角色", apply: "執行", ledger: "帳務紀錄", rounds: "牌局",
    kind: "類型", memo: "說明", time: "時間", round: "牌局", net: "輸贏", open_round: "查詢牌局",
    round_id: "牌局編號", cards: "牌", bets: "下注", settlement: "結算", commission: "佣金",
    void_reason: "作廢原因", commitment: "承諾", seed: "種子", not_revealed: "本靴結束後公開",
    audit: "帳務稽核", run_audit: "執行稽核", audit_ok: "稽核通過：{rounds} 局（進行中 {in_play} 局），作廢 {voided} 局",
    audit_bad: "發現 {n} 個問題", actor: "操作者", action: "動作", target: "對象", before: "之前",
    after: "之後", all: "全部", done: "完成", need_reason: "每個操作都需要原因", player: "玩家",
    operator: "營運人員", admin: "管理員", house: "莊家（系統）", winner: "勝方", status_settled: "已結算",
    status_voided: "已作廢", status_escrowed: "進行中", here: "本節點", empty: "（無）", back: "返回",
    area_player: "閒", area_banker: "莊", area_tie: "和", area_player_pair: "閒對", area_banker_pair: "莊對",
    phase_waiting: "等待荷官", phase_betting: "下注中", phase_dealing: "發牌", phase_squeeze: "瞇牌",
    phase_result: "結果", phase_shuffling: "洗牌",
    bad_credentials: "帳號、密碼或驗證碼錯誤", code_needed: "請輸入驗證碼", bad_code: "驗證碼錯誤或已過期", code_used: "此驗證碼已用過，請等下一組",
    not_operator: "此帳號不是營運人員", not_admin: "只有管理員可以這麼做", rate_limited: "嘗試太多次，請稍候",
    console_login: "請先登入後台", banned_login: "此帳號已停權：{reason}", bad_reason: "每個操作都需要原因",
    insufficient_coins: "對方星幣不足以扣回", coins_below_stake: "不能扣回對方本局已押在桌上的星幣",
    dealer_cannot_cover: "不能扣回荷官承擔本局下注所需的星幣", bad_amount: "數量必須是非零整數", unknown_user: "找不到此使用者",
    unknown_round: "找不到此牌局", not_seated: "此使用者目前沒有在本節點入座", bad_duration: "禁言時間超出範圍",
    do_grant: "發放", do_set_level: "設定等級", do_set_role: "設定角色", do_mute: "禁言", do_unmute: "解除禁言",
    do_ban: "停權", do_unban: "解除停權", do_stand_up: "請離座位", do_audit: "稽核", do_close_table: "關桌",
    do_open_table: "開桌", do_notice: "公告",
    kind_grant: "發放", kind_escrow: "下注託管", kind_settle: "結算", kind_void: "作廢退回",
    closed: "暫停開放", close_table: "本局後關桌（原因即給玩家的公告）", open_table: "重新開桌",
    elsewhere: "這張桌在節點 {node} 上執行，請到該節點的後台操作", node_console: "開啟該節點的後台", table_suspended: "此桌已暫停", table_open: "此桌是開放的",
    unknown_table: "找不到此牌桌", table_elsewhere: "這張桌在另一個節點執行", table_opening: "還沒有節點執行這張桌，請稍後再試",
    table_notice: "公告給本桌玩家", lobby_notice: "公告給本節點所有玩家", bad_notice: "公告需要中文或英文內容（200 字內）",
    book: "荷官帳本", if_player_wins: "閒贏時荷官", if_banker_wins: "莊贏時荷官",
    voids: "作廢牌局", days: "最近 {n} 天", count: "局數", void_crash: "伺服器當機", void_shutdown: "計畫停機",
    void_settlement_refused: "帳務拒絕結算", void_escrow_refused: "帳務拒絕託管", void_unrecorded: "未記錄原因",
    grants: "待核准", requested_by: "申請人", why: "為何待核准", why_amount: "超過單筆上限", why_self: "發給自己",
    approve: "核准", refuse: "駁回", decided_by: "決定者", decision: "決定原因", grant_waiting: "已送出：等待另一位營運人員核准",
    status_pending: "待核准", status_approved: "已核准", status_refused: "已駁回", user: "使用者",
    console_lock: "後台鎖定", console_locked_note: "驗證碼錯誤太多次，已鎖定後台登入", unlock: "解除後台鎖定",
    outranked: "營運人員只能處理玩家帳號", own_account: "不能對自己的帳號執行此操作，請另一位營運人員處理",
    last_admin: "這是最後一位管理員，請先指派另一位管理員", own_request: "需由另一位營運人員核准，申請人不能自己決定",
    request_decided: "此申請已經決定過了", daily_cap: "已達本日發放上限", unknown_request: "找不到此申請",
    console_locked: "驗證碼錯誤太多次，此帳號的後台登入已鎖定，請管理員解除", bad_status: "狀態不正確",
    do_grant_requested: "申請發放", do_grant_approved: "核准發放", do_grant_refused: "駁回發放", do_unlock: "解除後台鎖定",
    do_console_login: "後台登入", do_console_login_failed: "後台登入失敗", do_totp_enrolled: "綁定驗證器", do_console_locked: "後台鎖定",
    risk: "風險", risk_hedge: "對打", risk_dumping: "籌碼輸送", risk_flagged: "已標記", risk_watch: "觀察",
    risk_pattern: "型態", risk_pair: "帳號組", risk_score: "分數", risk_what: "行為", risk_address: "同一位址",
    risk_same_address: "同一登入位址", risk_rounds: "查看牌局", risk_hedged_of: "{n} 局中 {k} 局對押（{pct}%）",
    risk_flow_to: "{coins} 星幣流向 {name}", risk_flow: "流向 {name}", risk_counts: "已標記：{hedge}、{dumping}",
    risk_hedge_pairs: "對打 {n} 組", risk_dumping_pairs: "籌碼輸送 {n} 組",
    risk_why_hedge: "同桌同局押相反兩門、注額相近：z = {z}（{n} 局共同下注）",
    risk_why_dumping: "兩人彼此押注之間的星幣流向超出公平牌靴可解釋的範圍：z = {z}（{n} 局有往來）；兩人共同下注的牌局中，{from} 自己的輸贏 z = {fz}、{to} 的 z = {tz}。分數取三者中最小的一個。",
    risk_rules: "規則與門檻",
    risk_rule_hedge: "對打：兩人同局押相反兩門（閒對莊）且較小注額至少為較大的 {match}%；共同下注至少 {n} 局、其中至少 {share}% 對押，且對押局數相對於 50% 的 z 值（同一登入位址乘以 {weight}）達 {flag} 即標記。",
    risk_rule_dumping: "籌碼輸送：只算兩人彼此的押注。荷官與閒家之間是閒家的注額乘以結果；兩位閒家只在押相反兩門時有往來，金額為較小的注額。以公平 8 副牌的結果機率計算期望與變異；分數取流向的 |z|、送出者自己輸的 z、收到者自己贏的 z 三者中最小者，旁邊只是碰巧押中的人不會被標記。至少 {n} 局有往來且分數達 {flag} 即標記。",
    bad_days: "天數超出範圍",
    shoes: "牌靴", shoe: "牌靴", shoes_of: "{table} 的牌靴（新的在前）", started: "開始", ended: "結束", end_reason: "結束原因",
    rounds_settled: "已結算局數", shoe_running: "進行中", open_shoe: "查看這一靴", more: "載入更多",
    end_dealt: "發完", end_closed: "牌桌已關閉", end_key_missing: "金鑰遺失，種子無法公開", end_unsealed: "種子封存前開始，種子已遺失",
    end_seal_broken: "封存的種子遭竄改", end_unknown: "原因不明",
    round_no: "第 {n} 局", round_id_is: "牌局 {id}", memo_refused: "{place}：帳務拒絕託管",
    round_search: "依牌桌與時間找牌局", from: "從", to: "到", bettors: "下注人數", stakes: "下注總額",
    bad_since: "時間格式不正確", bad_span: "結束時間必須晚於開始時間", bad_table: "請選擇牌桌", unknown_shoe: "找不到此牌靴",
    bad_cursor: "分頁位置不正確",
  },
  en: {
    title: "Operator console", login: "Log in", logout: "Log out", username: "Username", password: "Password",
    code: "Code (6 digits)", enrol: "First login: scan the QR code with an authenticator app, then enter the code it shows.",
    secret: "Secret", tables: "Tables", users: "Users", records: "Rounds", log: "Operator log",
    table: "Table", room: "Room", phase: "Phase", shoe_round: "Round of shoe", dealer: "Dealer", seats: "Seats",
    watchers: "Watchers", escrow: "In escrow", node: "Node", search: "Search names", find: "Search",
    name: "Name", display_name: "Display name", coins: "Coins", level: "Level", role: "Role", status: "Status",
    banned: "Banned", muted: "Muted until {until}", active: "Active", last_seen: "Last login",
    seat: "Seat", online: "Online", offline: "Offline", sessions: "Devices logged in",
    grant: "Grant or take coins", amount: "Amount (negative takes back)", reason: "Reason",
    set_level: "Set level", mute: "Mute", minutes: "Minutes (0 lifts it)", ban: "Ban", unban: "Lift ban",
    stand_up: "Stand up", set_role: "Set role", apply: "Apply", ledger: "Ledger", rounds: "Rounds",
    kind: "Kind", memo: "Memo", time: "Time", round: "Round", net: "Net", open_round: "Look up a round",
    round_id: "Round id", cards: "Cards", bets: "Bets", settlement: "Settlement", commission: "Commission",
    void_reason: "Void reason", commitment: "Commitment", seed: "Seed", not_revealed: "revealed when the shoe ends",
    audit: "Ledger audit", run_audit: "Run the audit", audit_ok: "Audit clean: {rounds} rounds ({in_play} in play), {voided} voided",
    audit_bad: "{n} problems found", audit_bad_one: "1 problem found", actor: "Actor", action: "Action", target: "Target", before: "Before",
    after: "After", all: "All", done: "Done", need_reason: "Every action needs a reason", player: "Player",
    operator: "Operator", admin: "Admin", house: "House", winner: "Winner", status_settled: "Settled",
    status_voided: "Voided", status_escrowed: "In play", here: "this node", empty: "(none)", back: "Back",
    area_player: "Player", area_banker: "Banker", area_tie: "Tie", area_player_pair: "P Pair", area_banker_pair: "B Pair",
    phase_waiting: "Waiting for a dealer", phase_betting: "Betting", phase_dealing: "Dealing", phase_squeeze: "Squeeze",
    phase_result: "Result", phase_shuffling: "Shuffling",
    bad_credentials: "Wrong username, password or code", code_needed: "Enter the code", bad_code: "Wrong or expired code", code_used: "That code was used already; wait for the next one",
    not_operator: "This account is not an operator", not_admin: "Only an admin may do this", rate_limited: "Too many tries; wait a moment",
    console_login: "Log in to the console", banned_login: "This account is banned: {reason}", bad_reason: "Every action needs a reason",
    insufficient_coins: "The user has too few coins to take back", coins_below_stake: "Coins the user has on the table this round are not taken back",
    dealer_cannot_cover: "Coins the dealer's book needs this round are not taken back", bad_amount: "The amount is a non-zero whole number", unknown_user: "No such user",
    unknown_round: "No such round", not_seated: "The user holds no seat on this node", bad_duration: "The mute is out of range",
    do_grant: "Grant", do_set_level: "Set level", do_set_role: "Set role", do_mute: "Mute", do_unmute: "Unmute",
    do_ban: "Ban", do_unban: "Lift ban", do_stand_up: "Stand up", do_audit: "Audit", do_close_table: "Close table",
    do_open_table: "Reopen table", do_notice: "Notice",
    kind_grant: "Grant", kind_escrow: "Stake in escrow", kind_settle: "Settlement", kind_void: "Void, returned",
    closed: "Closed", close_table: "Close after this round (the reason is the players' notice)", open_table: "Reopen the table",
    elsewhere: "This table runs on node {node}; use that node's console", node_console: "Open that node's console", table_suspended: "The table is closed already", table_open: "The table is open",
    unknown_table: "No such table", table_elsewhere: "The table runs on another node", table_opening: "No node runs this table yet; try again in a moment",
    table_notice: "Notice to this table's players", lobby_notice: "Notice to every player on this node", bad_notice: "A notice needs Chinese or English text (up to 200 characters)",
    book: "The dealer's book", if_player_wins: "Dealer if Player wins", if_banker_wins: "Dealer if Banker wins",
    voids: "Voided rounds", days: "Last {n} days", days_one: "Last day", count: "Rounds", void_crash: "Server crash", void_shutdown: "Planned stop",
    void_settlement_refused: "Ledger refused the payout", void_escrow_refused: "Ledger refused the stakes", void_unrecorded: "Reason not recorded",
    grants: "Approvals", requested_by: "Asked by", why: "Why it waits", why_amount: "Above the bound", why_self: "To oneself",
    approve: "Approve", refuse: "Refuse", decided_by: "Decided by", decision: "Decision", grant_waiting: "Sent: it waits for a second operator's approval",
    status_pending: "Waiting", status_approved: "Approved", status_refused: "Refused", user: "User",
    console_lock: "Console lock", console_locked_note: "Locked out of the console after too many wrong codes", unlock: "Lift the console lock",
    outranked: "An operator acts on players' accounts only", own_account: "Not on your own account; ask another operator",
    last_admin: "This is the last admin; make another admin first", own_request: "A second operator decides, not the one who asked",
    request_decided: "This request was decided already", daily_cap: "Your daily total of grants is reached", unknown_request: "No such request",
    console_locked: "Too many wrong codes locked this account out of the console; an admin can lift it", bad_status: "Bad status",
    do_grant_requested: "Grant asked", do_grant_approved: "Grant approved", do_grant_refused: "Grant refused", do_unlock: "Console unlocked",
    do_console_login: "Console login", do_console_login_failed: "Console login failed", do_totp_enrolled: "Authenticator enrolled", do_console_locked: "Console locked",
    risk: "Risk", risk_hedge: "Hedging (對打)", risk_dumping: "Chip dumping", risk_flagged: "Flagged", risk_watch: "Watch",
    risk_pattern: "Pattern", risk_pair: "Accounts", risk_score: "Score", risk_what: "What they did", risk_address: "One address",
    risk_same_address: "Same login address", risk_rounds: "Rounds", risk_hedged_of: "{k} of {n} rounds hedged ({pct}%)",
    risk_flow_to: "{coins} coins to {name}", risk_flow: "To {name}", risk_counts: "Flagged: {hedge}, {dumping}",
    risk_hedge_pairs: "{n} hedging pairs", risk_hedge_pairs_one: "{n} hedging pair",
    risk_dumping_pairs: "{n} chip dumping pairs", risk_dumping_pairs_one: "{n} chip dumping pair",
    risk_why_hedge: "Opposite sides of one round with matched stakes: z = {z} ({n} rounds both bet)",
    risk_why_hedge_one: "Opposite sides of one round with matched stakes: z = {z} (1 round both bet)",
    risk_why_dumping: "Coins passed between their own stakes beyond what a fair shoe explains: z = {z} ({n} rounds with a flow). Over the rounds both played, {from}'s own results score z = {fz} and {to}'s z = {tz}; the score is the smallest of the three.",
    risk_why_dumping_one: "Coins passed between their own stakes: z = {z} (1 round with a flow). Over the rounds both played, {from}'s own results score z = {fz} and {to}'s z = {tz}; the score is the smallest of the three.",
    risk_rules: "Rules and thresholds",
    risk_rule_hedge: "Hedging: opposite sides of one round (Player against Banker), the smaller stake at least {match}% of the larger; flagged from {n} shared rounds when at least {share}% are hedged and their z-score against 50% (times {weight} from one login address) reaches {flag}.",
    risk_rule_dumping: "Chip dumping: only the two accounts' own stakes against each other count: a bettor's stake against the dealer, or two bettors' opposite stakes up to the smaller one. The coins are weighed against their mean and variance on a fair 8-deck shoe; the score is the smallest of the flow's |z|, how far the sender's own results fell short and how far the receiver's went beyond chance, so a bystander who merely sat on the winning side is not flagged. Flagged from {n} rounds with a flow when the score reaches {flag}.",
    bad_days: "The days are out of range",
    shoes: "Shoes", shoe: "Shoe", shoes_of: "Shoes of {table}, newest first", started: "Started", ended: "Ended", end_reason: "Why it ended",
    rounds_settled: "Rounds settled", shoe_running: "Running", open_shoe: "Open the shoe", more: "More",
    end_dealt: "Dealt out", end_closed: "Table closed", end_key_missing: "Key lost: seed never revealed", end_unsealed: "Begun before sealing: seed lost",
    end_seal_broken: "Sealed seed altered", end_unknown: "Unknown",
    round_no: "Round {n}", round_id_is: "Round {id}", memo_refused: "{place}: stakes refused",
    round_search: "Find rounds by table and time", from: "From", to: "To", bettors: "Bettors", stakes: "Stakes",
    bad_since: "The time is not valid", bad_span: "'To' must be after 'From'", bad_table: "Choose a table", unknown_shoe: "No such shoe",
    bad_cursor: "Bad page position",
  },
};

/** The language, the game's own setting; switching it names the page in that language. */
export function setLang(next) {
  setGameLang(next);
  document.title = `${getLang() === "en" ? "Baccarat" : "百家樂"} ${t("title")}`;
}

const PLURALS = {};

// The key's form for the count `n` among the params: `key_one` for one in English (the
// language's plural rule says which), else the key itself.
function form(key, params) {
  const n = Number(String(params?.n ?? "").replace(/,/g, ""));
  if (params?.n === undefined || !Number.isFinite(n)) return key;
  const lang = getLang() === "en" ? "en" : "zh-TW";
  PLURALS[lang] ??= new Intl.PluralRules(lang);
  const chosen = `${key}_${PLURALS[lang].select(n)}`;
  return WORDS[getLang()][chosen] !== undefined ? chosen : key;
}

/** A word in the current language, {x} filled from params; with a count `n`, its form for
 * that count ("Last day", "Last 7 days"). */
export function t(key, params) {
  const word = form(key, params);
  const text = WORDS[getLang()][word] ?? WORDS["zh-TW"][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (params && k in params ? params[k] : `{${k}}`));
}

/** A refusal in the current language when its code is known, else the server's sentence. */
export function refusal(err) {
  if (err?.code === "banned") return t("banned_login", { reason: err.details?.reason ?? "" });
  return WORDS[getLang()][err?.code] ? t(err.code, err.details) : err?.message || err?.code || "?";
}

const DATES = {};

/** A time as the operator reads it: local date and time to the second, the month named in
 * the page's language (never a day-first or month-first row of numbers to misread). */
export function when(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  const lang = getLang() === "en" ? "en-US" : "zh-TW";
  DATES[lang] ??= new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "medium", hourCycle: "h23" });
  return DATES[lang].format(new Date(seconds * 1000));
}
