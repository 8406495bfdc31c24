// HeraldCql: a tiny CQL client used by scripts/services.
//
// It runs on the DataStax Java driver 3.x that Cassandra itself ships as a
// runtime dependency (cassandra-driver-core-*-shaded.jar), so checking the
// node needs nothing beyond what the Cassandra download already brought.
//
//   java -cp 'LIB/*:CLASSES' HeraldCql [--host H] [--port P] [--timeout-ms N]
//        prints the node's release_version (SELECT release_version FROM system.local)
//   java -cp ... HeraldCql [...] 'STATEMENT' ['STATEMENT' ...]
//        runs each statement in order and prints the rows it returns
//
// Exit status: 0 on success, 1 when the node cannot be reached or a statement
// fails (the reason goes to stderr), 2 on bad arguments.

import com.datastax.driver.core.Cluster;
import com.datastax.driver.core.CodecRegistry;
import com.datastax.driver.core.ColumnDefinitions;
import com.datastax.driver.core.QueryOptions;
import com.datastax.driver.core.ResultSet;
import com.datastax.driver.core.Row;
import com.datastax.driver.core.Session;
import com.datastax.driver.core.SimpleStatement;
import com.datastax.driver.core.SocketOptions;

import java.util.ArrayList;
import java.util.List;

public final class HeraldCql {
    public static void main(String[] args) {
        String host = "127.0.0.1";
        int port = 9042;
        int timeoutMs = 10000;
        List<String> statements = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--host": host = args[++i]; break;
                    case "--port": port = Integer.parseInt(args[++i]); break;
                    case "--timeout-ms": timeoutMs = Integer.parseInt(args[++i]); break;
                    default: statements.add(args[i]);
                }
            }
        } catch (RuntimeException e) {
            System.err.println("usage: HeraldCql [--host H] [--port P] [--timeout-ms N] [STATEMENT...]");
            System.exit(2);
        }
        boolean ping = statements.isEmpty();

        Cluster.Builder builder = Cluster.builder()
                .addContactPoint(host)
                .withPort(port)
                .withoutMetrics()
                .withoutJMXReporting()
                .withSocketOptions(new SocketOptions()
                        .setConnectTimeoutMillis(timeoutMs)
                        .setReadTimeoutMillis(timeoutMs));
        if (ping) {
            // A health check needs no schema or token metadata: skip fetching it.
            builder.withQueryOptions(new QueryOptions().setMetadataEnabled(false));
        }

        // The cluster is not closed: closing waits ~2 s for Netty's graceful
        // shutdown, and the process exits right after anyway.
        int status = 0;
        try {
            Cluster cluster = builder.build();
            Session session = cluster.connect();
            if (ping) {
                Row row = session.execute("SELECT release_version FROM system.local").one();
                if (row == null) {
                    throw new IllegalStateException("system.local returned no row");
                }
                System.out.println(row.getString("release_version"));
            } else {
                for (String cql : statements) {
                    ResultSet rs = session.execute(new SimpleStatement(cql));
                    printRows(rs);
                }
            }
        } catch (Exception e) {
            System.err.println("cql: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private static void printRows(ResultSet rs) {
        ColumnDefinitions defs = rs.getColumnDefinitions();
        if (defs.size() == 0) {
            return; // DDL and writes return no columns
        }
        for (Row row : rs) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < defs.size(); i++) {
                if (i > 0) {
                    line.append(" | ");
                }
                Object value = row.getObject(i);
                String text = value == null ? "null"
                        : CodecRegistry.DEFAULT_INSTANCE.codecFor(defs.getType(i)).format(value);
                line.append(defs.getName(i)).append('=').append(text);
            }
            System.out.println(line);
        }
    }
}
