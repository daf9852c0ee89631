package desk.bench;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;

/**
 * mongo-java-server's in-memory backend as a stand-in MongoDB for timing (docs/benchmark.md): it
 * announces wire version 13 (MongoDB 5.0), since the Node driver refuses a server below 9, and answers
 * a drop of a missing collection with error 26 (NamespaceNotFound) as MongoDB does, and finds the
 * documents of a filter naming `_id` (a value or `$in`) beside other conditions through the `_id`
 * index, as MongoDB does: the memory backend uses an index only for a filter of exactly its keys, so
 * every guarded write (`{ _id, _revision: { $lt } }`, and the fence's `_epoch` on all of a leader's)
 * read the whole collection, a cost that grew with the collection and that no MongoDB has. It counts the
 * commands it is sent, by name and collection, the time it spent on them and the documents they wrote (their statements),
 * and answers them to the command `deskBenchCounters` (the bench reads
 * them before and after a load). Prints `listening on mongodb://HOST:PORT` once it accepts connections.
 */
public final class FastMongo {
    /** The handshake and the driver's monitoring: not work of the app. */
    private static final Set<String> NOT_COUNTED = Set.of("hello", "ismaster", "ping", "buildinfo", "endsessions", "getlasterror", "deskbenchcounters");

    private static final MongoVersion MONGO_5_0 = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(5, 0, 0);
        }

        @Override
        public int getWireVersion() {
            return 13;
        }
    };

    /** A filter's `_id` condition the `_id` index answers: a plain value, or `{ $in: [...] }` alone. */
    private static boolean byId(Object condition) {
        if (condition == null) return false;
        if (!(condition instanceof Document)) return true;
        Document operators = (Document) condition;
        return operators.size() == 1 && operators.containsKey("$in");
    }

    private static final class IdFirstCollection extends MemoryCollection {
        IdFirstCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
            super(database, name, options, cursors);
        }

        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
            Object id = query.get("_id");
            if (query.size() > 1 && byId(id)) {
                Document byIdOnly = new Document("_id", id);
                for (Index<Integer> index : getIndexes()) {
                    // The candidates by id, each then matched against the whole filter.
                    if (index.getName().equals("_id_") && index.canHandle(byIdOnly)) {
                        return matchDocuments(query, index.getPositions(byIdOnly), orderBy, skip, limit, batchSize, fieldSelector);
                    }
                }
            }
            return super.queryDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
        }
    }

    private static final class IdFirstDatabase extends MemoryDatabase {
        IdFirstDatabase(String name, CursorRegistry cursors) {
            super(name, cursors);
        }

        @Override
        protected MemoryCollection openOrCreateCollection(String name, CollectionOptions options) {
            return new IdFirstCollection(this, name, options, cursorRegistry);
        }
    }

    private static final class CountingBackend extends MemoryBackend {
        @Override
        public MemoryDatabase openOrCreateDatabase(String name) {
            return new IdFirstDatabase(name, getCursorRegistry());
        }

        private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        /** Nanoseconds spent per command and collection: where the server's own time goes. */
        private final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();
        /** Documents written: the statements of the insert, update and delete commands (a bulk write sends many in one). */
        private final LongAdder writes = new LongAdder();

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            String name = command.toLowerCase();
            if (name.equals("deskbenchcounters")) return counters();
            // By command and collection, the app's generation suffix left out (src/projections/generations.ts).
            String target = command + " " + String.valueOf(query.get(command)).replaceAll("_g[0-9a-f]+$", "");
            if (!NOT_COUNTED.contains(name)) counts.computeIfAbsent(target, key -> new LongAdder()).increment();
            if (name.equals("drop") && resolveDatabase(database).resolveCollection(String.valueOf(query.get(command)), false) == null) {
                throw new MongoServerError(26, "NamespaceNotFound", "ns not found");
            }
            for (String statements : List.of("documents", "updates", "deletes")) {
                if (query.get(statements) instanceof List<?> list) writes.add(list.size());
            }
            long started = System.nanoTime();
            try {
                return super.handleCommand(channel, database, command, query);
            } finally {
                nanos.computeIfAbsent(target, key -> new LongAdder()).add(System.nanoTime() - started);
            }
        }

        private Document counters() {
            Document byName = new Document();
            new TreeMap<>(counts).forEach((name, count) -> byName.put(name, count.sum()));
            Document millis = new Document();
            new TreeMap<>(nanos).forEach((name, spent) -> millis.put(name, spent.sum() / 1e6));
            return new Document("commands", byName).append("millis", millis).append("writes", writes.sum()).append("ok", 1.0);
        }
    }

    public static void main(String[] args) {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        CountingBackend backend = new CountingBackend();
        backend.version(MONGO_5_0);
        MongoServer server = new MongoServer(backend);
        server.bind(host, port);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        System.out.println("listening on mongodb://" + host + ":" + server.getLocalAddress().getPort());
        System.out.flush();
    }
}
