#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MetaRouterErrors

/// The process-wide crash handler: catches SIGSEGV, SIGBUS, SIGILL, SIGTRAP (Swift's runtime
/// traps), SIGABRT and SIGFPE on an alternate signal stack, writes one record per registered
/// instance to a file opened in advance, then puts back the actions that were in place before
/// and lets the signal take its course again — so the host's own crash reporter, the Swift
/// runtime's backtracer and the default core dump still run.
///
/// The handler only stores into memory prepared at install, reads the clock, calls
/// `backtrace(3)` (loaded and warmed at install) and `pwrite(2)`. Installed once per process
/// and never removed: an instance that shuts down only withdraws its registration.
enum CrashSignalHandler {
    /// The handler's state; touched at install so its one-time initialisation never runs in
    /// the handler. Unsafe by nature: normal code changes it only under `setupLock` and the
    /// registry mutex, and the handler reads it after try-locking that mutex.
    nonisolated(unsafe) static let state: UnsafeMutablePointer<CrashHandlerState> = CrashHandlerState.make()
    private static let setupLock = NSLock()
    /// Bytes of alternate signal stack given to a thread that has less: the handler and
    /// `backtrace(3)` need a few kilobytes, and a stack overflow leaves none on the thread's own.
    static let alternateStackSize = 64 * 1024

    /// Whether the handlers are installed in this process.
    static var isInstalled: Bool { setupLock.withLock { state.pointee.installed } }

    /// Whether this platform lets the SDK catch crashes: not tvOS or watchOS, where Darwin's
    /// `signal.h` prohibits `sigaltstack` (`__TVOS_PROHIBITED`, `__WATCHOS_PROHIBITED`) and a
    /// handler could not run after a stack overflow.
    static var isSupported: Bool {
        #if os(tvOS) || os(watchOS)
        return false
        #else
        return true
        #endif
    }

    /// Installs the handlers (once per process) and makes sure the calling thread has an
    /// alternate signal stack, so that a stack overflow on it is caught too.
    static func install() {
        guard isSupported else { return }
        setupLock.withLock {
            ensureAlternateStack()
            guard !state.pointee.installed else { return }
            state.pointee.backtrace = resolveBacktrace()
            // The first call loads the unwinder (it allocates); never let that happen in the handler.
            _ = state.pointee.backtrace?(state.pointee.rawFrames, Int32(CrashHandlerState.rawFrameCapacity))
            refreshImagesLocked()
            for index in 0..<state.pointee.signalCount {
                var action = sigaction()
                #if canImport(Darwin)
                action.__sigaction_u.__sa_sigaction = crashSignalAction
                #else
                action.__sigaction_handler.sa_sigaction = crashSignalAction
                #endif
                sigemptyset(&action.sa_mask)
                action.sa_flags = Int32(SA_SIGINFO | SA_ONSTACK)
                sigaction(state.pointee.signals[index], &action, state.pointee.previous + index)
            }
            state.pointee.installed = true
            #if canImport(ObjectiveC)
            UncaughtExceptionNote.install()
            #endif
        }
    }

    /// Registers a record file and breadcrumb slots; returns the registration's index, or `nil`
    /// when all ``CrashHandlerState/maxRegistrations`` are taken. Refreshes the image table, so
    /// libraries loaded since the install are named too.
    static func register(fd: Int32, recordId: (UInt64, UInt64), slots: CrashBreadcrumbSlots) -> Int? {
        setupLock.withLock {
            refreshImagesLocked()
            pthread_mutex_lock(state.pointee.registryLock)
            defer { pthread_mutex_unlock(state.pointee.registryLock) }
            let table = state.pointee.registrations
            guard let index = (0..<CrashHandlerState.maxRegistrations).first(where: { !table[$0].active }) else { return nil }
            table[index] = CrashRegistration(
                active: true, fd: fd, recordId: recordId, slots: slots.memory, slotCount: slots.count, slotSize: CrashBreadcrumbSlots.slotSize)
            return index
        }
    }

    /// Withdraws a registration; the handler writes nothing for it from now on.
    static func unregister(_ index: Int) {
        guard index >= 0, index < CrashHandlerState.maxRegistrations else { return }
        pthread_mutex_lock(state.pointee.registryLock)
        state.pointee.registrations[index] = CrashRegistration()
        pthread_mutex_unlock(state.pointee.registryLock)
    }

    /// Keeps `text` (e.g. an uncaught exception's name and reason) for the record, if a crash follows.
    static func noteReason(_ text: String) {
        let bytes = Array(text.utf8.prefix(CrashRecordLayout.reasonCapacity))
        let scratch = state.pointee.scratch
        bytes.withUnsafeBytes { (scratch + CrashRecordLayout.reason).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        scratch.storeBytes(of: UInt32(bytes.count), toByteOffset: CrashRecordLayout.reasonLength, as: UInt32.self)
    }

    private static func resolveBacktrace() -> BacktraceFunction? {
        #if canImport(Darwin)
        return { buffer, size in backtrace(buffer, size) }
        #else
        guard let symbol = dlsym(nil, "backtrace") else { return nil }
        return unsafeBitCast(symbol, to: BacktraceFunction.self)
        #endif
    }

    private static func ensureAlternateStack() {
        #if !os(tvOS) && !os(watchOS)
        var current = stack_t()
        if sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) == 0, current.ss_size >= alternateStackSize { return }
        // Kept for the thread's lifetime: a signal may arrive at any moment until it ends.
        guard let memory = malloc(alternateStackSize) else { return }
        var stack = stack_t()
        stack.ss_sp = memory
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        if sigaltstack(&stack, nil) != 0 { free(memory) }
        #endif
    }

    /// Rebuilds the image table from the mappings now; the old one is freed under the lock the
    /// handler try-locks, so the handler never reads freed memory.
    private static func refreshImagesLocked() {
        let images = LoadedImage.current()
        let paths = images.map { Array($0.path.utf8.prefix(CrashRecordLayout.pathCapacity)) }
        let pathBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, paths.reduce(0) { $0 + $1.count }))
        let slots = UnsafeMutablePointer<ImageSlot>.allocate(capacity: max(1, images.count))
        var offset = 0
        for (index, image) in images.enumerated() {
            (pathBytes + offset).initialize(from: paths[index], count: paths[index].count)
            (slots + index).initialize(to: ImageSlot(
                start: image.start, end: image.end, fileOffset: image.fileOffset, inode: image.inode,
                pathOffset: offset, pathLength: paths[index].count))
            offset += paths[index].count
        }
        pthread_mutex_lock(state.pointee.registryLock)
        let old = (state.pointee.images, state.pointee.imagePaths)
        state.pointee.images = slots
        state.pointee.imageCount = images.count
        state.pointee.imagePaths = pathBytes
        pthread_mutex_unlock(state.pointee.registryLock)
        old.0?.deallocate()
        old.1?.deallocate()
    }
}

/// The handler itself: a C function with no captures.
private let crashSignalAction: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
    signal, info, context in
    CrashRecordWriter.write(signal: signal, info: info, context: context, state: CrashSignalHandler.state)
    CrashRecordWriter.chain(signal: signal, info: info, state: CrashSignalHandler.state)
}
