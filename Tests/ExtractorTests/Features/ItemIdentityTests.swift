@testable import Extractors
import Testing

/// Two items of one message and date are one item only when they are a repeat (`ItemIdentity`), and a kept second
/// item gets a key of its own that is the same on every run.
@Suite struct ItemIdentityTests {
    static let lantern = "Bring a lantern for the lantern walk"
    static let cups = "Bring cups to the lantern walk"

    @Test func repeatsAreOneItemAndDistinctItemsAreTwo() {
        #expect(ItemIdentity.same(Self.lantern, ["m1", "m2"], "Reminder: bring a lantern for the lantern walk", ["m1", "m2"]))
        #expect(ItemIdentity.same(Self.lantern, ["m1"], "Bring a lantern for the lantern walk!", ["m1", "m9", "m10"]), "nearly the same words")
        #expect(!ItemIdentity.same(Self.lantern, ["m1", "m2", "m3"], Self.cups, ["m1", "m7", "m8"]), "other messages")
        #expect(!ItemIdentity.same("Amy runs the water station at Field Day", ["m1", "m3", "m4"],
                                   "Raj runs the relay races at Field Day", ["m1", "m2", "m4"]), "other words")
    }

    @Test func aSecondDistinctItemGetsAStableKeyOfItsOwn() {
        func item(_ task: String, _ sources: [String]) -> DeadlineItem {
            DeadlineItem(task: task, deadline: .init(year: 2026, month: 11, day: 11)!, time: nil, category: .other, priority: "medium",
                         details: nil, datePhrase: nil, modelDate: nil, sources: sources)
        }
        var items: [DeadlineItem] = []
        let feature = Deadlines()
        feature.merge(item(Self.lantern, ["m1", "m2", "m3"]), into: &items)
        feature.merge(item(Self.cups, ["m1", "m7", "m8"]), into: &items)
        feature.merge(item("Reminder: " + Self.cups.lowercased(), ["m1", "m7", "m8"]), into: &items)
        #expect(items.map(\.task) == [Self.lantern, Self.cups])
        #expect(items[0].mergeKey == "m1:2026-11-11")
        #expect(items[1].mergeKey == "m1:2026-11-11~\(ItemIdentity.fingerprint(Self.cups))")
        #expect(ItemIdentity.fingerprint(Self.cups) == ItemIdentity.fingerprint("cups, bring to the Lantern walk"), "word order and case do not matter")
        #expect(ItemIdentity.fingerprint(Self.cups).count == 8)
    }

    @Test func aDecisionAboutStrangersIsNamed() {
        #expect(FieldWords.subjectName("Maria drives to Saturday's game") == "maria")
        #expect(FieldWords.subjectName("Reto's family brings a lemon cake") == "reto")
        #expect(FieldWords.subjectName("Everyone brings a dish") == nil)
        #expect(FieldWords.subjectName("Farewell gift for Frau Huber is a photo book") == nil)
        #expect(FieldWords.properNames("Farewell gift for Frau Huber, designed by Chloé, paid on Monday") == ["frau", "huber", "chloé"])
    }
}
