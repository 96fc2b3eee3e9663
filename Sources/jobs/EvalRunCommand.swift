import ArgumentParser
import JobsKit
import Extractors
import Foundation
import Evaluation
import JobsCLI

/// Runs the extractors over the labelled fixtures and scores them, so a prompt change is judged by numbers.
struct EvalRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the extractors over the labelled fixtures and score them (the default eval subcommand).",
        discussion: """
            Every fixture becomes the same ConversationInput production reads and goes through ExtractionEngine. \
            The rule-based provider always runs beside the LLM as a floor. Model answers are cached in --cache-dir, \
            keyed by the whole request, so re-running an unchanged prompt costs nothing; \
            requests that miss the cache are held to OPENAI_RPM / OPENAI_TPM, as every command's model requests are.

            Examples:
              messageai-jobs eval --report out/
              messageai-jobs eval --compare calendar_events=2 --report out/
              messageai-jobs eval --compare per-feature   # combined requests (the default) beside per-feature ones
              messageai-jobs eval --per-feature --compare combined   # the same, per-feature as the main variant
              messageai-jobs eval --baseline old/report.json --max-regression 0.02
              messageai-jobs eval --provider rules --fail-under 0.5
              messageai-jobs eval --provider labels --fixtures evals/nights   # every night must be F1 1.000

            Fixtures with nights: (evals/nights, docs/nights-format.md) are played night by night through the \
            reconciliation (docs/over-nights.md) and scored after each night as <id>#<n>; the reports add the micro \
            over all nights, the last nights and the share of nights shown exactly right. --provider labels answers \
            every request from the fixtures' own labels, as a perfect model would, so the pipeline's own losses show.

            Scoring a model this machine cannot call: --export-requests DIR writes every request the run would send \
            (each fixture and window: one combined request, or one per feature with --per-feature; with --compare both variants') as \
            DIR/<fixture>/<feature-or-combined>@<version>.w<window>.<hash12>.request.md, plus DIR/manifest.json. \
            Nothing is sent and no key or database is needed. Anyone (a model in a chat window, a colleague) writes \
            the JSON object a model would return to the same path with .request.md replaced by .answer.json. Then \
            --provider recorded --answers DIR scores those answers exactly as a live run would (validation, the \
            re-ask, grounding, dates, scoring, reports). Answers for another prompt version or request are reported \
            stale and never used; a missing answer is a failed extraction. When an answer is invalid, the re-ask has \
            its own request: it is written to DIR/missing/<fixture>/<stem>.reask.<hash12>.request.md; write its \
            answer beside it (.answer.json) or in DIR/<fixture>/, and re-run.
              messageai-jobs eval --export-requests requests/
              messageai-jobs eval --provider recorded --answers requests/ --report out/
            """
    )

    @Option(help: "A fixture YAML file or a directory of them (one-night fixtures, nights fixtures such as evals/nights, or both).")
    var fixtures: String = "evals/fixtures"

    @Option(help: "Comma-separated features to run and score (default: all registered features).")
    var features: String?

    @OptionGroup var provider: ProviderOptions

    @Option(help: "FEATURE=VERSION: also run a second LLM variant with this prompt version, side by side, in the same request mode (combined: the combined request carries that version's combined_rule) (repeatable); or the other request mode, `per-feature` (when the run is combined, the default) or `combined` (with --per-feature): the same prompts and provider, scored side by side.")
    var compare: [String] = []

    @Option(help: "Write report.json, report.md and report.html into this directory.")
    var report: String?

    @Option(help: "An earlier report.json: show deltas per feature and the fixtures that regressed.")
    var baseline: String?

    @Option(name: .customLong("fail-under"), help: "Exit non-zero when the main variant's micro F1 is below this.")
    var failUnder: Double?

    @Option(name: .customLong("max-regression"), help: "Exit non-zero when micro F1 dropped more than this versus --baseline.")
    var maxRegression: Double?

    @Option(name: .customLong("max-failures"), help: "Failed extractions allowed per variant before the run fails (a failure predicts nothing, so a dead model would otherwise pass).")
    var maxFailures: Int = 0

    @Flag(name: .customLong("no-cache"), help: "Ask the model again even for cached requests (answers are still stored).")
    var noCache = false

    @Option(name: .customLong("cache-dir"), help: "Where model answers are cached.")
    var cacheDir: String = ".eval-cache"

    @Option(help: "Fixtures extracted at once.")
    var concurrency: Int = 4

    @Option(name: .customLong("export-requests"), help: "Write every request the run would send, and manifest.json, into this directory; send nothing.")
    var exportRequests: String?

    @Option(help: "With --provider recorded: the directory of answer files (an --export-requests directory with .answer.json files).")
    var answers: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        let mode = try provider.requestMode()
        if let other = compareMode, other == mode {
            throw ValidationError("--compare \(other): this run already makes \(other) requests; compare with \(mode == .combined ? "per-feature" : "combined"), or pass --\(mode == .combined ? "per-feature" : "combined") for the main variant")
        }
        if compare.filter({ RequestMode(rawValue: $0) != nil }).count > 1 { throw ValidationError("--compare: name one request mode, not both") }
        if maxRegression != nil, baseline == nil { throw ValidationError("--max-regression needs --baseline") }
        if let failUnder, !(0...1).contains(failUnder) { throw ValidationError("--fail-under is an F1 between 0 and 1") }
        if let maxRegression, maxRegression < 0 { throw ValidationError("--max-regression must be 0 or more") }
        if maxFailures < 0 { throw ValidationError("--max-failures must be 0 or more") }
        if provider.provider == .recorded, answers == nil, exportRequests == nil {
            throw ValidationError("--provider recorded needs --answers DIR (export the requests first with --export-requests DIR)")
        }
        if answers != nil, provider.provider != .recorded { throw ValidationError("--answers needs --provider recorded") }
        if exportRequests != nil, answers != nil { throw ValidationError("--export-requests and --answers: export first, then score") }
    }

    func run() async throws {
        output.bootstrap()
        let run: EvalRun
        var result: EvalReport
        do {
            // Provider, model, prompts, window, request mode and the process's rate limiter, from the settings.
            var options = try Assembly.command { $0.take(provider) }.evalOptions()
            options.fixturesPath = fixtures
            if let features { options.features = try Self.parseFeatures(features) }
            // Feature picks choose the main variant's extractor prompts; `combined=N` re-pins the combined prompt.
            let picks = provider.promptVersions.flatMap { $0.split(separator: ",").map(String.init) }
            let isCombined = { (pick: String) in pick.hasPrefix(CombinedSchema.promptID + "=") }
            options.promptVersions = try EvalSession.parseVersionPicks(picks.filter { !isCombined($0) }, option: "--prompt-version")
            options.promptPins = picks.filter(isCombined)
            options.compareVersions = try EvalSession.parseVersionPicks(compare.filter { RequestMode(rawValue: $0) == nil }, option: "--compare")
            options.compareMode = compareMode
            options.readCache = !noCache
            options.cacheDirectory = URL(fileURLWithPath: cacheDir)
            options.concurrency = concurrency
            options.answersDirectory = answers.map { URL(fileURLWithPath: $0) }
            if let exportRequests {
                // A nights fixture's later nights need the answers of the earlier ones, written beside their requests.
                let plan = try await RequestExport.plan(options, answers: URL(fileURLWithPath: exportRequests))
                let count = try RequestExport.write(plan, to: URL(fileURLWithPath: exportRequests))
                let summary = "wrote \(count) request files for \(plan.fixtureCount) fixtures (\(plan.mode)"
                    + (plan.compare.isEmpty ? "" : ", compare \(plan.compare.joined(separator: " "))") + ") and manifest.json to \(exportRequests)"
                if output.json {
                    Console.print(String(decoding: try Data(contentsOf: URL(fileURLWithPath: exportRequests).appendingPathComponent("manifest.json")), as: UTF8.self))
                } else {
                    Console.print(summary)
                }
                return
            }
            let previous = try baseline.map { try EvalReport.load(path: $0) }

            let showProgress = Console.isTerminal && !output.json
            run = try await EvalSession.run(options) { progress in
                guard showProgress else { return }
                Console.progress("eval \(progress.variant): \(progress.done)/\(progress.total) fixtures")
                if progress.done == progress.total { Console.progressDone() }
            }
            if let notice = run.notice { Console.error(notice) }
            result = run.report
            if let previous, let baseline {
                result.baseline = try BaselineComparison.compare(current: result, baseline: previous, baselinePath: baseline)
            }
            // The verdict goes into the reports too, so report.md and report.html say why the job failed.
            result.gate = EvalGates.verdict(result, failUnder: failUnder, maxRegression: maxRegression, maxFailures: maxFailures)
            if let directory = report {
                let files = try EvalReportWriter.write(result, fixtures: run.fixtures, to: URL(fileURLWithPath: directory))
                if !output.json { Console.error("wrote \(files.map(\.path).joined(separator: ", "))") }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }

        if output.json {
            Console.print(String(decoding: try result.jsonData(), as: UTF8.self))
        } else {
            Console.print(result.summaryText())
        }
        let gate = result.gate ?? EvalGates.verdict(result, failUnder: failUnder, maxRegression: maxRegression, maxFailures: maxFailures)
        if let outage = gate.outage {
            Console.error("OUTAGE: the model server was unavailable, so the scores mean nothing: \(outage)")
            throw ExitCode(Int32(gate.exitCode))
        }
        guard gate.passed else {
            for check in gate.checks where !check.passed { Console.error("FAIL: \(check.detail)") }
            // The status docs/operations.md gives a job that ran but whose work failed its gates; 1 is kept for errors.
            throw ExitCode(Int32(gate.exitCode))
        }
    }

    /// The request mode named in --compare (`combined` or `per-feature`), if any.
    var compareMode: RequestMode? {
        compare.lazy.compactMap { RequestMode(rawValue: $0) }.first
    }

    static func parseFeatures(_ text: String) throws -> [ExtractionFeature] {
        var result: [ExtractionFeature] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let feature = ScoringRegistry.shipping.named(ExtractionFeature(name))?.id else {
                throw EvalRunError("--features: unknown feature '\(name)' (known: \(ScoringRegistry.shipping.ids.map(\.rawValue).joined(separator: ", ")))")
            }
            if !result.contains(feature) { result.append(feature) }
        }
        return result
    }
}
