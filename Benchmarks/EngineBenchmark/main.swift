// Engine benchmark: 100,000 operations, each exclusive on one of 1,000 keys, concurrency 4.
//
// Usage: EngineBenchmark engine | engine-windowed | foundation [operations] [keys]
// Prints one line: mode operations seconds ops_per_second peak_rss_kib overlaps cpu_seconds
// Run each mode in its own process so that the peak memory (VmHWM) belongs to that mode alone.
import Foundation
import Locking
import OperationEngine
import Synchronization

/// Counts, per key, the operations inside their work at once; any count above one is an overlap.
final class Occupancy: Sendable {
    private let inside: Locked<[Int]>
    private let overlapCount = Atomic<Int>(0)
    private let doneCount = Atomic<Int>(0)

    init(keys: Int) { inside = Locked([Int](repeating: 0, count: keys)) }

    func work(key: Int) {
        let overlapped = inside.withLock { inside -> Bool in
            inside[key] += 1
            return inside[key] > 1
        }
        if overlapped { overlapCount.add(1, ordering: .relaxed) }
        inside.withLock { $0[key] -= 1 }
        doneCount.add(1, ordering: .relaxed)
    }

    var overlaps: Int { overlapCount.load(ordering: .relaxed) }
    var done: Int { doneCount.load(ordering: .relaxed) }
}

func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// Foundation's baseline: same-key operations chained by dependencies, concurrency 4 (synchronous wait).
func runFoundation(operations: Int, keys: Int, occupancy: Occupancy) {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 4
    var last = [Operation?](repeating: nil, count: keys)
    var all: [Operation] = []
    all.reserveCapacity(operations)
    for index in 0..<operations {
        let key = index % keys
        let operation = BlockOperation { occupancy.work(key: key) }
        if let previous = last[key] { operation.addDependency(previous) }
        last[key] = operation
        all.append(operation)
    }
    queue.addOperations(all, waitUntilFinished: true)
}

/// User plus system CPU seconds used by this process so far (less sensitive to a busy machine than wall time).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// One benchmark operation: exclusive on its key.
func makeProcedure(key: Int) -> AnyProcedure {
    Procedure<Void>(name: "op", conditions: [MutualExclusion("key:\(key)")]) { _ in occupancy.work(key: key) }.erased
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "engine"
let operations = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let keys = arguments.count > 3 ? Int(arguments[3]) ?? 1_000 : 1_000
let occupancy = Occupancy(keys: keys)
let clock = ContinuousClock()
let start = clock.now
let cpuAtStart = cpuSeconds()

switch mode {
case "engine":
    let queue = ProcedureQueue(maxConcurrentProcedures: 4)
    let all = (0..<operations).map { index in
        makeProcedure(key: index % keys)
    }
    queue.add(all)
    await queue.waitUntilAllFinished()
case "engine-windowed":
    let queue = ProcedureQueue(maxConcurrentProcedures: 4)
    let next = Atomic<Int>(0)
    try await queue.feed(window: 4_096) { limit in
        let first = next.add(limit, ordering: .relaxed).oldValue
        guard first < operations else { return [] }
        return (first..<min(operations, first + limit)).map { index in
            makeProcedure(key: index % keys)
        }
    }
    await queue.waitUntilAllFinished()
case "foundation":
    runFoundation(operations: operations, keys: keys, occupancy: occupancy)
default:
    FileHandle.standardError.write(Data("unknown mode \(mode); use engine, engine-windowed or foundation\n".utf8))
    exit(64)
}

let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
guard occupancy.done == operations else {
    FileHandle.standardError.write(Data("\(mode): only \(occupancy.done) of \(operations) operations ran\n".utf8))
    exit(1)
}
print(
    mode, operations, String(format: "%.3f", seconds), Int(Double(operations) / seconds), peakResidentKiB(),
    occupancy.overlaps, String(format: "%.3f", cpuSeconds() - cpuAtStart))
