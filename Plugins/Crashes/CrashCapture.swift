/// Process-wide switches of crash capture. Instances with `captureCrashes` call these
/// themselves; an app calls ``prepareCurrentThread()`` on a thread of its own whose stack
/// overflows it wants reported too.
public enum CrashCapture {
    /// Installs the crash handlers (once per process; chained to whatever was installed before)
    /// and gives the calling thread an alternate signal stack, on which a stack overflow can
    /// still be handled.
    public static func prepareCurrentThread() {
        CrashSignalHandler.install()
    }

    /// Whether the crash handlers are installed in this process.
    package static var isInstalled: Bool { CrashSignalHandler.isInstalled }
}
