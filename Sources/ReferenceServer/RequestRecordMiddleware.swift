import Foundation
import Hummingbird

/// The outermost middleware: gives each request its `RequestRecord` and writes the request-log line when it ends.
struct RequestRecordMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The log, when `--request-log` is given.
    let log: RequestLog?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let expected = request.headers[.contentLength].flatMap { Int64($0) }
        let chunked = request.headers[.transferEncoding]?.lowercased().contains("chunked") ?? false
        let record = RequestRecord(start: Date(), expectedLength: expected, chunked: chunked)
        var context = context
        context.record = record
        do {
            let response = try await next(request, context)
            write(record, request, status: response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            write(record, request, status: error.status.code)
            throw error
        } catch {
            write(record, request, status: nil)
            throw error
        }
    }

    private func write(_ record: RequestRecord, _ request: Request, status: Int?) {
        guard let log else { return }
        log.append(.init(start: RequestLog.timestamp(record.start), end: RequestLog.timestamp(Date()),
                         method: request.method.rawValue, path: request.uri.path, status: status,
                         bytesReceived: record.bytesReceived, bodyComplete: record.bodyComplete, fault: record.fault))
    }
}
