import Extractors

extension ExtractionFeature {
    /// Every feature, comma-separated: what `--features` means when it is not given.
    static var allNames: String { allCases.map(\.rawValue).joined(separator: ",") }
}
