import Foundation
import MetaRouter

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The root package's scriptable collector (`Tests/MetaRouterDeliveryTests/Fixtures/collector.py`)
/// as a vendor's host on 127.0.0.1: it records every request and answers from a script
/// (status, headers, a dropped connection). Stopping it and starting another on the same port
/// is the host going down and coming back.
final class VendorServer: @unchecked Sendable {  // immutable after init
    /// `http://127.0.0.1:<port>`.
    let url: URL
    let port: Int
    private let process = Process()
    private let input = Pipe()

    /// One answer of a script.
    struct Answer: Encodable {
        var status = 200
        var headers: [String: String] = [:]
        var drop = false
        var body = "{}"
        /// Seconds the server waits before it answers.
        var delay = 0.0
    }

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/MetaRouterDeliveryTests/Fixtures/collector.py")

    /// Starts a collector on `port` (an ephemeral one when 0) and waits until it listens.
    init(port: Int = 0) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path] + (port == 0 ? [] : ["--port", "\(port)"])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        self.port = Int(String(decoding: line, as: UTF8.self).split(separator: " ").last ?? "") ?? 0
        url = URL(string: "http://127.0.0.1:\(self.port)")!
    }

    /// Answers the next requests with `answers`, in order, then with `fallback`.
    func script(_ answers: [Answer], fallback: Answer = Answer()) async throws {
        struct Script: Encodable {
            var responses: [Answer]
            var `default`: Answer
        }
        _ = try await call("_control/script", body: try JSONEncoder().encode(Script(responses: answers, default: fallback)))
    }

    /// Every request so far: `path`, `headers` (lowercased), `body` (parsed), `status`, `dropped`.
    func requests() async throws -> [JSON] {
        try JSONDecoder().decode(JSON.self, from: try await call("_control/requests", body: nil))["requests"]?.arrayValue ?? []
    }

    private func call(_ path: String, body: Data?) async throws -> Data {
        var request = URLRequest(url: url.appendingPathComponent(path))
        if let body {
            request.httpMethod = "POST"
            request.httpBody = body
        }
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: data ?? Data()) }
            }.resume()
        }
    }

    /// Stops the collector and waits for it to exit: its port refuses connections.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Polls `condition` every 50 ms until it holds or `seconds` pass.
func eventually(within seconds: Double = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    return try await condition()
}

/// A fresh directory under the system's temporary directory, for one test's storage.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("destinations-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
