package import Foundation

/// The fixed moments tests run at, so no test depends on today's date.
package enum FixedTime {
    /// 2026-03-04T17:00:00Z: Wednesday noon in New York, three days before the Saturday the harness workloads plan
    /// around.
    package static let wednesdayNoon = Date(timeIntervalSince1970: 1_772_643_600)
    /// 2026-03-03T17:00:00Z: Tuesday noon in New York. The demo loaded then plans its week around Saturday March 7
    /// (its first Saturday at least four days ahead), with the party RSVP due tomorrow, Wednesday March 4.
    package static let tuesdayNoon = wednesdayNoon.addingTimeInterval(-86_400)
}
