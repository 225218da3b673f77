import Foundation

/// Builds and runs an executable app from Swift files, against this package's debug build
/// (`swift test` has built it): the app imports `MetaRouter` and `MetaRouterTesting` and is
/// linked with their object files, as a package depending on the SDK would be. One `swiftc` in a
/// fresh temporary directory; the compiler and the app run as child processes, waited for on a
/// thread of dispatch's.
enum AppBuild {
    /// The library targets an app importing `MetaRouter` and `MetaRouterTesting` links.
    static let targets = [
        "MetaRouterCore", "MetaRouterIdentity", "MetaRouterPlatform", "MetaRouterContext", "MetaRouterAdvertisingID", "MetaRouterCurlShim",
        "MetaRouterDelivery", "MetaRouterLifecycle", "MetaRouterTransforms", "MetaRouterPrivacy", "MetaRouterTrackingPlan", "MetaRouterErrors",
        "MetaRouterCrashes", "MetaRouterSignals", "MetaRouterEntitlements", "MetaRouter", "MetaRouterTesting",
    ]

    struct Outcome {
        let built: Bool
        let buildOutput: String
        let buildSeconds: Double
        /// The app's standard output (empty when it was not built).
        let runOutput: String
        let runStatus: Int32
    }

    /// Compiles `files` into an executable in `directory` and runs it there.
    static func buildAndRun(_ files: [String: String], in directory: URL) async throws -> Outcome {
        var paths: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        let build = Compiler.root.appendingPathComponent(".build/debug")
        let objects = try targets.flatMap { try objectFiles(in: build.appendingPathComponent("\($0).build")) }
        let executable = directory.appendingPathComponent("app")
        let started = Date()
        let (status, output) = try await run(
            "swiftc", ["-module-name", "GeneratedApp", "-swift-version", "6", "-warnings-as-errors", "-Onone", "-parse-as-library",
                       "-I", build.appendingPathComponent("Modules").path, "-I", build.appendingPathComponent("MetaRouterCurlShim.build").path,
                       "-o", executable.path] + paths + objects,
            in: directory)
        let seconds = Date().timeIntervalSince(started)
        guard status == 0 else { return Outcome(built: false, buildOutput: output, buildSeconds: seconds, runOutput: "", runStatus: -1) }
        let (runStatus, runOutput) = try await run(executable.path, [], in: directory)
        return Outcome(built: true, buildOutput: output, buildSeconds: seconds, runOutput: runOutput, runStatus: runStatus)
    }

    /// The target's object files, less those of Swift files the repository no longer has (an
    /// incremental build leaves a deleted file's object behind, which would define its symbols
    /// twice).
    private static func objectFiles(in directory: URL) throws -> [String] {
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        let objects = walk.compactMap { ($0 as? URL)?.path }.filter { $0.hasSuffix(".o") }
        return objects.filter { path in
            let name = (path as NSString).lastPathComponent
            return !name.hasSuffix(".swift.o") || sourceNames.contains(String(name.dropLast(2)))
        }.sorted()
    }

    /// The names of the Swift files under Sources/ and Plugins/.
    private static let sourceNames: Set<String> = {
        var names = Set<String>()
        for folder in ["Sources", "Plugins"] {
            let walk = FileManager.default.enumerator(atPath: Compiler.root.appendingPathComponent(folder).path)
            while let path = walk?.nextObject() as? String {
                if path.hasSuffix(".swift") { names.insert((path as NSString).lastPathComponent) }
            }
        }
        return names
    }()

    /// Runs `tool` (found on the PATH unless a path) and returns its status and its output.
    static func run(_ tool: String, _ arguments: [String], in directory: URL) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.hasPrefix("/") ? tool : "/usr/bin/env")
        process.arguments = tool.hasPrefix("/") ? arguments : [tool] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do { try process.run() } catch { return continuation.resume(throwing: error) }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }
}
