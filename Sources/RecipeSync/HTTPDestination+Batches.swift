import Foundation
import OperationEngine
import RecipeModels
import Transport

/// The run's data loaders: one for image checks (`POST /v1/images/missing`), one for recipe writes
/// (`POST /v1/recipes/batch`). Each chain still asks for its own image and writes its own recipe; what the chains ask
/// within `window` of each other travels in one request.
final class Batches: Sendable {
    /// How long the first request of a window waits for others. Short: the chains whose steps become ready together
    /// (the steps of one round of the transport thread, a claim's batch of chains starting) arrive within a
    /// millisecond of each other, and every chain pays the window once per request, on top of a round trip.
    static let window: Duration = .milliseconds(2)

    /// At most this many batches of a kind in flight: what becomes ready meanwhile waits for one of them to be
    /// answered and then travels together (`Coalescer`). On a long round trip this is what fills the batches (the
    /// window alone gathers only what is ready within 2 ms) and keeps the small requests off most of the connections
    /// the image bytes need; two, so that one slow batch does not hold every chain.
    static let maxInFlight = 2

    let missing: BatchLoader<String, Bool>
    let writes: BatchLoader<BatchWrite, HTTPResponse>

    init(window: Duration, clock: any EngineClock) {
        missing = BatchLoader(
            maxBatch: ServerAPI.maxMissingQuery, maxInFlight: Self.maxInFlight, window: window, clock: clock)
        writes = BatchLoader(
            maxBatch: ServerAPI.maxBatchWrites, maxInFlight: Self.maxInFlight, window: window, clock: clock)
    }
}

extension HTTPDestination {
    /// The server's optional requests, asked once for the run with `GET /v1/health`. Any answer but a `200` listing
    /// them (an older server, a proxy, a server failing now) is a server without them for this run: the requests every
    /// server answers are always correct. Only a request without an answer is a failure (the step's own would fail too).
    func serverFeatures() async throws -> ServerFeatures {
        try await learned().features.removing(features.refusedNames)
    }

    /// What a server that lists optional requests answers when one of them is not there after all (a proxy before
    /// it, an older instance behind a balancer): the request's route is unknown.
    static let featureGoneStatuses: Set<Int> = [404, 405, 501]

    /// Takes `feature` off for the run when `response`, the answer to its request `request`, says the route is not
    /// there (`featureGoneStatuses`); whether it did. `instead` names the requests the run sends in its place.
    func refuseFeature(_ feature: String, request: String, answered response: HTTPResponse, instead: String) -> Bool {
        guard Self.featureGoneStatuses.contains(response.status) else { return false }
        features.refuse(feature, words: "the server lists \(feature) in GET /v1/health but answered HTTP "
            + "\(response.status) to \(request) (a proxy before it?): this run \(instead)")
        return true
    }

    /// The round trip the features' ask measured: on a connection of its own, a connect and an exchange (two round
    /// trips). Nil when the server could not be asked.
    func roundTrip() async -> Duration? {
        try? await learned(cancelling: true).roundTrip
    }

    private func learned(cancelling: Bool = false) async throws -> FeatureCache.Learned {
        try await features.learned(cancelling: cancelling) { [self] in
            let started = settings.now()
            let response = try await send(api.health(), what: "health")
            let roundTrip = Duration.seconds(max(0, settings.now().timeIntervalSince(started)) / 2)
            return FeatureCache.Learned(
                features: response.status == 200 ? ServerFeatures(healthAnswer: response.body) : .none,
                roundTrip: roundTrip)
        }
    }

    /// Which of `images` the server lacks: as asked ahead for the claimed batch (`anticipate`), else each asked in the
    /// run's next `POST /v1/images/missing`.
    func missingInBatch(_ images: [String]) async throws -> Set<String> {
        var missing: Set<String> = []
        let destination = self
        for sha256 in images {
            let known = await checksAhead.take(sha256)
            let lacks = try await Self.asCancelledTransfer("image \(sha256.prefix(12))") {
                if let known { return known }
                return try await batches.missing.load(sha256) { images throws(StepFailure) in
                    try await destination.askMissing(images)
                }
            }
            if lacks { missing.insert(sha256) }
        }
        return missing
    }

