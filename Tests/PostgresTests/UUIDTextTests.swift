import Foundation
import Postgres
import Testing

/// UUIDs are written and read byte-wise (issue 15: Foundation's `uuidString` formats with `snprintf` and
/// `UUID(uuidString:)` parses with `sscanf`), with exactly Foundation's results.
@Suite struct UUIDTextTests {
    @Test func writesWhatFoundationWritesLowerCased() {
        var uuids = (0..<500).map { _ in UUID() }
        uuids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        uuids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        uuids.append(UUID(uuid: (0x0F, 0xF0, 0x1A, 0xA1, 0x09, 0x90, 0xBC, 0xCB, 0xDE, 0xED, 0x12, 0x21, 0x34, 0x43, 0x56, 0x65)))
        for uuid in uuids {
            #expect(uuid.postgresValue == uuid.uuidString.lowercased())
            #expect(UUID(postgresValue: uuid.postgresValue) == uuid)
            #expect(UUID(postgresValue: uuid.uuidString) == uuid)
        }
    }

    @Test func readsWhatFoundationReads() {
        let texts = [
            "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "e621E1f8-C36c-495A-93fc-0C247a3E6e5F",
            "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "", "e621e1f8",
            "e621e1f8c36c495a93fc0c247a3e6e5f", "{e621e1f8-c36c-495a-93fc-0c247a3e6e5f}", " e621e1f8-c36c-495a-93fc-0c247a3e6e5",
            "e621e1f8-c36c-495a-93fc-0c247a3e6e5f ", "g621e1f8-c36c-495a-93fc-0c247a3e6e5f", "e621e1f8_c36c-495a-93fc-0c247a3e6e5f",
            "e621e1f8-c36c-495a-93fc0-c247a3e6e5f", "e621e1f8-c36c-495a-93fc-0c247a3e6e5é", "e621e1f8-c36c-495a-93fc-0c247a3e6e😀",
            "e621e1f8-c36c-495a-93fc-0c247a3e6e5f0", "+621e1f8-c36c-495a-93fc-0c247a3e6e5f", "e621e1f8-c36c-495a-93fc-0c247a3e6e5\u{0}",
        ]
        for text in texts {
            #expect(UUID(postgresValue: text) == UUID(uuidString: text), "\(text.debugDescription)")
        }
    }
}
