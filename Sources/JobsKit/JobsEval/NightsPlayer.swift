import AgentRuntime
import Extractors
import Foundation

/// Plays one fixture night by night through the one reconciliation (docs/over-nights.md, "Eval over nights"): each
/// night's request carries the state the earlier nights left, its answer goes through `Reconciliation.apply`, and what
/// the app then shows the reference user is that night's prediction. A one-night fixture is a chat of one night.
enum NightsPlayer {
    /// Messages of earlier nights a night's request carries before its new ones, as the scan's context does.
    static let contextMessages = 20

    /// With `--provider labels` every answer is written from the night's labels (`LabelAnswers`); with any other
    /// provider the engine reads the night's messages with their context, as today's scan does (new items only).
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
            let context = Array(earlier.suffix(contextMessages))
            let request = NightRequest(now: night.now.date, timeZone: zone, shownRefs: Set(state.openItems.map(\.ref)),
                                       shownMessages: Set((context + night.messages).map(\.id)),
                                       participants: Set(fixture.participants.map(\.id)))
            let answer = labels
                ? LabelAnswers.answer(state, request: request, expected: night.expected, user: user)
                : await extracted(fixture, night: night, id: id, context: context, zone: zone, variant: variant, into: &outcome)
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
    /// `contextMessages`), "now" the night's. `--export-requests` builds the same, so recorded answers replay.
    static func input(_ fixture: Fixture, night: FixtureNight, context: [FixtureMessage], zone: TimeZone) -> ConversationInput {
        let participants = fixture.participants.map { Extractors.Participant(id: $0.id, name: $0.name) }
        return ConversationInput(
            conversationID: fixture.id, name: FixtureConversation.neutralName(participants, user: fixture.reference.user),
            isGroup: participants.count > 2, participants: participants,
            messages: (context + night.messages).map { InputMessage(id: $0.id, senderID: $0.sender, sentAt: $0.sentAt.date, text: $0.text) },
            firstNewIndex: context.count, timeZone: zone, now: night.now.date,
            viewer: participants.first { $0.id == fixture.reference.user })
    }

    /// Each night of a nights fixture that has messages, with its id (`Fixture.nightID`) and what the engine reads.
    static func inputs(_ fixture: Fixture) throws -> [(id: String, input: ConversationInput)] {
        guard let nights = fixture.nights else { return [(fixture.id, try FixtureConversation.input(fixture))] }
        guard let zone = TimeZone(identifier: fixture.reference.timezone) else {
            throw EvalRunError(.invalidFixture, "fixture '\(fixture.id)': reference.timezone '\(fixture.reference.timezone)' is not a known time zone")
        }
        var earlier: [FixtureMessage] = []
        var out: [(id: String, input: ConversationInput)] = []
        for (index, night) in nights.enumerated() {
            if !night.messages.isEmpty {
                out.append((Fixture.nightID(fixture.id, index + 1),
                            input(fixture, night: night, context: Array(earlier.suffix(contextMessages)), zone: zone)))
            }
            earlier += night.messages
        }
        return out
    }

    /// The engine's new items for one night (its messages after their context); a failed extraction answers nothing
    /// that night and is counted as an error of it.
    private static func extracted(_ fixture: Fixture, night: FixtureNight, id: String, context: [FixtureMessage], zone: TimeZone,
                                  variant: EvalVariantSpec, into outcome: inout EvalRunner.FixtureOutcome) async -> NightAnswer {
        guard !night.messages.isEmpty else { return NightAnswer() }
        let input = Self.input(fixture, night: night, context: context, zone: zone)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let run = try await variant.engine.extract(input, features: variant.features)
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
            return NightAnswer(extraction: run.extraction)
        } catch {
            outcome.latenciesMs.append((clock.now - start).seconds * 1000)
            if case ExtractionError.invalidOutput? = error as? ExtractionError { outcome.reasks += 1 }
            outcome.errors += variant.features.map {
                EvalUnitError(fixture: id, feature: $0, message: "\(error)", outage: (error as? LLMError)?.outage != nil)
            }
            return NightAnswer()
        }
    }
}
