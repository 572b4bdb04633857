// What the client holds: one object every module reads and writes, the server's clock as far
// as we can tell, and the constants of the protocol.

export const $ = (id) => document.getElementById(id);

export const LEVELS = ["easy", "normal", "champion"];
// How a table's matches may be played (`set_match`, `play_house`): the values the server reads.
export const CLOCKS = [
  ["none", "No clock"],
  ["60s", "1 min a move"],
  ["5m", "5 min a move"],
  ["1h", "1 hour a move"],
  ["1d", "1 day a move"],
  ["3+2", "3 + 2"],
  ["5+0", "5 + 0"],
  ["10+5", "10 + 5"],
];
export const BEST_OF = [1, 3, 5, 7];
// Table events: each carries the table's version after it.
export const VERSIONED = ["table", "game_started", "game_state", "berserk", "game_over", "match_state", "match_over"];
export const LOUNGE = "surulere-games-lounge";

export const state = {
  token: localStorage.getItem("lounge.token"),
  refresh: localStorage.getItem("lounge.refresh"),
  refreshTimer: null,
  retryTimer: null,    // the next reconnection, while the socket is down
  user: JSON.parse(localStorage.getItem("lounge.user") || "null"),
  ws: null,
  room: null,          // {id, name, kind, owner}
  rooms: [],           // the hotel's public rooms (GET /rooms), for the menu
  occupants: new Map(), // id -> user
  tables: new Map(),   // id -> table view
  away: new Map(),     // user id -> {table, seat, user, until}: players out, in their grace
  watching: null,      // table id shown on the board
  animation: null,     // {skip, then} while sowing is shown
  ref: 0,
  retries: 0,
  entering: null,      // the room an `enter` was sent for, until the room or a refusal answers
  enterTries: 0,       // `enter`s tried again after `unavailable` (a room between servers)
  enterTimer: null,    // the next of those tries
  closing: false,      // told `server_closing`: the close that follows is no failure
  replaced: false,
  moving: false,       // a move sent, its answer not yet here
  sent: null,          // that move: {table, game, pit, version}
  pending: null,       // a move sent as the socket went down, unanswered: sent again if it did not arrive
  online: false,       // in a room on an open socket (the room's snapshot came)
  offlineAt: 0,        // the server's time (as far as we can tell) when the socket went down
  retryAt: 0,          // when the next reconnection is tried (local ms), while offline
  choices: {},         // table id -> {level, invitee, clock, best_of, unsent}: kept across redraws
  offsets: [],         // recent (server_time - local time) samples
  offset: 0,           // the server's clock minus ours: the largest recent sample (the least delayed)
  lastRoom: localStorage.getItem("lounge.room") || LOUNGE,
  blocked: new Set(),  // user ids this guest blocks (civility)
  following: new Set(),  // user ids this guest follows (friends.js)
  met: new Map(),      // user id -> user: people seen in a room this visit, to invite home
  invitations: new Map(), // invitation id -> {expires_at (server ms), element}
  calls: new Map(), // table id -> {until (server ms), left}: a seat the queue called us to
  seek: null,          // waiting in the room's pool: {family, clock, rated, since, word} (seek.js)
  seekCounts: [],      // how many wait in the room's pool, kind by kind (`seeks`)
  pairing: null,       // a pairing offered: {id, until, accepted, opponent, left}
  tournaments: new Map(), // the room's arena tournaments: id -> view (arena.js)
  home: null,          // in an apartment: {room, owner, things} (GET /apartments/{room})
  wallRules: null,     // what makes a win count (GET /champions/rules)
};

/// The server's clock now, in milliseconds since 1970, as far as we can tell.
export function serverNow() {
  return Date.now() + state.offset;
}

/// A server time seen in a message: the clock offset is the largest of the recent samples
/// (a message only ever arrives later than it was sent, never earlier).
export function noteServerTime(serverTime) {
  if (typeof serverTime !== "number") return;
  state.offsets.push(serverTime - Date.now());
  if (state.offsets.length > 16) state.offsets.shift();
  state.offset = Math.max(...state.offsets);
}

/// A server time (ms) as the guest's clock shows it.
export function timeOf(ms) {
  return new Date(ms - state.offset).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/// "2:45" to a server deadline, in whole seconds.
export function countdown(deadlineMs) {
  const total = Math.ceil(Math.max(0, deadlineMs - serverNow()) / 1000);
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/// A random key for a request (`Idempotency-Key`): `crypto.getRandomValues` works on every
/// origin, unlike `crypto.randomUUID`, which a page served over plain http at a LAN address
/// (the hotel's network) does not have.
export function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/// The viewer's seat: in the game on the table (its players stay after they stand up), or
/// at the table.
export function mySeat(table) {
  const players = table.game && table.game.players;
  if (players) {
    if (players.south.id === state.user.id) return "south";
    if (players.north.id === state.user.id) return "north";
    if (table.game.state.status === "playing") return null;
  }
  return seatAt(table);
}

/// Where the viewer sits at the table now (nowhere once a game is over and they stood up).
export function seatAt(table) {
  if (table.seats.south && table.seats.south.id === state.user.id) return "south";
  if (table.seats.north && table.seats.north.id === state.user.id) return "north";
  return null;
}

/// A match at the table not over yet (a game of it in play, or the next one awaited).
export function matchInPlay(table) {
  return !!(table.match && table.match.status !== "over");
}
