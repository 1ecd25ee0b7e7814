// The client's words in zh-TW (default) and English; the language is remembered.

const STRINGS = {
  "zh-TW": {
    title: "百家樂",
    banker: "莊", player: "閒", tie: "和", banker_pair: "莊對", player_pair: "閒對",
    dealer: "荷官", bet: "押注", chip: "籌碼", coins: "星幣", squeeze: "瞇牌", open: "開牌",
    urge: "催促", clear: "清除", rebet: "重複", double: "加倍", undo: "撤銷", sit: "入座", stand: "離座", watch: "觀戰", lobby: "大廳",
    round: "局", shoe: "牌靴", shuffle: "洗牌", level: "等級", countdown: "倒數",
    bead_plate: "珠盤路", big_road: "大路", big_eye_boy: "大眼仔", small_road: "小路",
    cockroach_pig: "曱甴路", ask_banker: "莊問路", ask_player: "閒問路",
    phase_waiting: "等待荷官", phase_waiting_bettor: "等待閒家入座", phase_betting: "請下注",
    phase_dealing: "發牌", phase_squeeze: "瞇牌", phase_result: "結算", phase_shuffling: "洗牌",
    next_round: "下一局開始可下注", squeezing: "{name} 瞇牌中", your_squeeze: "輪到您瞇牌：拖動牌角或牌邊",
    time_up_opened: "時間到，自動開牌", reveal_points: "{hand} {n} 點",
    login: "登入", register: "註冊", logout: "登出", username: "帳號", password: "密碼",
    welcome: "歡迎來到百家樂", login_hint: "等級 50 以上方可進入百家樂房間",
    no_account: "還沒有帳號？", have_account: "已有帳號？",
    display_name: "暱稱", display_name_hint: "選填，預設為帳號",
    min_level: "最低等級 {n}", chip_unit: "1 籌碼 = {n} 星幣", bettor_floor: "閒家門檻 {n}",
    dealer_floor: "荷官門檻 {n}", tables: "牌桌", table: "桌", seats_free: "空位 {n}/7",
    round_of: "第 {n}/78 局", sit_dealer: "坐荷官位", empty_seat: "空位", free: "空",
    me: "我", offline: "連線中斷，正在重新連線…", reconnected: "已重新連線",
    opening_wait: "本桌正在另一台伺服器上開啟，請稍候…",
    limits_left: "剩餘上限", limit: "上限", total: "合計", exposure: "荷官盈虧",
    if_player: "閒贏", if_banker: "莊贏", if_tie: "和局", book: "帳本",
    dealer_coins: "荷官星幣", floor: "門檻", urge_sent: "已催促未下注的閒家",
    urged: "荷官催促您下注！", commission: "佣金 {n}", commission_short: "佣金 {n}", result_win: "{hand} 贏",
    result_tie: "和局", points: "{n} 點", commitment: "承諾", seed: "種子", fairness: "公平性", close: "關閉",
    fairness_explain: "每一靴牌在第一局之前，先公開其秘密種子的雜湊值作為承諾；本靴結束後公開種子，任何人都能驗證種子與承諾相符，並重算整靴的牌序。",
    verify: "驗證", verify_ok: "相符：種子的雜湊值等於承諾", verify_bad: "不相符！",
    verify_cmd: "以命令列重算整靴牌序：", copy: "複製", copied: "已複製",
    shoe_ended: "本靴結束，種子已公開", counts: "統計", rounds: "局數",
    stand_confirm: "離座", watching: "觀戰中", seat_n: "{n} 號位", empty_dealer: "荷官位空缺",
    not_enough_level: "等級不足", level_needed: "需要等級 {n}", lv: "{n} 級", phase_closed: "停止下注",
    need_username: "請輸入帳號", need_password: "請輸入密碼", coins_n: "{n} 星幣", enter: "進入", tap_chip: "選擇籌碼後點擊下注區",
    sound_on: "音效開", sound_off: "音效關", no_tables: "目前沒有牌桌",
    all_rooms: "全部", page_of: "第 {n} / {m} 頁", prev_page: "上一頁", next_page: "下一頁",
    bet_total: "本局押注", waiting_next: "等待下一局", your_turn_bet: "請下注",
    dealer_view: "荷官視角", net: "淨額", you: "您", round_voided: "本局作廢，星幣未變動",
    closing_notice: "伺服器即將重啟：本局照常結算，之後本桌移往另一台伺服器，座位為您保留",
    leaving_after_round: "本局後離座", you_leave_after_round: "您將於本局結算後離開荷官位",
    dealer_leaves_after_round: "荷官將於本局結算後離座",
    dealer_queue: "上莊排隊", join_queue: "排隊上莊", leave_queue: "取消排隊", queue_pos: "您排第 {n} 位",
    queue_empty: "無人排隊", dealer_streak: "連莊 {n}/{max}", dealer_limit_hint: "有人排隊時，連莊達上限後換人上莊",
    dealer_streak_free: "連莊 {n}", dealer_free_hint: "無人排隊時可一直連莊；有人排隊時，連莊 {max} 局後換人",
    chat: "聊天", send: "送出", chat_placeholder: "說點什麼…（最多 120 字）", chat_seated_only: "入座後可以聊天；觀戰者可閱讀",
    mute_user: "將 {name} 靜音", muted_user: "已將 {name} 靜音", unmute_user: "取消靜音 {name}",
    emote_clap: "鼓掌", emote_laugh: "大笑", emote_cry: "哭", emote_angry: "生氣", emote_thumbs_up: "讚",
    emote_fire: "火", emote_lucky: "好運", emote_wow: "哇",
    good_roads: "好路", good_roads_filter: "好路篩選", all_tables: "全部", any_good_road: "任何好路",
    no_tables_filtered: "目前沒有符合的好路牌桌", stats: "統計", last_shoe: "上一靴", this_shoe: "本靴",
    no_last_shoe: "還沒有上一靴", naturals: "天牌", longest_runs: "最長連",
    gr_long_banker: "長莊", gr_long_player: "長閒", gr_ping_pong: "單跳", gr_double_jump: "雙跳",
    gr_one_room_two_halls: "一房兩廳", gr_banker_jumps: "逢莊跳", gr_player_jumps: "逢閒跳",
    gr_banker_streaks: "逢莊連", gr_player_streaks: "逢閒連",
    gr_def_long_banker: "莊連開 4 把以上", gr_def_long_player: "閒連開 4 把以上", gr_def_ping_pong: "最近 4 行各只開 1 把",
    gr_def_double_jump: "最近 3 行各開 2 把", gr_def_one_room_two_halls: "一邊開 1 把、另一邊開 2 把，輪流 4 行以上",
    gr_def_banker_jumps: "最近 3 次莊都只開 1 把", gr_def_player_jumps: "最近 3 次閒都只開 1 把",
    gr_def_banker_streaks: "最近 3 行莊都連開 2 把以上", gr_def_player_streaks: "最近 3 行閒都連開 2 把以上",
    auto_open: "自動開牌", auto_open_hint: "您控制的牌立即翻開，不瞇牌（記在帳號上）", auto_opened: "自動開牌",
    my_bets: "投注紀錄", back: "返回", load_more: "載入更多", no_rounds_yet: "還沒有牌局紀錄",
    seed_after_shoe: "本靴結束後公開種子，可驗證整靴牌序",
    bets_uncovered: "荷官星幣不足以承擔全部下注：您最後下的注已部分或全部退回",
    table_shoes: "本桌牌靴紀錄", verify_shoe: "驗證整靴", verify_page: "驗證頁", shoe_running: "進行中，結束後可驗證",
    checking: "驗證中…", shoe_cards_ok: "種子與牌靴紀錄的承諾相符，{n} 局共 {c} 張牌都與種子重算的牌序一致",
    shoe_cards_bad: "有 {n} 局的牌與種子重算的牌序不符！", status_escrowed: "進行中", status_voided: "作廢，星幣退回",
    total_day: "今日", total_session: "本次", rounds_n: "{n} 局", round_no: "第 {n} 局", bettor: "投注者",
    account_closed: "此帳號已被管理員停權",
    table_suspended_notice: "本桌本局結束後暫停：{notice}", table_resumed_notice: "本桌已重新開放",
    table_closed_notice: "本桌暫停開放：{notice}", phase_suspended: "暫停開放",
    // The whole-shoe check (fair.js's skipWords and problemWords, shoecheck.js).
    skip_one: "第 {at} 張未發出", skip_many: "第 {at} 張未發出",
    skip_voided_one: "（第 {r} 局作廢）", skip_voided_many: "（第 {r} 局作廢）",
    skip_unvoided: "，之前卻沒有作廢的局！", skip_too_many: "，超過作廢的局最多能用掉的 {max} 張！",
    list_sep: "、", list_and: "、", clause_sep: "；", voided_short: "作廢",
    misplaced: "紀錄說第 {n} 局從第 {at} 張開始，但它的牌從第 {found} 張起才相符！",
    overlap: "紀錄說第 {n} 局從第 {at} 張開始，但之前的局已發到第 {last} 張！",
    // What this page saw of a shoe's commitment (seen.js), against the revealed seed.
    memory_matches: "與本頁在 {time} 看到的承諾相符",
    memory_mismatch: "與本頁在 {time} 看到的承諾不符！這個種子不是本靴開始時承諾的那一個",
    memory_never: "本頁在這一靴結束前沒看過它（只能比對牌靴紀錄的承諾）",
    memory_no_memory: "這個瀏覽器不讓本頁保存資料（例如無痕模式）：本頁沒有記憶，只能比對牌靴紀錄的承諾",
    memory_conflict: "伺服器在 {time} 又給了本頁這一靴另一個承諾！",
    memory_saw: "本頁看到的承諾", memory_noted: "本頁已於 {time} 記下這個承諾，本靴結束時用它驗證種子",
    memory_none: "這個瀏覽器不讓本頁保存資料（例如無痕模式）：本頁沒有記憶，記不住這個承諾",
    memory_alarm_toast: "公開的種子與本頁在牌靴開始時看到的承諾不符！請打開「公平性」查看",
  },
  en: {
    title: "Baccarat",
    banker: "Banker", player: "Player", tie: "Tie", banker_pair: "B Pair", player_pair: "P Pair",
    dealer: "Dealer", bet: "Bet", chip: "Chip", coins: "Coins", squeeze: "Squeeze", open: "Open",
    urge: "Urge", clear: "Clear", rebet: "Rebet", double: "Double", undo: "Undo", sit: "Sit", stand: "Stand up", watch: "Watch", lobby: "Lobby",
    round: "Round", shoe: "Shoe", shuffle: "Shuffle", level: "Level", countdown: "Countdown",
    bead_plate: "Bead Plate", big_road: "Big Road", big_eye_boy: "Big Eye Boy",
    small_road: "Small Road", cockroach_pig: "Cockroach Pig", ask_banker: "Ask Banker",
    ask_player: "Ask Player",
    phase_waiting: "Waiting for a dealer", phase_waiting_bettor: "Waiting for bettors",
    phase_betting: "Place your bets", phase_dealing: "Dealing", phase_squeeze: "Squeeze",
    phase_result: "Settling", phase_shuffling: "Shuffling",
    next_round: "You can bet from the next round", squeezing: "{name} is squeezing",
    your_squeeze: "Your squeeze: drag a corner or a side",
    time_up_opened: "Time's up — opened automatically", reveal_points: "{hand} {n}",
    login: "Log in", register: "Register", logout: "Log out", username: "Name", password: "Password",
    welcome: "Welcome to Baccarat", login_hint: "Baccarat rooms are open from level 50",
    no_account: "No account yet?", have_account: "Have an account?",
    display_name: "Display name", display_name_hint: "Optional; your name if empty",
    min_level: "Level {n}+", chip_unit: "1 chip = {n} coins", bettor_floor: "Bettor floor {n}",
    dealer_floor: "Dealer floor {n}", tables: "Tables", table: "Table", seats_free: "{n}/7 free",
    round_of: "Round {n}/78", sit_dealer: "Take dealer seat", empty_seat: "Free seat", free: "free",
    me: "Me", offline: "Connection lost, reconnecting…", reconnected: "Reconnected",
    opening_wait: "The table is opening on another server; one moment…",
    limits_left: "Left", limit: "Limit", total: "Total", exposure: "Dealer result",
    if_player: "Player wins", if_banker: "Banker wins", if_tie: "Tie", book: "Book",
    dealer_coins: "Dealer coins", floor: "floor", urge_sent: "Bettors without a bet were urged",
    urged: "The dealer urges you to bet!", commission: "commission {n}", commission_short: "fee {n}", result_win: "{hand} wins",
    result_tie: "Tie", points: "{n} pts", commitment: "Commitment", seed: "Seed", fairness: "Fairness", close: "Close",
    fairness_explain: "Before a shoe's first round the table publishes the SHA-256 of the shoe's secret seed as its commitment; when the shoe ends the seed is revealed, so anyone can check that it matches the commitment and recompute every card of the shoe.",
    verify: "Verify", verify_ok: "Match: SHA-256 of the seed equals the commitment",
    verify_bad: "Mismatch!", verify_cmd: "Recompute the whole shoe on the command line:",
    copy: "Copy", copied: "Copied", shoe_ended: "Shoe ended: the seed is revealed",
    counts: "Counts", rounds: "Rounds", stand_confirm: "Stand up", watching: "Watching",
    seat_n: "Seat {n}", empty_dealer: "Dealer seat free", not_enough_level: "Level too low",
    level_needed: "Level {n} needed", lv: "Lv {n}", phase_closed: "Bets closed",
    need_username: "Enter your name", need_password: "Enter your password", coins_n: "{n} coins",
    enter: "Enter", tap_chip: "Pick a chip, then tap an area", sound_on: "Sound on",
    sound_off: "Sound off", no_tables: "No tables yet", bet_total: "Your bets",
    all_rooms: "All rooms", page_of: "Page {n} of {m}", prev_page: "Previous page", next_page: "Next page",
    waiting_next: "Waiting for next round", your_turn_bet: "Place your bets",
    dealer_view: "Dealer view", net: "Net", you: "You", round_voided: "This round was voided; no coin moved",
    closing_notice: "The server is restarting: this round settles as usual, then the table moves to another server with your seat kept",
    leaving_after_round: "Leaves after this round", you_leave_after_round: "You leave the dealer seat once this round settles",
    dealer_leaves_after_round: "The dealer leaves once this round settles",
    dealer_queue: "Dealer queue", join_queue: "Queue to deal", leave_queue: "Leave queue", queue_pos: "You are #{n}",
    queue_empty: "Nobody waiting", dealer_streak: "Dealt {n}/{max}", dealer_limit_hint: "With someone waiting, the dealer changes after this many rounds in a row",
    dealer_streak_free: "Dealt {n} in a row", dealer_free_hint: "With nobody waiting the dealer may go on; with someone waiting, the dealer changes after {max} rounds in a row",
    chat: "Chat", send: "Send", chat_placeholder: "Say something… (up to 120)",
    chat_seated_only: "Take a seat to chat; watchers can read", mute_user: "Mute {name}", muted_user: "{name} is muted",
    unmute_user: "Unmute {name}", emote_clap: "Clap", emote_laugh: "Laugh", emote_cry: "Cry", emote_angry: "Angry",
    emote_thumbs_up: "Thumbs up", emote_fire: "Fire", emote_lucky: "Good luck", emote_wow: "Wow",
    good_roads: "Good roads", good_roads_filter: "Good roads", all_tables: "All", any_good_road: "Any good road",
    no_tables_filtered: "No table has that road now", stats: "Stats", last_shoe: "Last shoe", this_shoe: "This shoe",
    no_last_shoe: "No earlier shoe yet", naturals: "Naturals", longest_runs: "Longest runs",
    gr_long_banker: "Long Banker", gr_long_player: "Long Player", gr_ping_pong: "Ping-pong", gr_double_jump: "Double jump",
    gr_one_room_two_halls: "One room two halls", gr_banker_jumps: "Banker jumps", gr_player_jumps: "Player jumps",
    gr_banker_streaks: "Banker streaks", gr_player_streaks: "Player streaks",
    gr_def_long_banker: "Banker 4 or more in a row", gr_def_long_player: "Player 4 or more in a row",
    gr_def_ping_pong: "The last 4 columns are 1 long each", gr_def_double_jump: "The last 3 columns are 2 long each",
    gr_def_one_room_two_halls: "One side wins once, the other twice, in turn for 4 columns",
    gr_def_banker_jumps: "Banker's last 3 runs are 1 long each", gr_def_player_jumps: "Player's last 3 runs are 1 long each",
    gr_def_banker_streaks: "Banker's last 3 finished runs are 2 or longer", gr_def_player_streaks: "Player's last 3 finished runs are 2 or longer",
    auto_open: "Auto open", auto_open_hint: "Cards you control open at once, no squeeze (kept for your account)",
    auto_opened: "Auto open",
    my_bets: "My bets", back: "Back", load_more: "Load more", no_rounds_yet: "No rounds yet",
    seed_after_shoe: "The seed is revealed when the shoe ends, to verify every card",
    bets_uncovered: "The dealer could not cover every bet: your latest bet came back, in part or whole",
    table_shoes: "This table's shoes", verify_shoe: "Verify the shoe", verify_page: "Verifier page",
    shoe_running: "In play: verifiable once it ends", checking: "Checking…",
    shoe_cards_ok: "The seed matches the archive's commitment, and all {n} rounds' {c} cards match the order rebuilt from it",
    shoe_cards_bad: "{n} rounds' cards do not match the order rebuilt from the seed!", status_escrowed: "In play",
    status_voided: "Voided, stakes returned", total_day: "Today", total_session: "Session", rounds_n: "{n} rounds",
    round_no: "Round {n}", bettor: "Bettor",
    account_closed: "An operator closed this account",
    table_suspended_notice: "This table closes after this round: {notice}", table_resumed_notice: "This table is open again",
    table_closed_notice: "This table is closed: {notice}", phase_suspended: "Closed",
    skip_one: "position {at} skipped", skip_many: "positions {at} skipped",
    skip_voided_one: " (round {r} was voided)", skip_voided_many: " (rounds {r} were voided)",
    skip_unvoided: ", yet no round before it was voided!",
    skip_too_many: ", more than the {max} cards the voided rounds could have taken!",
    list_sep: ", ", list_and: " and ", clause_sep: "; ", voided_short: "voided",
    misplaced: "The archive starts round {n} at position {at}, but its cards match from position {found}!",
    overlap: "The archive starts round {n} at position {at}, but earlier rounds had dealt up to position {last}!",
    memory_matches: "Matches the commitment this page saw at {time}",
    memory_mismatch: "DOES NOT MATCH the commitment this page saw at {time}! This is not the seed the shoe was committed to when it started",
    memory_never: "This page never saw this shoe before it ended (only the archive's commitment could be checked)",
    memory_no_memory: "This browser lets the page keep no memory (private browsing?): only the archive's commitment could be checked",
    memory_conflict: "At {time} the server showed this page another commitment for this shoe!",
    memory_saw: "The commitment this page saw",
    memory_noted: "This page noted this commitment at {time}, to check the seed against when the shoe ends",
    memory_none: "This browser lets the page keep no memory (private browsing?): it cannot remember this commitment",
    memory_alarm_toast: "A revealed seed DOES NOT MATCH the commitment this page saw when its shoe started! Open Fairness to see it",
  },
};

