import RecipeModels

extension SyncSummary.Verdict {
    /// The exit status of `recipes sync` for this verdict (docs/commands.md, `recipes sync`): `0` complete, `75` work left for a
    /// later run (EX_TEMPFAIL), `1` a recipe failed, `77` the credentials were refused (EX_NOPERM).
    var exitStatus: Int32 {
        switch self {
        case .complete: 0
        case .workLeft: 75
        case .someFailed: 1
        case .credentialsRefused: 77
        }
    }
}

extension SyncSummary {
    /// The exit status of `recipes sync` for this run (see `Verdict.exitStatus`).
    var exitStatus: Int32 { verdict.exitStatus }
}
