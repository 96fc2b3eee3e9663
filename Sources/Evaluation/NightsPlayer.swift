import AgentRuntime
import Extractors
import Foundation

/// Plays one fixture night by night through the one reconciliation (docs/over-nights.md, "Eval over nights"): each
/// night's request carries the state the earlier nights left, its answer goes through `Reconciliation.apply`, and what
/// the app then shows the reference user is that night's prediction. A one-night fixture is a chat of one night.
enum NightsPlayer {
    /// With `--provider labels` every answer is written from the night's labels (`LabelAnswers`); with any other
    /// provider the engine reads the night's messages with their context and the open items the earlier nights left
    /// (`input.state`), and its answer says what became of them (`known`) beside the new items. A recorded run whose
    /// answer of a night is missing stops that fixture there: the later nights' requests depend on it.
    static func play(_ fixture: Fixture, variant: EvalVariantSpec) async -> EvalRunner.FixtureOutcome {
        var outcome = EvalRunner.FixtureOutcome()
        guard let zone = TimeZone(identifier: fixture.reference.timezone) else {
            outcome.errors = variant.features.map {
                EvalUnitError(fixture: fixture.id, feature: $0, message: "reference.timezone '\(fixture.reference.timezone)' is not a known time zone")
            }
            return outcome
        }
        let nights = fixture.nights ?? [FixtureNight(now: fixture.reference.now, messages: fixture.messages, expected: fixture.expected)]
        let labels = variant.engine.provider is LabelsAnswerProvider
        let user = fixture.reference.user
        var state = ConversationState()
        var earlier: [FixtureMessage] = []
        for (index, night) in nights.enumerated() {
            let id = fixture.nights == nil ? fixture.id : Fixture.nightID(fixture.id, index + 1)
            let context = Array(earlier.suffix(ConversationReader.defaultContextMessages))
            var input = Self.input(fixture, night: night, context: context, zone: zone)
            input.state = state
            let shown = variant.engine.shownRefs(input, features: variant.features)
            let request = NightRequest(now: night.now.date, timeZone: zone, shownRefs: shown,
                                       shownMessages: Set((context + night.messages).map(\.id)),
                                       participants: Set(fixture.participants.map(\.id)))
            let answer: NightAnswer
            let errors = outcome.errors.count
            if labels {
                // The labels' answer, written as the JSON of each request and decoded by the engine like a model's.
                let typed = LabelAnswers.answer(state, request: request, expected: night.expected, user: user)
                answer = await extracted(input, night: night, id: id, variant: variant, engine: try? Self.engine(variant.engine, night: typed),
                                         into: &outcome)
            } else {
                answer = await extracted(input, night: night, id: id, variant: variant, into: &outcome)
                if outcome.errors.dropFirst(errors).contains(where: { RecordedAnswerBook.isMissingAnswer($0.message) }) {
                    outcome.errors += notPlayed(fixture, after: index, nights: nights.count, variant: variant)
                    return outcome
                }
            }
            let result = Reconciliation.apply(state, request: request, answer: answer)
            state = result.state
            for (kind, count) in result.refusalCounts { outcome.refusals[kind.rawValue, default: 0] += count }
            let view = state.view(for: user, now: night.now.date, timeZone: zone)
            var predicted = PredictedItems()
            for feature in variant.features { variant.engine.registry.feature(feature)?.scored(view, user: user, into: &predicted) }
            if fixture.nights == nil { outcome.predicted = predicted } else { outcome.nights[id] = predicted }
            earlier += night.messages
        }
        return outcome
    }

    /// What the engine reads on one night: the night's messages after their context (earlier nights' last
    /// `ConversationReader.defaultContextMessages`, as the scan's context), "now" the night's. `--export-requests`
    /// builds the same, so recorded answers replay.
    static func input(_ fixture: Fixture, night: FixtureNight, context: [FixtureMessage], zone: TimeZone) -> ConversationInput {
        let participants = fixture.participants.map { Extractors.Participant(id: $0.id, name: $0.name) }
        return ConversationInput(
            conversationID: fixture.id, name: FixtureConversation.neutralName(participants, user: fixture.reference.user),
            isGroup: participants.count > 2, participants: participants,
            messages: (context + night.messages).map { InputMessage(id: $0.id, senderID: $0.sender, sentAt: $0.sentAt.date, text: $0.text) },
            firstNewIndex: context.count, timeZone: zone, now: night.now.date,
            viewer: participants.first { $0.id == fixture.reference.user })
    }

