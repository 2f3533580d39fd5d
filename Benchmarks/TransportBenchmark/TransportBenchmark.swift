// The transport's benchmark driver (release build, run by bench/30-transport-*.sh; never part of the tests).
//
//   TransportBenchmark put-images BASE_URL DIR     PUT every file of DIR to BASE_URL/v1/images/<file name>
//   TransportBenchmark upload-one URL FILE         PUT one file, then print the process's peak RSS (VmHWM)
//   TransportBenchmark cancel-latency TRIES        cancel a stalled GET TRIES times, print median and worst
//   TransportBenchmark cancel-upload-latency TRIES cancel a stalled 64 MiB file PUT TRIES times, print median and worst
import Foundation
import Synchronization
import Transport

/// The benchmark's entry point: one mode per first argument, one line of `key=value` figures on stdout.
@main
struct TransportBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch (arguments.first, arguments.count) {
        case ("put-images", 3): try await putImages(base: arguments[1], directory: arguments[2])
        case ("upload-one", 3): try await uploadOne(url: arguments[1], path: arguments[2])
        case ("cancel-latency", 2): try await cancelLatency(tries: Int(arguments[1]) ?? 20)
        case ("cancel-upload-latency", 2): try await cancelUploadLatency(tries: Int(arguments[1]) ?? 20)
        default:
            FileHandle.standardError.write(Data(
                "usage: TransportBenchmark put-images BASE DIR | upload-one URL FILE | cancel-latency N | cancel-upload-latency N\n".utf8))
            exit(64)
        }
    }

    /// Sends every file at once to the client, which keeps 4 transfers on the wire; prints the elapsed time.
    static func putImages(base: String, directory: String) async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(userAgent: "recipes/bench", maxConcurrentTransfers: 4))
        let start = ContinuousClock.now
        let (bytes, failures) = try await withThrowingTaskGroup(of: (Int64, Int).self) { group in
            for name in names {
                let path = directory + "/" + name
                group.addTask {
                    let response = try await client.send(HTTPRequest(method: .put, url: "\(base)/v1/images/\(name)",
                                                                     body: .file(path: path, contentType: "image/jpeg")))
                    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
                    return (size, (200..<300).contains(response.status) ? 0 : 1)
                }
            }
            return try await group.reduce(into: (Int64(0), 0)) { $0.0 += $1.0; $0.1 += $1.1 }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("requests=\(names.count) failures=\(failures) bytes=\(bytes) seconds=\(String(format: "%.3f", seconds))")
    }

    /// Streams one file and reports the peak resident memory of this process.
    static func uploadOne(url: String, path: String) async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(userAgent: "recipes/bench"))
        let start = ContinuousClock.now
        let response = try await client.send(HTTPRequest(method: .put, url: url, body: .file(path: path, contentType: "image/jpeg")))
        let elapsed = ContinuousClock.now - start
        print("status=\(response.status) seconds=\(elapsed.components.seconds) peakRSSkB=\(peakResidentKilobytes())")
    }

    /// Cancels a GET whose server accepted the request and then went silent, `tries` times.
    static func cancelLatency(tries: Int) async throws {
        let listener = try SilentListener()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(userAgent: "recipes/bench"))
        let request = HTTPRequest(method: .get, url: "http://127.0.0.1:\(listener.port)/v1/health")
        report(try await measureCancel(client: client, request: request, tries: tries, settle: .milliseconds(150)))
    }

    /// Cancels a 64 MiB file PUT to a server that accepted the connection and never reads, `tries` times: the
    /// socket buffers fill and the client is blocked sending when it is cancelled.
    static func cancelUploadLatency(tries: Int) async throws {
        let listener = try SilentListener()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transport-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        try Data(count: 64 << 20).write(to: file)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(userAgent: "recipes/bench"))
        let request = HTTPRequest(method: .put, url: "http://127.0.0.1:\(listener.port)/v1/images/big",
                                  body: .file(path: file.path, contentType: "image/jpeg"))
        report(try await measureCancel(client: client, request: request, tries: tries, settle: .milliseconds(300)))
    }

    /// Starts `request`, lets it stall for `settle`, cancels it; the time until the caller has its error, in ms.
    static func measureCancel(client: HTTPClient, request: HTTPRequest, tries: Int, settle: Duration) async throws -> [Double] {
        var latencies: [Double] = []
        for _ in 0..<tries {
            let task = Task { try await client.send(request) }
            try await Task.sleep(for: settle) // connected and stalled: nothing comes back / nothing more is read
            let start = ContinuousClock.now
            task.cancel()
            _ = await task.result
            let elapsed = ContinuousClock.now - start
            latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        return latencies
    }

    /// Prints `tries=… medianMs=… worstMs=…`.
    static func report(_ latencies: [Double]) {
        let latencies = latencies.sorted()
        guard !latencies.isEmpty else { print("tries=0 medianMs=0 worstMs=0"); return }
        let median = latencies.count.isMultiple(of: 2)
            ? (latencies[latencies.count / 2 - 1] + latencies[latencies.count / 2]) / 2 : latencies[latencies.count / 2]
        print(String(format: "tries=%d medianMs=%.2f worstMs=%.2f", latencies.count, median, latencies.last ?? 0))
    }

    /// VmHWM from /proc/self/status, in kB.
    static func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
