import Foundation
import MetaRouterCore
import MetaRouterTesting

/// What a run of the child process (`Tests/CrashChild`) left: its standard output as lines, its
/// standard error (the SDK's log lines) as text, and its exit status.
struct ChildOutput: Sendable {
    let lines: [String]
    let logs: String
    let status: Int32
}

/// Runs the child process with `arguments` to its end, off the cooperative pool, reading its
/// standard error beside its standard output so that neither pipe can fill up and stall it.
func runChildProcess(_ arguments: [String]) async throws -> ChildOutput {
    let process = Process()
    process.executableURL = CrashChildLocator.url
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    return try await offThePool {
        let logs = Locked(Data())
        let logsRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            logs.withLock { $0 = data }
            logsRead.signal()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        logsRead.wait()
        return ChildOutput(
            lines: String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init),
            logs: String(decoding: logs.current, as: UTF8.self), status: process.terminationStatus)
    }
}

/// A child run to its end or killed: its standard output's lines, the monotonic time of the
/// kill (0 when not killed), and how it ended.
struct TimedChildRun {
    let lines: [String]
    let killedAt: UInt64
    let status: Int32
    let signaled: Bool
}

/// Runs the child process with `arguments` (and `environment` over this process's); once
/// `killAfter` seconds pass, kills it (SIGKILL). Returns once it exits. The child starts on the
/// calling thread; the waits (the kill's delay, its output, its exit) run off the cooperative
/// pool (``offThePool(_:)``).
func runChildTimed(_ arguments: [String], killAfter: TimeInterval? = nil, environment: [String: String] = [:]) async throws -> TimedChildRun {
    let process = Process()
    process.executableURL = CrashChildLocator.url
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let reader = output.fileHandleForReading
    return try await offThePool {
        var killedAt: UInt64 = 0
        if let killAfter {
            Thread.sleep(forTimeInterval: killAfter)
            killedAt = DispatchTime.now().uptimeNanoseconds
            kill(process.processIdentifier, SIGKILL)
        }
        let data = reader.readDataToEndOfFile()
        process.waitUntilExit()
        return TimedChildRun(
            lines: String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init), killedAt: killedAt,
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal)
    }
}
