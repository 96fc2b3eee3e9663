import AgentRuntime
package import Core
import Foundation
import Logging
package import Postgres
import ServiceLifecycle

/// The on-demand worker: serves `job_requests` until stopped (or, with `once`, until nothing is ready).
///
/// It LISTENs for the insert trigger's NOTIFY and also polls, claims requests with leases (so any number of
/// workers share the table), runs at most `concurrency` at a time, retries failures as `options.retry` says (exponential delays, up
/// to its attempts), and on `stop()` (or a graceful shutdown of its `ServiceGroup`) claims nothing more, gives in-flight
/// requests `grace` to finish, cancels the rest and waits for them, then releases them to the queue: when `run()`
/// returns, nothing of this worker is still running. Copies share one worker: call `stop()` on any of them.
package struct RequestWorker: Sendable {
    package let pool: PostgresPool
    package let handler: JobRequestHandler
    package let options: WorkerOptions
    /// Paces the lease heartbeat; tests pass a clock they advance by hand instead of waiting a third of a lease.
    package let clock: any MonotonicClock
    /// Counters and the latency histogram (no-ops unless a metrics backend is bootstrapped or passed).
    package let metrics: WorkerMetrics
    /// Liveness and readiness for the health endpoint; shared by copies of this worker.
    package let health = WorkerHealth()
    private let control = WorkerControl()
    private let logger = Logger(label: "messageai.worker")

    package init(pool: PostgresPool, handler: JobRequestHandler, options: WorkerOptions, clock: any MonotonicClock = SystemClock(),
                metrics: WorkerMetrics = WorkerMetrics()) {
        self.pool = pool
        self.handler = handler
        self.options = options
        self.clock = clock
        self.metrics = metrics
    }

    /// Asks a running worker to stop claiming and wind down; `run()` then returns its summary.
    package func stop() async {
        await health.beginStopping()
        await control.requestStop()
    }

    /// Serves requests. `ready` is called once the worker is listening and has made its first claim pass: a
    /// request inserted after that is picked up by its notification.
    package func run(ready: (@Sendable () -> Void)? = nil) async throws -> WorkerSummary {
        let control = self.control
        let health = self.health
        return try await withGracefulShutdownHandler {
            try await serve(ready: ready)
        } onGracefulShutdown: {
            Task {
                await health.beginStopping()
                await control.requestStop()
            }
        }
    }

    private func serve(ready: (@Sendable () -> Void)?) async throws -> WorkerSummary {
        let started = Date()
        let queue = JobRequestQueue(pool: pool)
        let state = WorkerState(summary: WorkerSummary(owner: options.owner))
        var listening: Task<Void, Never>?
        await health.starting(usesListener: !options.once, poll: options.poll)
        if !options.once {
            let listener = NotificationListener(configuration: pool.configuration, channel: options.channel, control: control,
                                                health: health, metrics: metrics, logger: logger)
            let connection = try await listener.connect()
            listening = Task { await listener.run(connection) }
        }
        defer { listening?.cancel() }
        logger.notice("worker \(options.owner) started", metadata: [
            "concurrency": "\(options.concurrency)", "poll": "\(options.poll)", "once": "\(options.once)"])

        var fatal: (any Error)?
        var announced = false
        while await !control.stopRequested, !Task.isCancelled {
            var exhausted = false
            var queried = false
            if let pause = await state.pauseRemaining() {
                // The model server is down: nothing is claimed until its breaker lets a probe through.
                if options.once { break }
                await control.wait(for: min(pause, options.poll))
                continue
            }
            do {
                while await state.inFlightCount < options.concurrency, await !control.stopRequested {
                    let claimed = try await queue.claim(owner: options.owner, lease: options.lease, maxAttempts: options.retry.maxAttempts)
                    queried = true
                    guard let request = claimed else {
                        exhausted = true
                        break
                    }
                    await state.begin(request.id)
                    metrics.inFlight(await state.inFlightCount)
                    let task = Task { await process(request, queue: queue, state: state) }
                    await state.attach(request.id, task: task)
                }
                await health.loopPassed(claimed: queried ? .succeeded : .skipped)
            } catch {
                await health.loopPassed(claimed: .failed("\(error)"))
                if options.once {
                    fatal = error
                    break
                }
                logger.error("claiming failed; trying again in \(options.poll): \(error)")
                await control.wait(for: options.poll)
                continue
            }
            if !announced {
                announced = true
                ready?()
            }
            let inFlight = await state.inFlightCount
            if options.once, exhausted, inFlight == 0 { break }
            var timeout = options.poll
            if exhausted, inFlight < options.concurrency, let due = try? await queue.secondsUntilNextDue() {
                // Wake for the next retry (or expiring lease) rather than a whole poll later; never spin.
                timeout = min(timeout, .milliseconds(ofSeconds: max(due, 0.05), rounding: .towardZero))
            }
            await control.wait(for: timeout)
        }

        let stopReason: WorkerSummary.StopReason = await control.stopRequested || Task.isCancelled ? .stopped : .drained
        let released = try await windDown(queue: queue, state: state)
        await state.recordReleased(released, notifications: await control.notifications, stopReason: stopReason,
                                   seconds: Date().timeIntervalSince(started))
        let summary = await state.summary
        logger.notice("""
            worker \(options.owner) \(stopReason == .stopped ? "stopped on request" : "stopped: nothing more was ready"): \(summary.done) done, \
            \(summary.retriesScheduled) retries scheduled, \(summary.failed) failed, \(released.count) released
            """)
        if let fatal { throw fatal }
        return summary
    }

    /// Waits up to the grace period for in-flight requests (none if the worker itself was cancelled), then cancels
    /// what is left, waits until those tasks have ended, so none commits after `run()` returns, and releases them.
    private func windDown(queue: JobRequestQueue, state: WorkerState) async throws -> [Int64] {
        let deadline = ContinuousClock.now + options.grace
        while await state.inFlightCount > 0, !Task.isCancelled {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { break }
            await control.wait(for: remaining)
        }
        guard await state.inFlightCount > 0 else { return [] }
        await control.abandon()
        let unfinished = await state.cancelAll()
        logger.notice("grace period of \(options.grace) over: cancelling and releasing \(unfinished.count) unfinished request(s)")
        for task in unfinished { await task.value }
        return try await queue.release(owner: options.owner)
    }

    /// One attempt at one request; never throws: every outcome is recorded in the table and the summary.
    private func process(_ request: JobRequest, queue: JobRequestQueue, state: WorkerState) async {
        let started = Date()
        var logger = self.logger
        logger[metadataKey: "request"] = "\(request.id)"
        logger[metadataKey: "kind"] = "\(request.kind.rawValue)"
        logger[metadataKey: "attempt"] = "\(request.attempts)"
        let heartbeat = Task { [options, clock, metrics] in
            let interval = options.lease / 3
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                if Task.isCancelled { break }
                do {
                    metrics.leaseRenewal(try await queue.renew(request.id, owner: options.owner, lease: options.lease) ? "renewed" : "lost")
                } catch {
                    metrics.leaseRenewal("error")
                }
            }
        }
        var result = WorkerSummary.Attempt.Result.done
        var runID: UUID?
        var errorText: String?
        // The run a failed attempt recorded, when the error names it (its tokens were spent all the same).
        var failedRunID: UUID?
        do {
            let served = try await handler.handle(request, now: await DatabaseClock.now(pool))
            runID = served
            if try await !queue.complete(request.id, owner: options.owner, runID: served) { result = .leaseLost }
        } catch {
            errorText = "\(error)"
            failedRunID = (error as? JobsError)?.runID
            if await control.abandoning {
                result = .released
            } else if let outage = (error as? LLMError)?.outage {
                // Not the request's fault: back to the queue as it was, and no claims until the breaker's probe is due.
                result = (try? await queue.release(owner: options.owner, ids: [request.id]))?.isEmpty == false ? .deferred : .leaseLost
                await state.pause(until: outage.probeAt)
                logger.warning("the model server is unavailable; \(request.label) goes back to the queue and claiming pauses",
                               metadata: ["outage": "\(outage)"])
            } else {
                let permanent = (error as? JobsError)?.isPermanent ?? false
                do {
                    switch try await queue.fail(request, owner: options.owner, error: "\(error)", permanent: permanent,
                                                retry: options.retry) {
                    case .retryScheduled: result = .retryScheduled
                    case .failed:
                        result = .failed
                        logger.warning("\(request.label) failed for good; `messageai-jobs requests retry \(request.id)` sends it back to the queue")
                    case .leaseLost: result = .leaseLost
                    }
                } catch {
                    // The lease will expire and another attempt will be made; nothing else to do here.
                    logger.error("could not record the failure of \(request.label): \(error)")
                    result = .leaseLost
                }
            }
        }
        heartbeat.cancel()
        // The attempt's row for `requests show`, written even when this task was cancelled (a released attempt).
        let (owner, spent) = (options.owner, runID ?? failedRunID)
        let ending = (result.rawValue, errorText)
        _ = await Task { try? await queue.finishAttempt(request.id, owner: owner, result: ending.0, error: ending.1, runID: spent) }.value
        let seconds = Date().timeIntervalSince(started)
        metrics.attempt(request.kind, result: result, duration: .milliseconds(ofSeconds: seconds, rounding: .towardZero))
        if let spentBy = runID ?? failedRunID { await metrics.modelSpend(of: spentBy, kind: request.kind, pool: pool) }
        let line = "\(request.label) attempt \(request.attempts): \(result.rawValue) in \(String(format: "%.2f", seconds)) s"
            + (runID.map { " (run \($0.uuidString.lowercased()))" } ?? "") + (errorText.map { ": \($0.prefix(300))" } ?? "")
        var fields: Logger.Metadata = ["result": "\(result.rawValue)", "seconds": "\(String(format: "%.2f", seconds))"]
        if let runID { fields["run"] = "\(runID.postgresValue)" }
        if result == .done { logger.info("\(line)", metadata: fields) } else { logger.warning("\(line)", metadata: fields) }
        await state.finish(.init(requestID: request.id, kind: request.kind, attempt: request.attempts, result: result,
                                 runID: runID, error: errorText.map { String($0.prefix(JobRequestQueue.maxErrorLength)) },
                                 seconds: seconds))
        metrics.inFlight(await state.inFlightCount)
        await control.ring()
    }
}