    /// A one-night fixture's one input; a nights fixture is played (`playRequests`), since each night's request
    /// carries the state the answers of the nights before it left.
    static func inputs(_ fixture: Fixture) throws -> [(id: String, input: ConversationInput)] {
        [(fixture.id, try FixtureConversation.input(fixture))]
    }

    /// The nights of a nights fixture as an export or a recorded run sends them: night N's input carries the state
    /// the answers of nights 1..N-1 made. `answer` runs the engine on one night's input and returns its run, or nil when
    /// that night has no answer yet: the fixture stops there (its requests so far are the plan's).
    static func playRequests(_ fixture: Fixture, features: [ExtractionFeature], engine: ExtractionEngine,
                             answer: (String, ConversationInput) async throws -> ExtractionRun?) async throws {
        guard let nights = fixture.nights else { return }
        guard let zone = TimeZone(identifier: fixture.reference.timezone) else {
            throw EvalRunError(.invalidFixture, "fixture '\(fixture.id)': reference.timezone '\(fixture.reference.timezone)' is not a known time zone")
        }
        var state = ConversationState()
        var earlier: [FixtureMessage] = []
        for (index, night) in nights.enumerated() {
            let context = Array(earlier.suffix(ConversationReader.defaultContextMessages))
            var input = Self.input(fixture, night: night, context: context, zone: zone)
            input.state = state
            var run = ExtractionRun()
            if !night.messages.isEmpty {
                guard let answered = try await answer(Fixture.nightID(fixture.id, index + 1), input) else { return }
                run = answered
            }
            let request = NightRequest(now: night.now.date, timeZone: zone, shownRefs: engine.shownRefs(input, features: features),
                                       shownMessages: Set((context + night.messages).map(\.id)),
                                       participants: Set(fixture.participants.map(\.id)))
            state = Reconciliation.apply(state, request: request, answer: NightAnswer(extraction: run.extraction, input: input)).state
            earlier += night.messages
        }
    }

    /// `engine` answering with the labels' answer of one night (`LabelsAnswerProvider(night:)`), its settings kept.
    static func engine(_ engine: ExtractionEngine, night: NightAnswer) throws -> ExtractionEngine {
        var labelled = try ExtractionEngine(prompts: engine.prompts, provider: LabelsAnswerProvider(night: night), windowing: engine.windowing,
                                            promptVersions: engine.promptVersions, registry: engine.registry)
        labelled.mode = engine.mode
        return labelled
    }

    /// The nights after `index` of a fixture stopped there, each a failed extraction of every feature.
    static func notPlayed(_ fixture: Fixture, after index: Int, nights: Int, variant: EvalVariantSpec) -> [EvalUnitError] {
        ((index + 1)..<nights).flatMap { later in
            variant.features.map {
                EvalUnitError(fixture: Fixture.nightID(fixture.id, later + 1), feature: $0,
                              message: "not played: the recorded answer of night \(index + 1) is missing, and this night's request depends on it")
            }
        }
    }

    /// The engine's answer for one night (its messages after their context, with the state's open items); a failed
    /// extraction answers nothing that night and is counted as an error of it.
    private static func extracted(_ input: ConversationInput, night: FixtureNight, id: String, variant: EvalVariantSpec,
                                  engine: ExtractionEngine? = nil, into outcome: inout EvalRunner.FixtureOutcome) async -> NightAnswer {
        guard !night.messages.isEmpty else { return NightAnswer() }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let run = try await (engine ?? variant.engine).extract(input, features: variant.features)
            outcome.latenciesMs.append((clock.now - start).seconds * 1000)
            for feature in variant.features {
                let notes = run.extraction.notes.filter { $0.feature == feature }
                let counts = EvalRunner.grounding(notes, tally: run.extraction.grounding[feature] ?? GroundingTally())
                outcome.grounding[feature] = outcome.grounding[feature].map { $0 + counts } ?? counts
                outcome.notes += notes.map { EvalItemNote(fixture: id, note: $0) }
            }
            outcome.usage += run.usage
            outcome.requests += run.requests
            outcome.reasks += run.reasks
            return NightAnswer(extraction: run.extraction, input: input)
        } catch {
            outcome.latenciesMs.append((clock.now - start).seconds * 1000)
            if case ExtractionError.invalidOutput? = error as? ExtractionError { outcome.reasks += 1 }
            outcome.errors += variant.features.map {
                EvalUnitError(fixture: id, feature: $0, message: RecordedAnswerBook.problem(error) ?? "\(error)",
                              outage: (error as? LLMError)?.outage != nil)
            }
            return NightAnswer()
        }
    }
}