// Refusals by their stable code; {x} are filled from the error's details.
const ERRORS = {
  "zh-TW": {
    over_limit: "{area} 上限 {limit_coins} 星幣",
    player_banker_exclusive: "同一局不能同時押莊和閒",
    insufficient_coins: "星幣不足",
    betting_closed: "已停止下注",
    not_betting: "現在不能下注",
    dealer_cannot_bet: "荷官不能下注",
    not_seated: "請先入座",
    seat_taken: "此座位已有人",
    table_closing: "本桌正移往另一台伺服器，請稍後再入座",
    table_opening: "本桌正在開啟，請稍後再試",
    already_seated: "您已在其他座位",
    level_too_low: "需要等級 {min_level}，才能進入此房間",
    below_floor: "星幣低於入座門檻",
    below_bettor_floor: "星幣低於閒家門檻",
    below_dealer_floor: "星幣低於荷官門檻",
    urge_cooldown: "催促冷卻中",
    not_dealer: "只有荷官可以催促",
    not_controller: "這張牌不是由您瞇牌",
    bad_credentials: "帳號或密碼錯誤",
    name_taken: "此帳號已被使用",
    registration_closed: "目前不開放註冊",
    not_logged_in: "請先登入",
    unknown_table: "找不到此牌桌",
    rate_limited: "操作太頻繁，請稍候",
    nothing_to_clear: "沒有可清除的押注",
    urge_cooling_down: "催促冷卻中",
    coins_below_floor: "此座位需要 {floor} 星幣，您有 {coins}",
    not_in_round: "您在本局中途入座，下一局開始可下注",
    no_bets: "沒有可清除的押注",
    dealer_cannot_cover: "荷官星幣不足以承擔更多押注（需要 {liability}，荷官有 {dealer_coins}）",
    round_in_play: "牌局進行中，請於本局結束後再換座",
    already_leaving: "您已申請離座，本局結算後離開",
    nothing_to_rebet: "沒有上一局的押注可重複",
    muted: "您已被管理員禁言，還有 {minutes} 分鐘", table_suspended: "本桌暫停開放：{notice}", banned: "此帳號已停權：{reason}",
    chat_rate_limited: "訊息太頻繁，請稍候", message_too_long: "訊息最多 120 字", empty_message: "訊息是空的",
    bad_text: "訊息含有不允許的控制字元", unknown_emote: "沒有這個表情",
    already_queued: "您已在上莊排隊中", not_queued: "您不在排隊名單中", queue_full: "排隊人數已滿",
    dealer_queue: "已有人排隊上莊，請先排隊", already_dealer: "您已是荷官", not_watching: "請先進入牌桌",
    already_bet: "已有押注；請先清除再重複",
    nothing_to_squeeze: "目前沒有可瞇的牌",
    already_seated_elsewhere: "您已在其他牌桌入座",
    coins_in_play: "您在 {table_id} 的押注仍在進行中，該局結算後才能入座",
    player_and_banker: "同一局不能同時押莊和閒",
    wrong_phase: "現在不能這樣做",
    offline: "連線中斷",
    bad_username: "帳號請用 1–32 個英文字母、數字、_ . -",
    bad_password: "密碼至少 6 個字元",
    bad_display_name: "暱稱需 1–32 個字，不可含控制字元、隱形字元、方向控制字元或 < >",
    display_name_taken: "此暱稱已被使用，請換一個",
    bad_origin: "請從本站的頁面登入",
    unsupported_media_type: "請從本站的頁面登入",
    server_busy: "伺服器忙碌中，請稍候幾秒再試",
  },
  en: {
    over_limit: "{area} limit is {limit_coins} coins",
    player_banker_exclusive: "Player and Banker cannot both be bet in one round",
    insufficient_coins: "Not enough coins",
    betting_closed: "Betting is closed",
    not_betting: "Betting is not open",
    dealer_cannot_bet: "The dealer cannot bet",
    not_seated: "Take a seat first",
    seat_taken: "That seat is taken",
    table_closing: "This table is moving to another server; sit again in a moment",
    table_opening: "This table is opening; try again in a moment",
    already_seated: "You already hold a seat",
    level_too_low: "Level {min_level} needed to enter this room",
    below_floor: "Your coins are below the seat's floor",
    below_bettor_floor: "Your coins are below the bettor floor",
    below_dealer_floor: "Your coins are below the dealer floor",
    urge_cooldown: "Urge is cooling down",
    not_dealer: "Only the dealer can urge",
    not_controller: "You do not control this card",
    bad_credentials: "Wrong name or password",
    name_taken: "That name is taken",
    registration_closed: "Registration is closed",
    not_logged_in: "Please log in",
    unknown_table: "No such table",
    rate_limited: "Too fast, wait a moment",
    nothing_to_clear: "No bets to clear",
    urge_cooling_down: "Urge is cooling down",
    coins_below_floor: "This seat needs {floor} coins; you have {coins}",
    not_in_round: "You sat down during this round; bet from the next one",
    no_bets: "No bets to clear",
    dealer_cannot_cover: "The dealer cannot cover more bets (needs {liability}, has {dealer_coins})",
    round_in_play: "A round is in play; change seats after it",
    already_leaving: "You already leave once this round settles",
    nothing_to_rebet: "No earlier bets to repeat",
    muted: "An operator muted you; {minutes} more minutes", table_suspended: "This table is closed: {notice}", banned: "This account is banned: {reason}",
    chat_rate_limited: "Too many messages; wait a moment", message_too_long: "A message is at most 120 characters",
    empty_message: "The message is empty", bad_text: "The message holds a control character", unknown_emote: "No such emote",
    already_queued: "You are in the dealer queue already", not_queued: "You are not in the dealer queue",
    queue_full: "The dealer queue is full", dealer_queue: "Others wait for the dealer seat; join the queue",
    already_dealer: "You are the dealer already", not_watching: "Enter a table first",
    already_bet: "You have bets already; clear them to rebet",
    nothing_to_squeeze: "No card to squeeze now",
    already_seated_elsewhere: "You already sit at another table",
    coins_in_play: "Your bets at {table_id} are still in play; sit down once that round settles",
    player_and_banker: "Player and Banker cannot both be bet in one round",
    wrong_phase: "Not now",
    offline: "Connection lost",
    bad_username: "A name is 1-32 letters A-Z, digits, _ . or -",
    bad_password: "A password has at least 6 characters",
    bad_display_name: "A display name is 1-32 characters, without control, invisible or direction characters or < >",
    display_name_taken: "That display name is taken; pick another",
    bad_origin: "Log in from this site's own page",
    unsupported_media_type: "Log in from this site's own page",
    server_busy: "The server is busy; try again in a few seconds",
  },
};

