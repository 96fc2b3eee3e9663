import AgentRuntime
import Extractors
import Foundation

/// A conversation whose requests the model server did not answer (5xx, timeouts, dropped connections) while its
/// circuit breaker stayed closed. Whether that is the conversation's failure or an outage is the server's state, not
/// the error's name: if the server answered other requests within its breaker's quiet period before, or at any time
/// after, it is up and failing this conversation, which then fails and counts toward quarantine
/// (`FailureSignature.modelServer`); if it answered nothing, it is an outage, and the conversation is given back
/// untouched at the end of the run, which records the outage. Until the run ends such a conversation keeps its claim.
extension ScanService {
    /// The model server's breaker, when the engine asks one (nil for the rule-based provider).
    var breaker: CircuitBreaker? { (engine.provider as? LLMAnswerProvider)?.client.circuitBreaker }

    /// A conversation held until the run ends: its claim, its own error and when it failed.
    struct HeldFailure: Sendable {
        let claim: ScanQueue.Claim
        let error: LLMError
        let failedAt: ContinuousClock.Instant
    }

    func settleServerFailure(_ claim: ScanQueue.Claim, _ error: LLMError, breaker: CircuitBreaker, _ worker: Worker) async {
        let now = ContinuousClock.now
        if let answered = breaker.lastAnswer, answered >= now - breaker.quietPeriod {
            await recordFailure(claim, error: error, signature: FailureSignature.modelServer, worker)
            return
        }
        worker.logger(for: claim.conversationID).warning(
            "conversation failed while the model server answered nothing: decided when the run ends", metadata: ["error": "\(error)"])
        await worker.state.hold(HeldFailure(claim: claim, error: error, failedAt: now))
    }

    /// Settles the held conversations once the workers have stopped: failed if the server answered after they
    /// failed, otherwise given back untouched with the outage recorded.
    func settleHeld(_ worker: Worker) async {
        let held = await worker.state.takeHeld()
        guard !held.isEmpty else { return }
        let answered = breaker?.lastAnswer
        var outage: [HeldFailure] = []
        for failure in held {
            if let answered, answered > failure.failedAt {
                await recordFailure(failure.claim, error: failure.error, signature: FailureSignature.modelServer, worker)
            } else {
                let id = failure.claim.conversationID
                await giveBack(id, interrupted: false, worker)
                worker.logger(for: id).warning("conversation deferred: the model server answered no request", metadata: ["error": "\(failure.error)"])
                await worker.state.record(deferred: id)
                outage.append(failure)
            }
        }
        if let last = outage.last {
            await worker.state.stop(outage: "the model server \(breaker?.server ?? "") is unavailable: it answered no request while "
                                    + "\(outage.count) conversation(s) failed; last error: \(last.error.underlying)")
        }
        await reportProgress(worker)
    }
}

extension ScanState {
    func hold(_ failure: ScanService.HeldFailure) { held.append(failure) }

    func takeHeld() -> [ScanService.HeldFailure] {
        defer { held = [] }
        return held
    }
}
