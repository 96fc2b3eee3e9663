/// The one wording of a setting that does not parse, for flags and environment variables alike, wherever the setting
/// is read (the command line's settings, the prompt pins the engine builder reads).
package enum SettingText {
    /// `NAME='value' is not valid: expected …` (`--flag 'value'` for a flag); the value is cut to 80 characters.
    package static func notValid(_ name: String, value: String?, expected: String) -> String {
        "\(name)" + (value.map { (name.hasPrefix("-") ? " " : "=") + "'\($0.prefix(80))'" } ?? "") + " is not valid: expected \(expected)"
    }
}
