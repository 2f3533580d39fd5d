import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension ServerRoutes {
    /// The page size when `limit` is absent.
    static let defaultPageSize = 100
    /// The largest page size; a larger `limit` is lowered to it.
    static let maxPageSize = 1000
    /// The longest long poll, in seconds; a larger `wait` is lowered to it.
    static let maxWaitSeconds = 60.0
    /// About how many document bytes a changes page holds before it ends early (`more: true`); at least one change.
    static let maxPageBytes = 4 << 20

    /// `GET /v1/recipes?after=<uuid>&limit=N`: live recipes in UUID order, a page at a time.
    func listRecipes(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let after = try query.get("after").map { (text) throws(ServerError) -> String in
            guard UUID(uuidString: text) != nil else { throw .badQuery("after must be a recipe UUID (the next of the previous page), not \"\(text.prefix(40))\".") }
            return text
        }
        let limit = try Self.pageSize(query.get("limit"))
        let (recipes, more) = try await database.recipes(after: after, limit: limit)
        let items: [JSONAnswer] = recipes.map { summary in
            var item: [String: JSONAnswer] = ["identifier": .string(summary.identifier), "version": .integer(Int64(summary.version)),
                                              "name": .string(summary.name)]
            if let date = summary.dateModified { item["dateModified"] = .string(date) }
            return .object(item)
        }
        let next: JSONAnswer = more ? recipes.last.map { .string($0.identifier) } ?? .null : .null
        return Self.json(["recipes": .array(items), "next": next])
    }

    /// `GET /v1/changes?since=<seq>&limit=N&wait=SECONDS`: what changed after `since`, documents inline; with `wait`,
    /// an empty page is held until a change is committed, the time has passed, or the server stops.
    func changes(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let since = try query.get("since").map { (text) throws(ServerError) -> Int64 in
            guard let value = Int64(text), value >= 0 else { throw .badQuery("since must be a sequence number >= 0 (the next of the previous page), not \"\(text.prefix(40))\".") }
            return value
        } ?? 0
        let limit = try Self.pageSize(query.get("limit"))
        let wait = try query.get("wait").map { (text) throws(ServerError) -> Double in
            guard let value = Double(text), value >= 0, value.isFinite else { throw .badQuery("wait must be a number of seconds from 0 to 60, not \"\(text.prefix(40))\".") }
            return min(value, Self.maxWaitSeconds)
        } ?? 0

        var page = try await database.changes(since: since, limit: limit, maxBytes: Self.maxPageBytes)
        let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
        // `latest <= since` guards against a feed row missing from the database: the signal then says there is a
        // change, the page has none, and the poll answers at once instead of spinning.
        while page.changes.isEmpty, ContinuousClock.now < deadline, changeSignal.latest <= since, !Task.isCancelled,
              !Task.isShuttingDownGracefully {
            await waitForChange(beyond: since, until: deadline)
            page = try await database.changes(since: since, limit: limit, maxBytes: Self.maxPageBytes)
        }
        let items: [JSONAnswer] = page.changes.map { change in
            var item: [String: JSONAnswer] = ["seq": .integer(change.sequence), "uuid": .string(change.identifier),
                                              "version": .integer(Int64(change.version)), "deleted": .bool(change.document == nil)]
            if let document = change.document { item["recipe"] = .raw(ByteBuffer(bytes: document)) }
            return .object(item)
        }
        return Self.json(["server": .string(database.serverID), "changes": .array(items),
                          "next": .integer(page.changes.last?.sequence ?? since), "more": .bool(page.more)])
    }

    /// Waits for a change after `since` until `deadline`, returning early when the server begins to stop.
    private func waitForChange(beyond since: Int64, until deadline: ContinuousClock.Instant) async {
        let signal = changeSignal
        let waiting = Task { await signal.wait(beyond: since, upTo: deadline - .now) }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await waiting.value
            } onGracefulShutdown: {
                waiting.cancel()
            }
        } onCancel: {
            waiting.cancel()
        }
    }

    /// The `limit` of a page: absent → 100, over 1000 → 1000, not a whole number >= 1 → 400.
    static func pageSize(_ text: String?) throws(ServerError) -> Int {
        guard let text else { return defaultPageSize }
        guard let value = Int(text), value >= 1 else { throw .badQuery("limit must be a whole number from 1 to \(maxPageSize), not \"\(text.prefix(40))\".") }
        return min(value, maxPageSize)
    }
}

extension ServerError {
    /// 400: a query parameter the server cannot use.
    static func badQuery(_ message: String) -> ServerError { ServerError(status: .badRequest, code: "bad-request", message: message) }
}
