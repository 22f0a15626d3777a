// {{name}}: a bali-arena bot in JavaScript (Node), with zeromq and @msgpack/msgpack (protocol/PROTOCOL.md of
// bali-arena). Write your logic in strategy(); the rest speaks the protocol and need not change.
"use strict";

const zmq = require("zeromq");
const { encode, decode } = require("@msgpack/msgpack");

const NAME = "{{name}}";
const BOT_VERSION = "0.1";
const PROTOCOL_VERSION = 1;

// Return the index of the option to play (0 <= index < options.length).
//   view      everything your seat may know now: view.game ("bali-2001" or "bali-2017"), view.seat,
//             view.hand (your cards) and more; each game's README lists every field
//   options   the legal choices, each an object; option 0 is always the safe default (pass, decline, keep)
//   decision  what is being decided: decision.kind (the game's README lists the kinds)
//   rng       a function returning a number in [0, 1), seeded by the arena for this game
function strategy(view, options, decision, rng) {
  if (options.length === 1) return 0;
  const hand = view.hand || [];
  // Example logic: with a big hand, play anything but the default; otherwise pick at random.
  if (hand.length >= 5) return 1 + Math.floor(rng() * (options.length - 1));
  return Math.floor(rng() * options.length);
}

// A small seeded random generator (mulberry32); Math.random cannot be seeded.
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Exit by ourselves once the arena process ($ARENA_PID) is gone.
function watchArena() {
  const pid = Number(process.env.ARENA_PID);
  if (!pid) return;
  setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === "ESRCH") process.exit(0);
    }
  }, 1000).unref();
}

async function main() {
  const endpoint = process.env.ARENA_ENDPOINT || process.argv[process.argv.length - 1];
  const socket = new zmq.Reply({ linger: 0, reconnectInterval: 10 });
  socket.connect(endpoint);
  watchArena();
  let rng = seeded(0);
  // A reply: the header with the request's id echoed, then the fields.
  const reply = (request, type, fields = {}) =>
    socket.send(encode({ type, version: PROTOCOL_VERSION, id: request.id, ...fields }));
  for await (const [frame] of socket) {
    const request = decode(frame);
    if (request.version !== PROTOCOL_VERSION) {
      console.error(`${NAME}: protocol version ${request.version} is not supported`);
      process.exit(1);
    }
    switch (request.type) {
      case "hello":
        await reply(request, "ready", { name: NAME, bot_version: BOT_VERSION });
        break;
      case "new_game":
        rng = seeded(request.seed);
        await reply(request, "ack");
        break;
      case "decide": {
        let index = strategy(request.view, request.options, request.decision, rng);
        if (!Number.isInteger(index) || index < 0 || index >= request.options.length) {
          console.error(`${NAME}: strategy returned ${index}, playing the default`);
          index = 0;
        }
        await reply(request, "action", { index });
        break;
      }
      case "shutdown":
        await reply(request, "ack");
        socket.close();
        process.exit(0);
      default: // game_over, and any request this bot does not know, is acknowledged
        await reply(request, "ack");
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
