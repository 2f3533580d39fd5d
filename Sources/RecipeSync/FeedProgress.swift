/// Whether a page of the server's changes feed moves a pull forward (docs/http-api.md): a pure decision, so that a
/// feed that never ends — `more` with the same `next`, a `next` going backwards, changes the cursor has passed, a
/// server id that changes on every page — ends the pull with a message instead of making it (and cron's runs, and
/// the REPL's `sync &`) run for ever.
enum FeedProgress: Equatable {
    /// Apply the page (and, when it says more follow, ask from its `next`).
    case proceed
    /// End the pull here, for this reason (in words).
    case stop(String)

    /// What to do with `page`, asked from position `since` of the feed of the server the cursor names
    /// (`cursorServer`), when the server's id has already changed `serverChanges` times in this run.
    static func judge(_ page: ChangesPage, since: Int64, cursorServer: String?, serverChanges: Int) -> FeedProgress {
        if page.server != cursorServer, serverChanges > 0 {
            return .stop("the server's id changed again within one run (\(cursorServer ?? "none") to \(page.server)): "
                + "a server that keeps changing its id cannot be followed; check server.url")
        }
        if let first = page.changes.first, first.seq <= since {
            return .stop("the server's changes feed answered a change at position \(first.seq) when asked for those "
                + "after \(since); check server.url")
        }
        if let last = page.changes.last, page.next < last.seq {
            return .stop("the server's changes feed said the next page starts at \(page.next), before its own last "
                + "change (\(last.seq)); check server.url")
        }
        if page.more, page.next <= since {
            return .stop("the server's changes feed said more changes follow but did not move past position \(since); "
                + "check server.url")
        }
        return .proceed
    }
}
