import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

/// One rule for a user's zone: her user_settings row, else the deployment's default, else UTC.
@Suite struct TimeZonePolicyTests {
    static let now = FixedTime.wednesdayNoon
    static let tokyo = UserTimeZonePolicy(fallback: TimeZone(identifier: "Asia/Tokyo")!)

    @Test func aConversationIsReadInItsParticipantsZoneElseTheDefault() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Self.now))
            let conversation = DemoDataset.conversationIDs.classGroup
            let input = try await db.pool.withConnection { c in
                try await ConversationReader(zones: Self.tokyo).load(conversation, now: Self.now, on: c)
            }
            #expect(input?.timeZone.identifier == DemoDataset.timeZone.identifier)
            // Nobody set a zone: the default, not UTC.
            try await db.pool.query("DELETE FROM user_settings")
            let unset = try await db.pool.withConnection { c in
                try await ConversationReader(zones: Self.tokyo).load(conversation, now: Self.now, on: c)
            }
            #expect(unset?.timeZone.identifier == "Asia/Tokyo")
            let utc = try await db.pool.withConnection { c in
                try await ConversationReader(zones: .utc).load(conversation, now: Self.now, on: c)
            }
            #expect(utc?.timeZone == TimeZone(identifier: "UTC"))
        }
    }

    @Test func unknownNamesAreNamedAndTheDefaultOnlyFillsGaps() throws {
        #expect(throws: UnknownTimeZone(name: "Mars/Base", source: "--timezone")) {
            try UserTimeZonePolicy.zone(named: "Mars/Base", source: "--timezone")
        }
        #expect(throws: UnknownTimeZone(name: "Mars/Base", source: UserTimeZonePolicy.environmentVariable)) {
            try UserTimeZonePolicy.deployment(option: nil, environment: [UserTimeZonePolicy.environmentVariable: "Mars/Base"])
        }
        #expect(try UserTimeZonePolicy.deployment(option: "Asia/Tokyo", environment: [UserTimeZonePolicy.environmentVariable: "Europe/Paris"])
            == Self.tokyo, "the option wins over the variable")
        #expect(try UserTimeZonePolicy.deployment(option: nil, environment: [UserTimeZonePolicy.environmentVariable: ""]) == .utc)
        // A stored setting that is not a zone falls back to the default: one bad row must not fail her conversations.
        #expect(Self.tokyo.zone(user: "u-1", setting: "Nowhere/City") == (TimeZone(identifier: "Asia/Tokyo")!, false))
        #expect(Self.tokyo.zone(user: "u-1", setting: nil) == (TimeZone(identifier: "Asia/Tokyo")!, true))
        #expect(Self.tokyo.zone(user: "u-1", setting: "Europe/Paris") == (TimeZone(identifier: "Europe/Paris")!, true))
    }

    @Test func theCommandRefusesAnUnknownDefaultZone() async throws {
        try await TestDatabase.with { db in
            let result = try await SpawnedProcess.run(
                ScanHarness.executable, arguments: ["scan", "--provider", "rules", "--timezone", "Mars/Base", "--database-url", db.connectionURL],
                environment: SpawnedProcess.inheritedEnvironment())
            let text = result.stderr
            #expect(result.termination != .exit(0))
            #expect(text.contains("--timezone 'Mars/Base' is not a known time zone name"), "\(text)")
        }
    }
}
