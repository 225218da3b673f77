#if canImport(ObjectiveC)
import Foundation

/// Apple glue: keeps an uncaught Objective-C exception's name and reason for the crash record
/// (the `abort` that follows it is what the signal handler records), then calls the handler
/// that was installed before, so the host's own reporter still sees the exception.
enum UncaughtExceptionNote {
    /// Set once, at install, before our handler can run.
    nonisolated(unsafe) private static var previous: (@convention(c) (NSException) -> Void)?

    static func install() {
        previous = NSGetUncaughtExceptionHandler()
        NSSetUncaughtExceptionHandler { exception in
            CrashSignalHandler.noteReason("\(exception.name.rawValue): \(exception.reason ?? "")")
            UncaughtExceptionNote.previous?(exception)
        }
    }
}
#endif
