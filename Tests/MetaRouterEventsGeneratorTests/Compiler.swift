import Foundation

/// Type-checks Swift files against this package's debug build (`swift build` has made it:
/// `swift test` builds first), as an app target that imports `MetaRouter` would compile them.
/// The compiler runs as a child process, waited for on a thread of dispatch's, not the pool's.
enum Compiler {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Result {
        let succeeded: Bool
        let output: String
        /// The `error:` lines.
        var errors: [String] { output.split(separator: "\n").map(String.init).filter { $0.contains("error:") && !$0.contains("`- error") } }
    }

    static func typecheck(_ files: [String: String]) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-gen-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        let build = root.appendingPathComponent(".build/debug")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-module-name", "App", "-swift-version", "6", "-warnings-as-errors",
                             "-I", build.appendingPathComponent("Modules").path,
                             "-I", build.appendingPathComponent("MetaRouterCurlShim.build").path] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        // Read on a thread of dispatch's (the compiler may write more than a pipe holds), and
        // resume once it has exited.
        let (status, text): (Int32, String) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do { try process.run() } catch { return continuation.resume(throwing: error) }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
        return Result(succeeded: status == 0, output: text)
    }
}
