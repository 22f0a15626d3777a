//! {{name}}: a bali-arena bot in Rust, with the zmq and rmp-serde crates (protocol/PROTOCOL.md of bali-arena).
//! Write your logic in strategy(); the rest speaks the protocol and need not change.

mod value;

use value::Value;

const NAME: &str = "{{name}}";
const BOT_VERSION: &str = "0.1";
const PROTOCOL_VERSION: i64 = 1;

/// Returns the index of the option to play (0 <= index < options.len()).
///   view      everything your seat may know now: view.get("game") ("bali-2001" or "bali-2017"),
///             view.get("seat"), view.get("hand") (your cards) and more; each game's README lists them
///   options   the legal choices, each a map; option 0 is always the safe default (pass, decline, keep)
///   decision  what is being decided: decision.get("kind") (the game's README lists the kinds)
///   rng       seeded by the arena for this game, so that a replayed game plays the same
fn strategy(view: &Value, options: &[Value], _decision: &Value, rng: &mut Rng) -> usize {
    if options.len() == 1 {
        return 0;
    }
    let hand = view.get("hand").items();
    // Example logic: with a big hand, play anything but the default; otherwise pick at random.
    if hand.len() >= 5 {
        return 1 + rng.below(options.len() - 1);
    }
    rng.below(options.len())
}

/// A small random generator (splitmix64), seeded per game; swap in your own if you like.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// A reply: the header with the request's id echoed, then the fields.
fn reply(socket: &zmq::Socket, id: i64, kind: &str, fields: Vec<(&str, Value)>) {
    let mut pairs = vec![
        ("type".to_owned(), Value::Str(kind.to_owned())),
        ("version".to_owned(), Value::Int(PROTOCOL_VERSION)),
        ("id".to_owned(), Value::Int(id)),
    ];
    pairs.extend(fields.into_iter().map(|(k, v)| (k.to_owned(), v)));
    let bytes = rmp_serde::to_vec(&Value::Map(pairs)).expect("a reply always encodes");
    socket.send(bytes, 0).expect("send");
}

/// False once the arena process ($ARENA_PID) is gone: then this bot exits by itself.
fn arena_alive() -> bool {
    match std::env::var("ARENA_PID") {
        Ok(pid) => std::path::Path::new(&format!("/proc/{pid}")).exists(),
        Err(_) => true,
    }
}

fn main() {
    let endpoint = std::env::var("ARENA_ENDPOINT").ok().or_else(|| std::env::args().last()).unwrap_or_default();
    let context = zmq::Context::new();
    let socket = context.socket(zmq::REP).expect("socket");
    socket.set_linger(0).expect("linger");
    socket.set_reconnect_ivl(10).expect("reconnect interval");
    socket.connect(&endpoint).expect("connect to the arena");
    let mut rng = Rng(0);
    loop {
        if socket.poll(zmq::POLLIN, 1000).unwrap_or(0) == 0 {
            if !arena_alive() {
                return;
            }
            continue;
        }
        let bytes = socket.recv_bytes(0).expect("receive");
        let request: Value = rmp_serde::from_slice(&bytes).expect("a msgpack message");
        if request.get("version").as_int() != Some(PROTOCOL_VERSION) {
            eprintln!("{NAME}: protocol version {:?} is not supported", request.get("version"));
            std::process::exit(1);
        }
        let id = request.get("id").as_int().unwrap_or(0);
        match request.get("type").as_str().unwrap_or("") {
            "hello" => reply(&socket, id, "ready", vec![("name", Value::Str(NAME.into())),
                                                       ("bot_version", Value::Str(BOT_VERSION.into()))]),
            "new_game" => {
                rng = Rng(request.get("seed").as_int().unwrap_or(0) as u64);
                reply(&socket, id, "ack", vec![]);
            }
            "decide" => {
                let options = request.get("options").items();
                let mut index = strategy(request.get("view"), options, request.get("decision"), &mut rng);
                if index >= options.len() {
                    eprintln!("{NAME}: strategy returned {index}, playing the default");
                    index = 0;
                }
                reply(&socket, id, "action", vec![("index", Value::Int(index as i64))]);
            }
            "shutdown" => {
                reply(&socket, id, "ack", vec![]);
                return;
            }
            // game_over, and any request this bot does not know, is acknowledged
            _ => reply(&socket, id, "ack", vec![]),
        }
    }
}