const KEY = "baccarat.lang";
let lang = localStorage.getItem(KEY) === "en" ? "en" : "zh-TW";
const listeners = new Set();

/** The current language: "zh-TW" or "en". */
export function getLang() {
  return lang;
}

/** Switch language, remember it and tell every listener. */
export function setLang(next) {
  lang = next === "en" ? "en" : "zh-TW";
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang === "en" ? "en" : "zh-Hant";
  for (const fn of listeners) fn(lang);
}

/** Call fn whenever the language changes. */
export function onLang(fn) {
  listeners.add(fn);
}

function fmtNumber(n) {
  return Number(n).toLocaleString("en-US");
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (_, k) => (params && k in params ? params[k] : `{${k}}`));
}

/** A word or sentence in the current language. */
export function t(key, params) {
  const text = STRINGS[lang][key] ?? STRINGS["zh-TW"][key] ?? key;
  return fill(text, params);
}

/** A room's or a table's name in the current language ({name, names} from the lobby). */
export function named(thing, fallback = "") {
  return thing?.names?.[lang] ?? thing?.name ?? fallback;
}

/** A refusal in the user's language when the code is known, else the server's sentence. */
export function errorText(err, context) {
  const code = err?.code;
  const known = ERRORS[lang][code];
  if (!known) return err?.message || code || "?";
  const details = { ...(context || {}), ...(err.details || {}) };
  // A limit in chips is said in coins, the one unit the screens show for money.
  if (typeof details.limit === "number" && details.unit) details.limit_coins = fmtNumber(details.limit * details.unit);
  for (const [k, v] of Object.entries(details)) if (typeof v === "number") details[k] = fmtNumber(v);
  if (details.area) details.area = t(details.area);
  const missing = [...known.matchAll(/\{(\w+)\}/g)].some((m) => !(m[1] in details));
  if (missing) return err.message || fill(known, details);
  return fill(known, details);
}
