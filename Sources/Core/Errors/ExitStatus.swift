/// The exit statuses a command ends with beyond 0 (done) and 1 (failed), as docs/operations.md "Exit statuses" lists
/// them; one place, because the commands, the eval's baseline check and the tests must agree on them.
package enum ExitStatus {
    /// Some of the work failed (conversations failed or quarantined, an eval gate missed).
    package static let someFailed: Int32 = 2
    /// The command did its work but the reader of its stdout went away before it was all written (`scan | head`).
    package static let readerWentAway: Int32 = 3
    /// A bad setting: a usage error, like a bad flag (EX_USAGE).
    package static let badSetting: Int32 = 64
    /// A run stopped by an outage (EX_TEMPFAIL: try again later): the model server or the database, never the
    /// conversations.
    package static let outage: Int32 = 75
}
