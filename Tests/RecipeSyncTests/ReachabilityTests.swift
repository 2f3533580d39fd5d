import Foundation
import HTTPTestSupport
import Locking
import Testing
import Transport
@testable import RecipeSync

@Suite("Reachability: one answer to 'can this destination be reached', weighed against the transfers")
struct ReachabilityTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    typealias Evidence = ReachabilityRule.Evidence
    typealias Probe = ReachabilityRule.ProbeAnswer

    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    @Test("The rule: a recent answer from the destination means reachable whatever the probe said; else a fresh probe; else probe",
          arguments: [
              // Nothing known: probe.
              (Evidence(), 0, .probe),
              // A probe's answer stands for a second, either way.
              (Evidence(probe: Probe(reachable: true, at: at(0))), 0.5, .reachable),
              (Evidence(probe: Probe(reachable: false, at: at(0))), 0.5, .unreachable),
              (Evidence(probe: Probe(reachable: false, at: at(0))), 1, .probe),
              // A transfer answered 3 s ago: reachable, although the probe (a lost SYN on a busy link) said no.
              (Evidence(probe: Probe(reachable: false, at: at(2.8)), lastTransfer: at(0)), 3, .reachable),
              (Evidence(lastTransfer: at(0)), 9.9, .reachable),
              (Evidence(lastTransfer: at(0)), 10, .probe),
              // Transfers still in flight: their link's last answer counts for longer (a long upload).
              (Evidence(lastTransfer: at(0), inFlight: 2), 60, .reachable),
              (Evidence(probe: Probe(reachable: false, at: at(59.5)), lastTransfer: at(0), inFlight: 1), 60, .reachable),
              (Evidence(lastTransfer: at(0), inFlight: 1), 120, .probe),
              // A failure to connect after the last answer, nothing else in flight: that answer is void.
              (Evidence(lastTransfer: at(0), lastConnectFailure: at(1)), 2, .probe),
              (Evidence(probe: Probe(reachable: false, at: at(1.5)), lastTransfer: at(0), lastConnectFailure: at(1)), 2,
               .unreachable),
              // …unless other transfers are in flight on the link that answered (one SYN lost among them).
              (Evidence(lastTransfer: at(0), lastConnectFailure: at(1), inFlight: 3), 2, .reachable),
              // An answer after the failure counts again.
              (Evidence(lastTransfer: at(2), lastConnectFailure: at(1)), 3, .reachable),
              // Evidence dated after now (the wall clock stepped back) is not used.
              (Evidence(probe: Probe(reachable: true, at: at(5)), lastTransfer: at(5)), 0, .probe),
          ] as [(Evidence, TimeInterval, ReachabilityRule.Answer)])
    func rule(evidence: Evidence, now: TimeInterval, expected: ReachabilityRule.Answer) {
        #expect(ReachabilityRule.decide(evidence, now: Self.at(now)) == expected)
    }

    /// A probe recording where it was asked to connect, answering `answer`.
    static func recordingProbe(_ asked: Locked<[String]>, answer: Locked<Bool>) -> ConnectProbe {
        ConnectProbe { host, port in
            asked.withLock { $0.append("\(host):\(port)") }
            return answer.withLock { $0 }
        }
    }

    @Test("The probe goes where libcurl would connect: the proxy named in the environment, the server itself under no_proxy")
    func probesTheProxy() async {
        let asked = Locked<[String]>([])
        let probe = Self.recordingProbe(asked, answer: Locked(true))
        let proxied = Reachability(probe: probe, environment: ["http_proxy": "http://proxy.lan:3128"])
        #expect(await proxied.isReachable("http://recipes.example:8080/v1"))
        let exempt = Reachability(probe: probe, environment: ["http_proxy": "proxy.lan:3128", "no_proxy": "example"])
        #expect(await exempt.isReachable("http://recipes.example:8080/v1"))
        #expect(asked.withLock { $0 } == ["proxy.lan:3128", "recipes.example:8080"])
        #expect(proxied.probeCount == 1 && exempt.probeCount == 1)
    }

    @Test("An answer from the destination makes it reachable without a probe, even when probes fail; a failure to connect, or a network change, forgets it")
    func transfersAreEvidence() async throws {
        let asked = Locked<[String]>([])
        let answer = Locked(false)
        let clock = Locked(Self.t0)
        let url = "http://127.0.0.1:9/v1"
        let reachability = Reachability(
            probe: Self.recordingProbe(asked, answer: answer), environment: [:], now: { clock.withLock { $0 } })
        #expect(!(await reachability.isReachable(url)))
        #expect(reachability.probeCount == 1)

        let status = try await reachability.transfer(to: url) { () async throws(TransportError) in 200 }
        #expect(status == 200)
        #expect(reachability.isKnownReachable(url))
        #expect(await reachability.isReachable(url))
        #expect(reachability.probeCount == 1)  // the transfer answered it

        clock.withLock { $0 = $0.addingTimeInterval(1) }
        await #expect(throws: TransportError.self) {
            try await reachability.transfer(to: url) { () async throws(TransportError) -> Int in
                throw TransportError(kind: .connectionRefused, message: "refused")
            }
        }
        #expect(!reachability.isKnownReachable(url))
        #expect(!(await reachability.isReachable(url)))
        #expect(reachability.probeCount == 2)

        answer.withLock { $0 = true }
        clock.withLock { $0 = $0.addingTimeInterval(2) }
        _ = try await reachability.transfer(to: url) { () async throws(TransportError) in 204 }
        #expect(reachability.isKnownReachable(url))
        reachability.forgetEvidence()
        #expect(!reachability.isKnownReachable(url))
        #expect(await reachability.isReachable(url))
        #expect(reachability.probeCount == 3)
    }

    @Test("Unreachable through a proxy: the words name the server and the proxy that could not be reached")
    func proxyWords() async throws {
        let port = try LoopbackForwardProxy.closedPort()
        let reachability = Reachability(
            probe: .live(timeout: .seconds(5)), environment: ["http_proxy": "http://127.0.0.1:\(port)"])
        #expect(!(await reachability.isReachable("http://recipes.test:8080/v1")))
        #expect(reachability.unreachableWords("http://recipes.test:8080/v1") == """
            cannot reach recipes.test:8080 through the proxy 127.0.0.1:\(port): connection refused (the proxy comes from \
            http_proxy, https_proxy or all_proxy; hosts in no_proxy are reached directly)
            """)
    }
}
