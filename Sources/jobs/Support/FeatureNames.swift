import ArgumentParser
import Extractors

extension ExtractionFeature {
    /// Every feature, comma-separated: what `--features` means when it is not given.
    static var allNames: String { allCases.map(\.rawValue).joined(separator: ",") }

    /// The `--features` help: the registered features, listed from the registry, so a new feature shows up here.
    static func listHelp(_ lead: String = "Comma-separated features") -> ArgumentHelp {
        ArgumentHelp("\(lead): \(allCases.map(\.rawValue).joined(separator: ", ")) (default: all registered features).")
    }
}
