import Foundation
import MetaRouterCore

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

/// Runs the child process with `arguments`; once `killAfter` seconds pass, kills it (SIGKILL).
/// Returns its standard output's lines once it exits, and the monotonic time of the kill. The
/// child starts on the calling thread; the waits (the kill's delay, its output, its
/// exit) run off the cooperative pool (``offThePool(_:)``).
func runChildTimed(_ arguments: [String], killAfter: TimeInterval? = nil) async throws -> (lines: [String], killedAt: UInt64) {
    let process = Process()
    process.executableURL = CrashChildLocator.url
    process.arguments = arguments
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
        return (String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init), killedAt)
    }
}
