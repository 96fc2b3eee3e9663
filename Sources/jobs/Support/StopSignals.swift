import JobsKit
import Dispatch
import Foundation
import JobsCLI

/// SIGTERM and SIGINT for commands without a graceful shutdown of their own (all but `scan` and `worker`, which
/// run under a ServiceGroup): the runs the process has open in `job_runs` are closed (`failed`, or `partial` when
/// they committed something) before it exits with 128 + the signal's number, as a shell reports a signal.
enum StopSignals {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func closeRunsThenExit() {
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Task {
                    CLILogging.notice("\(name): closing this process's job_runs records, then exiting")
                    _ = await JobRunRecorder.closeOpenRuns(reason: "stopped by \(name) before it finished")
                    exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
