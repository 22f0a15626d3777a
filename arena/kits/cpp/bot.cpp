// {{name}}: a bali-arena bot in C++, with cppzmq and msgpack-c (protocol/PROTOCOL.md of bali-arena).
// Write your logic in strategy(); the rest speaks the protocol and need not change.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include <signal.h>

#include <msgpack.hpp>
#include <zmq.hpp>

namespace {

const char* const NAME = "{{name}}";
const char* const BOT_VERSION = "0.1";
const int PROTOCOL_VERSION = 1;

// The value of key in a msgpack map, or nullptr if it is not a map or has no such key.
const msgpack::object* field(const msgpack::object& map, const std::string& key) {
    if (map.type != msgpack::type::MAP) return nullptr;
    for (uint32_t i = 0; i < map.via.map.size; ++i) {
        const msgpack::object_kv& kv = map.via.map.ptr[i];
        if (kv.key.type == msgpack::type::STR && kv.key.as<std::string>() == key) return &kv.val;
    }
    return nullptr;
}

// Return the index of the option to play (0 <= index < options.via.array.size).
//   view      everything your seat may know now: field(view, "game") ("bali-2001" or "bali-2017"),
//             field(view, "seat"), field(view, "hand") (your cards) and more; each game's README lists them
//   options   the legal choices (an array of maps); option 0 is always the safe default (pass, decline, keep)
//   decision  what is being decided: field(decision, "kind") (the game's README lists the kinds)
//   rng       seeded by the arena for this game, so that a replayed game plays the same
uint32_t strategy(const msgpack::object& view, const msgpack::object& options, const msgpack::object& decision,
                  std::mt19937& rng) {
    (void)decision;
    const uint32_t count = options.via.array.size;
    if (count == 1) return 0;
    const msgpack::object* hand = field(view, "hand");
    const uint32_t hand_size = hand && hand->type == msgpack::type::ARRAY ? hand->via.array.size : 0;
    // Example logic: with a big hand, play anything but the default; otherwise pick at random.
    if (hand_size >= 5) return 1 + std::uniform_int_distribution<uint32_t>(0, count - 2)(rng);
    return std::uniform_int_distribution<uint32_t>(0, count - 1)(rng);
}

// A reply: the header with the request's id echoed, then `extra` more fields written by fill.
template <typename Fill>
void reply(zmq::socket_t& socket, uint64_t id, const char* type, uint32_t extra, Fill fill) {
    msgpack::sbuffer buffer;
    msgpack::packer<msgpack::sbuffer> out(buffer);
    out.pack_map(3 + extra);
    out.pack("type"); out.pack(type);
    out.pack("version"); out.pack(PROTOCOL_VERSION);
    out.pack("id"); out.pack(id);
    fill(out);
    socket.send(zmq::buffer(buffer.data(), buffer.size()), zmq::send_flags::none);
}

void ack(zmq::socket_t& socket, uint64_t id) {
    reply(socket, id, "ack", 0, [](msgpack::packer<msgpack::sbuffer>&) {});
}

// False once the arena process ($ARENA_PID) is gone: then this bot exits by itself.
bool arena_alive() {
    const char* pid = std::getenv("ARENA_PID");
    return pid == nullptr || ::kill(std::atoi(pid), 0) == 0 || errno != ESRCH;
}

}  // namespace

int main(int argc, char** argv) {
    const char* env = std::getenv("ARENA_ENDPOINT");
    const std::string endpoint = env ? env : (argc > 1 ? argv[argc - 1] : "");
    zmq::context_t context;
    zmq::socket_t socket(context, zmq::socket_type::rep);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::reconnect_ivl, 10);
    socket.connect(endpoint);
    std::mt19937 rng(0);
    for (;;) {
        zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, std::chrono::milliseconds(1000)) == 0) {
            if (!arena_alive()) return 0;
            continue;
        }
        zmq::message_t message;
        if (!socket.recv(message)) continue;
        msgpack::object_handle handle = msgpack::unpack(static_cast<const char*>(message.data()), message.size());
        const msgpack::object& request = handle.get();
        const msgpack::object* version = field(request, "version");
        if (!version || version->as<int>() != PROTOCOL_VERSION) {
            std::cerr << NAME << ": this protocol version is not supported" << std::endl;
            return 1;
        }
        const uint64_t id = field(request, "id")->as<uint64_t>();
        const std::string type = field(request, "type")->as<std::string>();
        if (type == "hello") {
            reply(socket, id, "ready", 2, [](msgpack::packer<msgpack::sbuffer>& out) {
                out.pack("name"); out.pack(NAME);
                out.pack("bot_version"); out.pack(BOT_VERSION);
            });
        } else if (type == "new_game") {
            rng.seed(field(request, "seed")->as<uint32_t>());
            ack(socket, id);
        } else if (type == "decide") {
            const msgpack::object& options = *field(request, "options");
            uint32_t index = strategy(*field(request, "view"), options, *field(request, "decision"), rng);
            if (index >= options.via.array.size) {
                std::cerr << NAME << ": strategy returned " << index << ", playing the default" << std::endl;
                index = 0;
            }
            reply(socket, id, "action", 1, [index](msgpack::packer<msgpack::sbuffer>& out) {
                out.pack("index"); out.pack(index);
            });
        } else if (type == "shutdown") {
            ack(socket, id);
            return 0;
        } else {  // game_over, and any request this bot does not know, is acknowledged
            ack(socket, id);
        }
    }
}
