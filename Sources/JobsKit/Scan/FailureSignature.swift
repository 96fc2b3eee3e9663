package import AgentRuntime
import Extractors
import Foundation
package import Postgres

/// An error that says a shared service is down or overloaded (a circuit breaker that opened, say): never the
/// conversation's fault, so it never counts toward quarantine. Errors of other modules adopt it here.
protocol OutageError: Error {}

extension RateLimitError: OutageError {}

/// What a conversation's failure was: where it happened (the database, the model server, the model's answer, the
/// input) and the error's class, stripped of ids, numbers and the feature that happened to fail first, so the same
/// fault on two nights compares equal even when the features fail in another order. Nil for outages, which pass on
/// their own and are no conversation's fault (the database or the model server unreachable, failing with 5xx, busy
/// or rate-limited; a lock or statement timeout; a cancellation): only failures with a signature count toward
/// quarantine, so a model outage never quarantines the night's conversations.
package enum FailureSignature {
    /// A conversation whose requests got no answer (a 5xx, a timeout, a dropped connection) while the server answered
    /// others (`ScanService.settleServerFailure`): one signature whatever the failure was called on each night, so a
    /// conversation the server never answers is quarantined like any other that fails every night.
    static let modelServer = "model server: no answer to this conversation while it answered others"

    static func of(_ error: any Error) -> String? {
        switch error {
        case is OutageError, is CancellationError:
            return nil
        case let error as PostgresError:
            if isOutage(error) { return nil }
            if let state = error.sqlState {
                return "database \(state) \(error.constraint ?? error.table ?? normalized(error.message))"
            }
            return "database \(error.kind) \(normalized(error.message))"
        case let error as LLMError:
            switch error.underlying {
            // A 2xx body that is not a completion, or a request the server refuses as too big or malformed: this
            // conversation's request or answer, not the server's health.
            case .decoding: return "model server: undecodable answer"
            case .http(let status, _, _) where status == 400 || status == 413 || status == 422: return "model server: http \(status)"
            // Transport errors, timeouts, 5xx, 429, and the deployment's own faults (401, 403, 404, no model).
            default: return nil
            }
        case let error as ExtractionError:
            switch error {
            case .invalidOutput: return "model answer: invalid output"
            case .truncated: return "model answer: truncated"
            case .refused: return "model answer: refused"
            case .promptProblem: return nil  // the deployment's prompts: every conversation's, not this one's
            case .invalidInput(let text): return "invalid input \(normalized(text))"
            }
        case let error as JobsError:
            // The deployment's prompts fail every conversation alike. Other codes keep the signature they had as
            // "invalid input", so quarantines recorded before still compare equal.
            return error.code == .promptProblem ? nil : "invalid input \(normalized(error.message))"
        default:
            return "\(type(of: error)) \(normalized(String(describing: error)))"
        }
    }

    /// The database unreachable, restarting, out of resources or busy: connection failures (class 08, shutdowns), a
    /// lock or statement timeout, a serialization failure or deadlock, class 53 (disk full, out of memory, too many
    /// connections), class 57 (operator intervention), class 58 (system errors), a read-only server after a failover.
    package static func isOutage(_ error: PostgresError) -> Bool {
        if error.isConnectionFailure || error.kind == .connection { return true }
        guard let state = error.sqlState else { return false }
        if [.lockNotAvailable, .queryCanceled, .serializationFailure, .deadlockDetected, SQLState("25006")].contains(state) { return true }
        return ["53", "57", "58"].contains(state.errorClass)
    }

    /// Digits and hex runs become `#`, so ids, counts and dates do not make two reports of one fault differ.
    static func normalized(_ text: String) -> String {
        let replaced = text.replacingOccurrences(of: "[0-9a-fA-F]*[0-9][0-9a-fA-F-]*", with: "#", options: .regularExpression)
        return String(replaced.prefix(160))
    }
}
