import Foundation
import MetaRouterCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The root package's Python collector, started on an ephemeral port of 127.0.0.1: it records
/// every request and answers 200 unless scripted otherwise (see the script's header).
public final class PythonCollector: @unchecked Sendable {  // immutable after init
    /// The collector's base URL, to use as the ingestion host.
    public let url: URL
    private let process = Process()
    private let input = Pipe()

    /// Starts the collector and waits for the port it listens on.
    public init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/MetaRouterDeliveryTests/Fixtures/collector.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let port = String(decoding: line, as: UTF8.self).split(separator: " ").last.map(String.init) ?? "0"
        url = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Every request recorded so far: `path`, `headers` (names in lower case), `body` (parsed),
    /// `status`.
    public func requests() async throws -> [JSON] {
        let data = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            URLSession.shared.dataTask(with: url.appendingPathComponent("_control/requests")) { data, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: data ?? Data()) }
            }.resume()
        }
        return try JSONDecoder().decode(JSON.self, from: data)["requests"]?.arrayValue ?? []
    }

    /// Stops the collector and waits for it to exit.
    public func stop() {
        try? input.fileHandleForWriting.close()
        // SIGKILL: the collector may have inherited a blocked SIGTERM from the thread that
        // started it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
