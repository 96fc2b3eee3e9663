import AgentRuntime
import Extractors
import Foundation
import Postgres

/// What a conversation's failure was, stripped of ids and numbers, so that the same fault on two nights compares equal;
/// nil for faults that pass on their own (the database or the model unreachable or busy, a lock or statement timeout,
/// a cancellation). Only failures with a signature count toward quarantine: a model outage must not quarantine every
/// conversation of the night.
enum FailureSignature {
    static func of(_ error: any Error) -> String? {
        switch error {
        case let error as PostgresError:
            if error.isConnectionFailure || error.kind == .connection { return nil }
            if let state = error.sqlState {
                if [.lockNotAvailable, .queryCanceled, .serializationFailure, .deadlockDetected].contains(state) { return nil }
                return "postgres \(state) \(error.constraint ?? error.table ?? normalized(error.message))"
            }
            return "postgres \(error.kind) \(normalized(error.message))"
        case let error as LLMError:
            switch error.underlying {
            case .decoding: return "llm decoding"
            case .http(let status, _, _) where status == 400 || status == 413: return "llm http \(status)"
            default: return nil
            }
        case let error as ExtractionError:
            switch error {
            case .invalidOutput(let feature, _): return "invalid output \(feature.rawValue)"
            case .truncated(let feature, _): return "truncated \(feature.rawValue)"
            case .refused(let feature, _): return "refused \(feature.rawValue)"
            case .promptProblem: return nil  // the deployment's prompts: every conversation's, not this one's
            case .invalidInput(let text): return "invalid input \(normalized(text))"
            }
        case let error as JobsError:
            // The deployment's prompts fail every conversation alike. Other codes keep the signature they had as
            // "invalid input", so quarantines recorded before still compare equal.
            return error.code == .promptProblem ? nil : "invalid input \(normalized(error.message))"
        case is CancellationError:
            return nil
        default:
            return "\(type(of: error)) \(normalized(String(describing: error)))"
        }
    }

    /// Digits and hex runs become `#`, so ids, counts and dates do not make two reports of one fault differ.
    static func normalized(_ text: String) -> String {
        let replaced = text.replacingOccurrences(of: "[0-9a-fA-F]*[0-9][0-9a-fA-F-]*", with: "#", options: .regularExpression)
        return String(replaced.prefix(160))
    }
}
