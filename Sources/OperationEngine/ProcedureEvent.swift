/// A procedure's identity as carried by events: plain values, so that buffered events keep nothing alive.
public struct ProcedureInfo: Sendable, Hashable {
    /// The procedure's identifier.
    public let id: ProcedureID
    /// The procedure's name.
    public let name: String
    /// Free-form labels set at creation (for example `id`, `step`), for front ends.
    public let tags: [String: String]
}

/// Something that happened to a procedure, as delivered to observers and to queue event streams.
public enum ProcedureEvent: Sendable {
    /// The work started for the first time (later attempts are `retrying` then no new `started`).
    case started(ProcedureInfo, attempt: Int)
    /// The running procedure produced another procedure, which was added to the queue.
    case produced(ProcedureInfo, child: ProcedureInfo)
    /// The work reported progress.
    case progress(ProcedureInfo, completed: Int64, total: Int64?)
    /// The procedure was cancelled (delivered once, when cancellation is requested).
    case cancelled(ProcedureInfo, reason: CancellationReason)
    /// An attempt failed with a transient error; the next one follows after `delay`.
    case retrying(ProcedureInfo, attempt: Int, delay: Duration, error: any Error)
    /// A "not now" condition (unreachable host) holds; it waits `delay` without counting an attempt.
    case waiting(ProcedureInfo, delay: Duration, error: any Error)
    /// The procedure finished (delivered exactly once).
    case finished(ProcedureInfo, outcome: ProcedureOutcome)

    /// The procedure the event is about.
    public var info: ProcedureInfo {
        switch self {
        case .started(let info, _), .produced(let info, _), .progress(let info, _, _), .cancelled(let info, _),
            .retrying(let info, _, _, _), .waiting(let info, _, _), .finished(let info, _):
            info
        }
    }

    /// The event's name: `start`, `produced`, `progress`, `cancel`, `retry`, `waiting` or `finish`.
    public var name: String {
        switch self {
        case .started: "start"
        case .produced: "produced"
        case .progress: "progress"
        case .cancelled: "cancel"
        case .retrying: "retry"
        case .waiting: "waiting"
        case .finished: "finish"
        }
    }
}
