import Foundation

/// The test suite's Python collector, started on an ephemeral loopback port.
final class LoopbackCollector: @unchecked Sendable {  // immutable after init; used from one benchmark at a time
    let url: URL
    private let process: Process
    private let input = Pipe()

    init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/MetaRouterDeliveryTests/Fixtures/collector.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let port = String(decoding: line, as: UTF8.self).split(separator: " ").last.map(String.init) ?? "0"
        url = URL(string: "http://127.0.0.1:\(port)")!
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        // SIGKILL: the collector may have inherited a blocked SIGTERM from the thread that
        // started it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
