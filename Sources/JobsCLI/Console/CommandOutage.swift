import AgentRuntime
import JobsKit
import Postgres

/// Whether an error that ended a command is an outage (exit 75, "try again later") rather than a fault of the input or
/// the setup: the model server unreachable, timing out or failing with 5xx (its breaker open or not), or the database
/// unreachable, restarting or busy. A database that refuses the login or does not exist is the setup's fault.
package enum CommandOutage {
    package static func isOutage(_ error: any Error) -> Bool {
        switch error {
        case let error as LLMError:
            return error.isOutageClass
        case let error as PostgresError:
            let setup = ["authentication", "does not exist", "pg_hba.conf", "permission denied"]
            return FailureSignature.isOutage(error) && !setup.contains { error.message.contains($0) }
        default:
            return false
        }
    }
}