    /// Starts asking, in one `POST /v1/images/missing` (per `ServerAPI.maxMissingQuery`), about the images of the
    /// recipes the run just claimed, when the server lists `images-missing`.
    func anticipate(images: [String]) {
        guard !images.isEmpty else { return }
        let destination = self
        checksAhead.ask(images) { images in
            guard (try? await destination.serverFeatures())?.imagesMissing == true else { return nil }
            var answers: [Bool] = []
            for start in stride(from: 0, to: images.count, by: ServerAPI.maxMissingQuery) {
                let part = Array(images[start..<min(start + ServerAPI.maxMissingQuery, images.count)])
                guard let flags = try? await destination.askMissing(part) else { return nil }
                answers += flags
            }
            return answers
        }
    }

    /// `write`'s own answer, from the run's next `POST /v1/recipes/batch`.
    func inBatch(_ write: BatchWrite) async throws -> HTTPResponse {
        let destination = self
        return try await Self.asCancelledTransfer("recipe") {
            try await batches.writes.load(write) { writes throws(StepFailure) in try await destination.sendBatch(writes) }
        }
    }

    /// `body`, a wait in a batch, whose cancellation fails as a cancelled transfer of the chain's own request would.
    private static func asCancelledTransfer<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is CancellationError {
            throw StepFailure(.permanent, "\(what): cancelled")
        }
    }

    /// One `POST /v1/images/missing` of `images`: whether each is missing. A `404` (or `405`, `501`) takes the
    /// feature off for the run (`refuseFeature`): the callers ask with `HEAD` instead.
    private func askMissing(_ images: [String]) async throws(StepFailure) -> [Bool] {
        let what = "images"
        let response = try await sendBatchRequest(api.missingImages(images), what: what)
        if refuseFeature("images-missing", request: "POST /v1/images/missing", answered: response,
                         instead: "asks about each image with HEAD /v1/images/<sha256>")
        {
            throw StepFailure(.transient(retryAfter: nil), "\(what): HTTP \(response.status); asked one at a time instead")
        }
        guard response.status == 200 else { throw failure(response, what: what) }
        switch ServerAPI.missingAnswer(response, asked: images) {
        case .success(let flags): return flags
        case .failure(let unexpected): throw StepFailure(unexpected.stepKind, "\(what): \(unexpected)")
        }
    }

    /// `POST /v1/recipes/batch` of `writes` (several, when their documents together come near the server's limit):
    /// each write's result as its own request's answer.
    private func sendBatch(_ writes: [BatchWrite]) async throws(StepFailure) -> [HTTPResponse] {
        var answers: [HTTPResponse] = []
        for part in Self.parts(of: writes) {
            let what = "recipes"
            let response = try await sendBatchRequest(api.recipesBatch(part), what: what)
            if refuseFeature("recipes-batch", request: "POST /v1/recipes/batch", answered: response,
                             instead: "sends each recipe with its own PUT or DELETE /v1/recipes/<uuid>")
            {
                // Nothing of the batch was written (its route is not there): each write goes on its own.
                throw StepFailure(.transient(retryAfter: nil), "\(what): HTTP \(response.status); sent one at a time instead")
            }
            guard response.status == 200 else { throw failure(response, what: what) }
            switch ServerAPI.batchResults(response, writes: part) {
            case .success(let results): answers += results
            case .failure(let unexpected): throw StepFailure(unexpected.stepKind, "\(what): \(unexpected)")
            }
        }
        return answers
    }

    /// `writes` in consecutive parts whose documents stay under the server's body limit.
    static func parts(of writes: [BatchWrite]) -> [[BatchWrite]] {
        var parts: [[BatchWrite]] = []
        var bytes = 0
        for write in writes {
            let size = if case .put(let prepared) = write { prepared.document.count } else { 0 }
            if parts.isEmpty || bytes + size > ServerAPI.maxBatchDocumentBytes {
                parts.append([])
                bytes = 0
            }
            parts[parts.count - 1].append(write)
            bytes += size
        }
        return parts
    }

    private func sendBatchRequest(_ request: HTTPRequest, what: String) async throws(StepFailure) -> HTTPResponse {
        do {
            return try await send(request, what: what)
        } catch let failure as StepFailure {
            throw failure
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "\(what): \(error)")
        }
    }
}
