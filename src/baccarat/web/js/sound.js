// Sound effects made with the Web Audio API (oscillators only, no audio files).

const KEY = "baccarat.muted";
let ctx = null;
let muted = localStorage.getItem(KEY) === "1";
// Browsers let a page make sound only after the person has touched it; until then stay quiet
// rather than create an audio context that would be refused.
let touched = false;
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => { touched = true; }, { once: true, capture: true });
}

function audio() {
  if (muted || !touched) return null;
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

function tone(freq, start, dur, { type = "sine", gain = 0.12, slide = 0 } = {}) {
  const a = audio();
  if (!a) return;
  const t0 = a.currentTime + start;
  const osc = a.createOscillator();
  const g = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

const EFFECTS = {
  chip: () => { tone(2200, 0, 0.05, { type: "triangle", gain: 0.08 }); tone(3100, 0.03, 0.05, { type: "triangle", gain: 0.05 }); },
  card: () => tone(900, 0, 0.08, { type: "triangle", gain: 0.05, slide: 0.5 }),
  flip: () => { tone(600, 0, 0.07, { type: "square", gain: 0.03, slide: 1.8 }); },
  refuse: () => { tone(220, 0, 0.12, { type: "sawtooth", gain: 0.05 }); tone(180, 0.1, 0.16, { type: "sawtooth", gain: 0.05 }); },
  urge: () => { tone(880, 0, 0.12, { gain: 0.12 }); tone(1175, 0.14, 0.12, { gain: 0.12 }); tone(880, 0.28, 0.18, { gain: 0.1 }); },
  win: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.09, 0.22, { type: "triangle", gain: 0.09 })),
  lose: () => tone(300, 0, 0.35, { type: "sine", gain: 0.06, slide: 0.6 }),
  tick: () => tone(1500, 0, 0.03, { type: "square", gain: 0.02 }),
  open: () => tone(440, 0, 0.15, { type: "triangle", gain: 0.06, slide: 2 }),
};

/** Play a named effect (chip, card, flip, refuse, urge, win, lose, tick, open). */
export function play(name) {
  try {
    EFFECTS[name]?.();
  } catch {
    // Sound is a garnish: a browser that refuses audio must not break the table.
  }
}

/** Whether sound is muted. */
export function isMuted() {
  return muted;
}

/** Mute or unmute, remembered across visits. */
export function setMuted(value) {
  muted = Boolean(value);
  localStorage.setItem(KEY, muted ? "1" : "0");
}
