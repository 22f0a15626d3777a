// {{name}}: a bali-arena bot in Java, with JeroMQ and msgpack-java (protocol/PROTOCOL.md of bali-arena).
// Write your logic in strategy(); the rest speaks the protocol and need not change.

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;
import org.zeromq.ZMQ;

public final class Bot {
    static final String NAME = "{{name}}";
    static final String BOT_VERSION = "0.1";
    static final int PROTOCOL_VERSION = 1;

    /**
     * Returns the index of the option to play (0 <= index < options.size()).
     *   view      everything your seat may know now: get(view, "game") ("bali-2001" or "bali-2017"),
     *             get(view, "seat"), get(view, "hand") (your cards) and more; each game's README lists them
     *   options   the legal choices, each a map; option 0 is always the safe default (pass, decline, keep)
     *   decision  what is being decided: get(decision, "kind") (the game's README lists the kinds)
     *   rng       seeded by the arena for this game, so that a replayed game plays the same
     */
    static int strategy(Value view, List<Value> options, Value decision, Random rng) {
        if (options.size() == 1) {
            return 0;
        }
        Value hand = get(view, "hand");
        int handSize = hand != null && hand.isArrayValue() ? hand.asArrayValue().size() : 0;
        // Example logic: with a big hand, play anything but the default; otherwise pick at random.
        if (handSize >= 5) {
            return 1 + rng.nextInt(options.size() - 1);
        }
        return rng.nextInt(options.size());
    }

    /** The value of key in a msgpack map, or null if it is not a map or has no such key. */
    static Value get(Value map, String key) {
        if (map == null || !map.isMapValue()) {
            return null;
        }
        return map.asMapValue().map().get(ValueFactory.newString(key));
    }

    /** A reply: the header with the request's id echoed, then the fields (name, value, name, value...). */
    static void reply(ZMQ.Socket socket, long id, String type, Object... fields) throws IOException {
        MessageBufferPacker out = MessagePack.newDefaultBufferPacker();
        out.packMapHeader(3 + fields.length / 2);
        out.packString("type").packString(type);
        out.packString("version").packInt(PROTOCOL_VERSION);
        out.packString("id").packLong(id);
        for (int i = 0; i < fields.length; i += 2) {
            out.packString((String) fields[i]);
            if (fields[i + 1] instanceof Integer) {
                out.packInt((Integer) fields[i + 1]);
            } else {
                out.packString((String) fields[i + 1]);
            }
        }
        socket.send(out.toByteArray(), 0);
    }

    /** False once the arena process ($ARENA_PID) is gone: then this bot exits by itself. */
    static boolean arenaAlive() {
        String pid = System.getenv("ARENA_PID");
        return pid == null || ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
    }

    public static void main(String[] args) throws IOException {
        String endpoint = System.getenv("ARENA_ENDPOINT");
        if (endpoint == null) {
            endpoint = args[args.length - 1];
        }
        ZMQ.Context context = ZMQ.context(1);
        ZMQ.Socket socket = context.socket(ZMQ.REP);
        socket.setLinger(0);
        socket.setReconnectIVL(10);
        socket.connect(endpoint);
        ZMQ.Poller poller = new ZMQ.Poller(1);
        poller.register(socket, ZMQ.Poller.POLLIN);
        Random rng = new Random(0);
        while (true) {
            if (poller.poll(1000) == 0) {
                if (!arenaAlive()) {
                    System.exit(0);
                }
                continue;
            }
            Value request = MessagePack.newDefaultUnpacker(socket.recv(0)).unpackValue();
            Value version = get(request, "version");
            if (version == null || !version.isIntegerValue() || version.asIntegerValue().toInt() != PROTOCOL_VERSION) {
                System.err.println(NAME + ": protocol version " + version + " is not supported");
                System.exit(1);
            }
            long id = get(request, "id").asIntegerValue().toLong();
            switch (get(request, "type").asStringValue().asString()) {
                case "hello":
                    reply(socket, id, "ready", "name", NAME, "bot_version", BOT_VERSION);
                    break;
                case "new_game":
                    rng = new Random(get(request, "seed").asIntegerValue().toLong());
                    reply(socket, id, "ack");
                    break;
                case "decide": {
                    List<Value> options = get(request, "options").asArrayValue().list();
                    int index = strategy(get(request, "view"), options, get(request, "decision"), rng);
                    if (index < 0 || index >= options.size()) {
                        System.err.println(NAME + ": strategy returned " + index + ", playing the default");
                        index = 0;
                    }
                    reply(socket, id, "action", "index", index);
                    break;
                }
                case "shutdown":
                    reply(socket, id, "ack");
                    socket.close();
                    System.exit(0);
                    break;
                default: // game_over, and any request this bot does not know, is acknowledged
                    reply(socket, id, "ack");
            }
        }
    }
}
