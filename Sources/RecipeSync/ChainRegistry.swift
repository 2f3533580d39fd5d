import Foundation
import Locking
import OperationEngine

/// Why a recipe's chain was stopped before it finished.
enum StopReason: Sendable, Equatable {
    /// `recipes cancel` (in any process): the recipe becomes `cancelled`.
    case user
    /// The run was interrupted (Ctrl-C): the recipe stays as it was, for a later run.
    case interrupted
    /// The server refused the credentials: the run stops, the recipe stays as it was.
    case credentials
    /// Another process took the lease over (this one was too slow to renew it): stop at once.
    case leaseLost
    /// The destination is not a recipes server (a set-up mistake): the run stops, the recipe stays as it was.
    case setup
}

/// The chains in flight in this process, so that a cancellation found by the poller, Ctrl-C or a refused token
/// reaches the chain of a recipe, wherever its steps are.
final class ChainRegistry: Sendable {
    private struct Entry {
        var chain: AnyProcedure?
        var stop: StopReason?
    }

    private struct State {
        var entries: [Int64: Entry] = [:]
        var stopAll: StopReason?
    }

    private let state = Locked(State())

    /// Registers `chain` (a recipe's group) for recipe `id`; returns the stop reason instead when it was already
    /// stopped (the chain must then not be added).
    func register(_ id: Int64, chain: AnyProcedure) -> StopReason? {
        state.withLock { state in
            if let reason = state.stopAll ?? state.entries[id]?.stop { return reason }
            state.entries[id] = Entry(chain: chain)
            return nil
        }
    }

    /// Why recipe `id`'s chain was stopped, if it was.
    func stopReason(_ id: Int64) -> StopReason? {
        state.withLock { $0.entries[id]?.stop ?? $0.stopAll }
    }

    /// Stops recipe `id`'s chain (the first reason wins) and cancels it.
    func stop(_ id: Int64, _ reason: StopReason) {
        let chain: AnyProcedure? = state.withLock { state in
            guard state.entries[id]?.stop == nil else { return nil }
            state.entries[id, default: Entry()].stop = reason
            return state.entries[id]?.chain
        }
        chain?.cancel(reason: .requested(Self.words(reason)))
    }

    /// Stops every chain, present and future (Ctrl-C, refused credentials).
    func stopAll(_ reason: StopReason) {
        let chains: [AnyProcedure] = state.withLock { state in
            if state.stopAll == nil { state.stopAll = reason }
            var running: [AnyProcedure] = []
            for (id, entry) in state.entries where entry.stop == nil {
                state.entries[id]?.stop = reason
                if let chain = entry.chain { running.append(chain) }
            }
            return running
        }
        for chain in chains { chain.cancel(reason: .requested(Self.words(reason))) }
    }

    /// Whether the whole run was stopped.
    var isStopped: Bool { state.withLock { $0.stopAll != nil } }

    /// The ids of the chains in flight.
    var ids: [Int64] { state.withLock { Array($0.entries.keys) } }

    /// Forgets recipe `id`'s chain (it finished).
    func remove(_ id: Int64) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    static func words(_ reason: StopReason) -> String {
        switch reason {
        case .user: "cancelled with `recipes cancel`"
        case .interrupted: "interrupted"
        case .credentials: "stopped: the server refused the credentials"
        case .leaseLost: "another process took the recipe over"
        case .setup: "not sent: server.url does not name a recipes server"
        }
    }
}
