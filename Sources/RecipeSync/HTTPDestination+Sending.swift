import Foundation
import RecipeModels
import RecipeStore
import Transport

/// Sending a request of the contract and reading a failure: what every request of `HTTPDestination` shares.
extension HTTPDestination {
    /// Sends `request`, turning a failure without an answer into a `StepFailure`.
    func send(_ request: HTTPRequest, what: String,
              progress: (@Sendable (TransferProgress) -> Void)? = nil,
              sink: (any ResponseBodySink)? = nil) async throws -> HTTPResponse {
        do {
            return try await reachability.transfer(to: api.baseURL) { () async throws(TransportError) in
                try await client.send(request, progress: progress, streamingSuccessTo: sink)
            }
        } catch {
            if error.kind == .halted {
                // Another request's credentials were refused and the client sends nothing more: the same refusal
                // for this chain (the run stops, the recipe stays as it was).
                throw StepFailure(.credentials, "not sent: the server refused the credentials")
            }
            if let mistake = setUpMistake(.transport(error.kind, message: error.message)) { throw mistake }
            let outcome = TransferOutcome.classify(.failure(error), now: settings.now(), redacting: settings.token)
            var failure = StepFailure.from(outcome, what: what) ?? StepFailure(.permanent, "\(what): \(error.message)")
            if let advice = StepFailure.advice(for: error.kind) { failure.message += "; " + advice }
            throw failure
        }
    }

    /// The failure an unexpected answer to `request` stands for: a set-up mistake when the answer shows that the
    /// destination is not a recipes server (`DestinationDiagnosis`), else as `TransferOutcome` classifies it.
    func failure(
        _ response: HTTPResponse, what: String, request: DestinationDiagnosis.ContractRequest = .always
    ) -> StepFailure {
        let body = String(decoding: response.body.prefix(512), as: UTF8.self)
        if let mistake = setUpMistake(.answer(status: response.status, request: request, body: body)) { return mistake }
        let outcome = TransferOutcome.classify(.success(response), now: settings.now(), redacting: settings.token)
        return StepFailure.from(outcome, what: what)
            ?? StepFailure(.permanent, "\(what): unexpected answer HTTP \(response.status)")
    }

    /// The set-up mistake `observation` of the server shows, if it shows one: the whole run stops with it.
    func setUpMistake(_ observation: DestinationDiagnosis.Observation) -> StepFailure? {
        guard let destination = DestinationDiagnosis.Destination(url: api.baseURL) else { return nil }
        let diagnosis = DestinationDiagnosis.classify(observation, of: destination)
        guard diagnosis.isSetUpMistake, let words = diagnosis.words else { return nil }
        return StepFailure(.setup, TransferOutcome.redact(words, token: settings.token))
    }
}

/// Hands a download's bytes from the transport to the images folder, counting them for progress.
final class DownloadSink: ResponseBodySink, @unchecked Sendable {
    // @unchecked Sendable: the transport calls `receive` on one thread, in order; nothing else touches `received`.
    private let download: ImageDownload
    private let progress: (@Sendable (Int64) -> Void)?
    private var received: Int64 = 0

    init(_ download: ImageDownload, progress: (@Sendable (Int64) -> Void)?) {
        self.download = download
        self.progress = progress
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        progress?(received)
        return download.receive(bytes)
    }
}
