import Foundation
import Transport

/// Fetches a recipe's web page and its image for `recipes import <url>`, through the project's libcurl transport:
/// TLS verified (the system's CAs and `RECIPES_CA_BUNDLE`'s), never the server's token, redirects followed up to
/// `maxRedirects` (never from https to http), bodies limited in size, each answer within `answerDeadline`.
struct PageFetch: Sendable {
    let client: HTTPClient

    /// The most redirects one fetch follows.
    static let maxRedirects = 5
    /// The largest page read (a recipe page is rarely over 2 MiB).
    static let maxPageBytes = 8 << 20
    /// How long one answer may take to arrive once it started.
    static let answerDeadline: Duration = .seconds(60)

    /// A page or image as fetched: its bytes, the address it came from after redirects, and its media type.
    struct Fetched: Sendable {
        var data: Data
        var url: String
        var mediaType: String
    }

    /// A client for pages: no token (pages are not the server), the configured extra CA file, `recipes/<version>`.
    static func make(caBundlePath: String?, userAgent: String) throws(TransportError) -> PageFetch {
        PageFetch(client: try HTTPClient(configuration: HTTPClientConfiguration(
            userAgent: userAgent, credentials: nil, caBundlePath: caBundlePath, maxConcurrentTransfers: 2)))
    }

    /// Fetches `url` (following redirects), refusing a body over `maxBytes`; throws a message saying what went
    /// wrong and what to do.
    func fetch(_ url: String, maxBytes: Int, accept: String) async throws(CommandLineError) -> Fetched {
        var current = url
        var hops = 0
        while true {
            let sink = LimitedBody(limit: maxBytes)
            let request = HTTPRequest(
                method: .get, url: current, headers: ["Accept": accept], answerDeadline: Self.answerDeadline)
            let response: HTTPResponse
            do {
                response = try await client.send(request, streamingSuccessTo: sink)
            } catch {
                if error.kind == .bodyRefused || error.kind == .responseTooLarge {
                    throw CommandLineError("it is larger than \(maxBytes >> 20) MiB; save it and import the file if it really is a recipe")
                }
                throw CommandLineError(Self.describe(error, url: current))
            }
            switch PageRedirect.next(from: current, status: response.status, location: response.header("location"), hops: hops) {
            case .done:
                let type = response.header("content-type")?.split(separator: ";").first
                    .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                return Fetched(data: sink.data, url: current, mediaType: type)
            case .follow(let next):
                current = next
                hops += 1
            case .refuse(let message):
                throw CommandLineError(message)
            }
        }
    }

    /// A transfer failure in words, with what to do.
    static func describe(_ error: TransportError, url: String) -> String {
        let host = URLComponents(string: url)?.host ?? url
        switch error.kind {
        case .dnsFailure: return "cannot find the host \(host); check the address"
        case .connectionRefused: return "\(host) refused the connection; check the address, or try again later"
        case .connectTimeout, .timeout: return "\(host) did not answer in time; try again later"
        case .tls:
            return "the TLS certificate of \(host) did not verify (\(error.message)); recipes imports only from sites it can "
                + "verify (an extra CA goes in RECIPES_CA_BUNDLE)"
        case .invalidRequest: return "\(url) is not an address recipes can fetch (\(error.message)); give an http:// or https:// address"
        default: return "fetching \(url) failed: \(error.message)"
        }
    }
}

/// What a fetch does with one answer: it is the page, a redirect to follow, or a failure to report.
enum PageRedirect: Equatable {
    case done
    case follow(String)
    case refuse(String)

    /// The decision for an answer of `status` (with `location`) to a request of `url`, after `hops` redirects.
    static func next(from url: String, status: Int, location: String?, hops: Int) -> PageRedirect {
        switch status {
        case 200..<300:
            return .done
        case 301, 302, 303, 307, 308:
            guard let location, !location.isEmpty,
                  let target = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString
            else { return .refuse("\(url) answered \(status), a redirect without an address; check the address") }
            let scheme = URLComponents(string: target)?.scheme?.lowercased()
            guard scheme == "http" || scheme == "https" else {
                return .refuse("\(url) redirects to \(target), which is not an http(s) address; recipes does not follow it")
            }
            if url.lowercased().hasPrefix("https:"), scheme == "http" {
                return .refuse("\(url) redirects to \(target), from https to plain http; recipes does not follow it")
            }
            guard hops < PageFetch.maxRedirects else {
                return .refuse("\(url) redirects more than \(PageFetch.maxRedirects) times; check the address")
            }
            return .follow(target)
        case 401, 403:
            return .refuse("the site refused the page (\(status)); it may need a login, so save the page from a browser and import the file")
        case 404, 410:
            return .refuse("the site has no such page (\(status)); check the address")
        case 500..<600:
            return .refuse("the site failed to answer (\(status)); try again later")
        default:
            return .refuse("the site answered \(status) instead of the page; check the address")
        }
    }
}

/// Collects a body up to a limit, refusing the transfer beyond it.
final class LimitedBody: ResponseBodySink, @unchecked Sendable {
    // @unchecked Sendable: the transport calls `receive` on its one thread, in order, and the caller reads `data` only
    // after `send` returned (the transfer is over); nothing else touches `collected`.
    private let limit: Int
    private var collected = Data()

    init(limit: Int) { self.limit = limit }

    var data: Data { collected }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard collected.count + bytes.count <= limit else { return false }
        collected.append(contentsOf: bytes)
        return true
    }
}
