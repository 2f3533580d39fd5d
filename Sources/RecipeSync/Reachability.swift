import Foundation
import Locking
import OperationEngine
import Transport

/// The one answer to "can the destination at this URL be reached now?", asked by the run before it claims anything,
/// by the idle cron check (`FeedCheck`), by every step's and page's reachability condition, and by the watcher.
///
/// It probes the TCP connection a transfer would open — the proxy libcurl takes from the environment when one
/// applies (`ConnectProbe.connectTarget`), else the destination itself — and weighs the probe against what the
/// transfers to the destination showed (`ReachabilityRule.decide`): a transfer that just got an answer is better
/// evidence than a probe whose SYN was lost on a busy link. One instance lives in `SyncSettings`, so that a
/// watcher's passes, its long poll and its questions share what each learnt.
public final class Reachability: Sendable {
    private let probe: ConnectProbe
    private let environment: [String: String]
    private let now: @Sendable () -> Date
    private let known = Locked<[String: ReachabilityRule.Evidence]>([:])
    private let probesMade = Locked(0)

    /// Answers with `probe` (a live TCP connect, or a test's fixed answer), reading the proxy variables from
    /// `environment` as libcurl does, on the wall clock `now`.
    public init(
        probe: ConnectProbe, environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.probe = probe
        self.environment = environment
        self.now = now
    }

    /// Whether the destination at `url` can be reached now: from the evidence when it decides, else by a probe.
    public func isReachable(_ url: String) async -> Bool {
        switch answer(url) {
        case .reachable: return true
        case .unreachable: return false
        case .probe: break
        }
        let reachable: Bool
        if let target = connectTarget(url) {
            probesMade.withLock { $0 += 1 }
            reachable = await probe.isReachable(host: target.host, port: target.port)
        } else {
            reachable = false
        }
        let at = now()
        known.withLock { $0[url, default: ReachabilityRule.Evidence()].probe = .init(reachable: reachable, at: at) }
        return reachable
    }

    /// Whether the destination at `url` is known to be reachable without probing (the engine then makes a step ready
    /// without starting a task to ask: a 1,000-recipe sync asks about 2,000 times).
    public func isKnownReachable(_ url: String) -> Bool { answer(url) == .reachable }

    /// How many probes this owner has made (each a TCP connection opened, or tried): what a test of "no polling"
    /// counts, and what the watcher reports.
    public var probeCount: Int { probesMade.withLock { $0 } }

    /// Forgets what was learnt of every destination: the network changed (a route came or went), so answers and
    /// transfers from before say nothing about now. (Transfers still in flight stay counted until they end.)
    public func forgetEvidence() {
        known.withLock { known in
            for url in known.keys { known[url] = ReachabilityRule.Evidence(inFlight: known[url]?.inFlight ?? 0) }
        }
    }

    /// Sends one transfer to the destination at `url` through `transfer`, keeping what it shows: an answer (any
    /// status) is evidence the destination is reachable; a failure to connect forgets the last probe's answer and
    /// counts against the transfers' evidence (`ReachabilityRule`).
    public func transfer<Answer>(
        to url: String, _ transfer: () async throws(TransportError) -> Answer
    ) async throws(TransportError) -> Answer {
        known.withLock { $0[url, default: ReachabilityRule.Evidence()].inFlight += 1 }
        do {
            let answer = try await transfer()
            let at = now()
            known.withLock {
                $0[url, default: ReachabilityRule.Evidence()].inFlight -= 1
                $0[url, default: ReachabilityRule.Evidence()].lastTransfer = at
            }
            return answer
        } catch {
            let at = now()
            let failedToConnect = [.connectionRefused, .connectTimeout, .dnsFailure].contains(error.kind)
            known.withLock {
                $0[url, default: ReachabilityRule.Evidence()].inFlight -= 1
                if failedToConnect {
                    $0[url, default: ReachabilityRule.Evidence()].probe = nil
                    $0[url, default: ReachabilityRule.Evidence()].lastConnectFailure = at
                }
            }
            throw error
        }
    }

    /// The reachability condition of the steps and pages toward `url`: the engine asks this owner (nil for a URL
    /// without a host).
    public func condition(for url: String) -> ReachabilityCondition? {
        guard let target = ConnectProbe.hostAndPort(of: url) else { return nil }
        return ReachabilityCondition(host: target.host, port: target.port, probe: Destination(owner: self, url: url))
    }

    /// Why the destination at `url` cannot be reached, in words, from what the last probe saw
    /// (`cannot reach host:port: no route to the host …`, or which proxy could not be reached).
    public func unreachableWords(_ url: String) -> String {
        guard let direct = ConnectProbe.hostAndPort(of: url), let destination = DestinationDiagnosis.Destination(url: url)
        else { return "cannot reach \(url)" }
        let target = connectTarget(url) ?? direct
        let failure = probe.lastFailure(host: target.host, port: target.port)
        if target != direct {
            let proxy = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
            let why: String = switch failure {
            case .unresolved: ": its name does not resolve"
            case .refused: ": connection refused"
            case .unreachable(let reason): ": no route to it (\(reason))"
            case .timedOut: ": no answer"
            case nil: ""
            }
            return "cannot reach \(destination.hostAndPort) through the proxy \(proxy)\(why) (the proxy comes from "
                + "http_proxy, https_proxy or all_proxy; hosts in no_proxy are reached directly)"
        }
        guard let failure, let words = DestinationDiagnosis.classify(.connect(failure), of: destination).words else {
            return "cannot reach \(destination.hostAndPort)"
        }
        return words
    }

    /// What the rule answers for `url` now.
    private func answer(_ url: String) -> ReachabilityRule.Answer {
        let evidence = known.withLock { $0[url] } ?? ReachabilityRule.Evidence()
        return ReachabilityRule.decide(evidence, now: now())
    }

    /// Where a transfer to `url` opens its TCP connection (the proxy, or the destination).
    private func connectTarget(_ url: String) -> (host: String, port: Int)? {
        ConnectProbe.connectTarget(of: url, environment: environment)
    }

    /// The engine's view of one destination of this owner.
    private struct Destination: ReachabilityProbe {
        let owner: Reachability
        let url: String

        func isReachable(host: String, port: Int) async -> Bool { await owner.isReachable(url) }
        func isKnownReachable(host: String, port: Int) -> Bool { owner.isKnownReachable(url) }
    }
}
