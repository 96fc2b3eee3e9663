import Foundation

/// The fixed moments tests run at, so no test depends on today's date.
public enum FixedTime {
    /// 2026-03-04T17:00:00Z: Wednesday noon in New York, three days before the Saturday the demo data and the
    /// harness workloads plan around.
    public static let wednesdayNoon = Date(timeIntervalSince1970: 1_772_643_600)
}
