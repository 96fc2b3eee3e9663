import Extractors
import Testing

/// How a command picks its request mode: a flag, else `MESSAGEAI_REQUEST_MODE`, else combined; a bad value is an error
/// naming the variable.
@Suite struct RequestModeTests {
    @Test func combinedUnlessAFlagOrTheSettingSaysOtherwise() throws {
        #expect(try RequestMode.resolve(environment: [:]) == .combined)
        #expect(try RequestMode.resolve(environment: ["MESSAGEAI_REQUEST_MODE": ""]) == .combined)
        #expect(try RequestMode.resolve(environment: ["MESSAGEAI_REQUEST_MODE": "per-feature"]) == .perFeature)
        #expect(try RequestMode.resolve(environment: ["MESSAGEAI_REQUEST_MODE": " Combined "]) == .combined)
        #expect(try RequestMode.resolve(perFeature: true, environment: [:]) == .perFeature)
        #expect(try RequestMode.resolve(combined: true, environment: ["MESSAGEAI_REQUEST_MODE": "per-feature"]) == .combined)
        #expect(try RequestMode.resolve(perFeature: true, environment: ["MESSAGEAI_REQUEST_MODE": "combined"]) == .perFeature)
    }

    @Test func aBadValueOrBothFlagsStopTheCommand() {
        let bad = #expect(throws: RequestModeError.self) { try RequestMode.resolve(environment: ["MESSAGEAI_REQUEST_MODE": "per_feature"]) }
        #expect(bad?.description == "MESSAGEAI_REQUEST_MODE='per_feature' is not a request mode: use combined or per-feature")
        let both = #expect(throws: RequestModeError.self) { try RequestMode.resolve(combined: true, perFeature: true, environment: [:]) }
        #expect(both?.description.contains("pick one") == true)
    }
}
