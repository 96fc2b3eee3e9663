/// What this binary is, for `--version` and every `job_runs` row.
public enum BuildInfo {
    /// The release version; `scripts/package` names the tarball after it.
    public static let version = "0.9.0"
    /// The git commit it was built from (`+dirty` when tracked files had changes), or `unknown` outside a checkout.
    public static let commit = GitCommit.value
}
