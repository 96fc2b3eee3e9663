import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PoolTests {
    @Test func sixteenConcurrentTasksShareFourConnections() async throws {
        try await TestDatabase.with(migrate: false, maxConnections: 4) { db in
            try await db.pool.query("CREATE TABLE hits (task int, pid int)")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for _ in 0..<5 {
                            try await db.pool.withConnection { connection in
                                try await connection.query("INSERT INTO hits SELECT $1, pg_backend_pid() FROM pg_sleep(0.005)", [task])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let row = try await db.pool.query("SELECT count(*) AS n, count(DISTINCT pid) AS pids, count(DISTINCT task) AS tasks FROM hits")[0]
            #expect(try row.decode("n", as: Int.self) == 80)
            #expect(try row.decode("tasks", as: Int.self) == 16)
            #expect(try row.decode("pids", as: Int.self) <= 4)
            #expect(await db.pool.openConnections <= 4)
        }
    }

    @Test func replacesAConnectionKilledByTheServer() async throws {
        try await TestDatabase.with(migrate: false, maxConnections: 1) { db in
            let firstPID = try await db.pool.withConnection { $0.backendPID }
            // Kill the pooled (idle) connection from outside, as an admin or a restarting server would.
            let admin = try await PostgresConnection.connect(try TestDatabase.baseConfiguration())
            try await admin.query("SELECT pg_terminate_backend($1)", [Int(firstPID)])
            // Wait until the server has really ended it: a backend leaves pg_stat_activity before its process exits
            // and closes the socket, so under load the pool could still see an idle socket with nothing to read.
            // The cluster is local (scripts/local-db): the process is gone when kill(pid, 0) says so.
            for _ in 0..<50 {
                let alive = try await admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1", [Int(firstPID)])[0].decode("n", as: Int.self)
                if alive == 0 { break }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            for _ in 0..<250 {
                if kill(pid_t(firstPID), 0) == -1 && errno == ESRCH { break }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            admin.close()
            let secondPID = try await db.pool.withConnection { connection in
                try await connection.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int32.self)
            }
            #expect(secondPID != firstPID)
            #expect(await db.pool.openConnections == 1)
        }
    }

    @Test func connectionBrokenMidStatementIsReplacedAfterwards() async throws {
        try await TestDatabase.with(migrate: false, maxConnections: 1) { db in
            let admin = try await PostgresConnection.connect(try TestDatabase.baseConfiguration())
            let error = await #expect(throws: PostgresError.self) {
                try await db.pool.withConnection { connection in
                    let pid = connection.backendPID
                    async let killed: Void = {
                        // Kill it once the server shows it inside the statement (polled, bounded), not after a guess.
                        for _ in 0..<500 {
                            let running = try await admin.query(
                                "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep(30)%'",
                                [Int(pid)])[0].decode("n", as: Int.self)
                            if running == 1 { break }
                            try await Task.sleep(for: .milliseconds(10))
                        }
                        try await admin.query("SELECT pg_terminate_backend($1)", [Int(pid)])
                    }()
                    try await connection.query("SELECT pg_sleep(30)")
                    try await killed
                }
            }
            #expect(error?.isConnectionFailure == true)
            admin.close()
            let ok = try await db.pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self)
            #expect(ok == 1)
        }
    }

    @Test func listenReceivesNotify() async throws {
        try await TestDatabase.with(migrate: false) { db in
            let listener = try await PostgresConnection.connect(db.configuration)
            try await listener.listen("work_ready")
            #expect(try await listener.waitForNotification(timeout: 0.1) == nil)
            try await db.pool.withConnection { try await $0.notify("work_ready", payload: "conversation 7") }
            let received = try await listener.waitForNotification(timeout: 5)
            #expect(received?.channel == "work_ready")
            #expect(received?.payload == "conversation 7")
            listener.close()
        }
    }
}
