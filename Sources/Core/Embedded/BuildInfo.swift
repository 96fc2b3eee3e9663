/// What this binary is, for `--version` and every `job_runs` row.
package enum BuildInfo {
    /// The release version; `scripts/package` names the tarball after it.
    package static let version = "0.9.0"
    /// The git commit it was built from (`+dirty` when tracked files had changes), or `unknown` outside a checkout.
    package static let commit = GitCommit.value
}
