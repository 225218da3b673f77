#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What runs inside the signal handler. Only async-signal-safe work: stores into the memory
/// prepared at install, `clock_gettime`, `backtrace` (warmed at install), `pwrite`, `sigaction`
/// and `raise`; wrapping arithmetic; no allocation, no Swift object, no lock that could block.
enum CrashRecordWriter {
    private typealias Layout = CrashRecordLayout

    /// Fills the record and writes it to every registered file. The first crashing thread
    /// writes; another one crashing meanwhile waits until that record is written (2 s at
    /// most), then only chains — chaining at once would put the default action back and let
    /// it end the process mid-write. When normal code holds the registry lock (an instance
    /// registering at that very moment) nothing is written: a half-changed table could name
    /// the wrong file.
    static func write(
        signal: Int32, info: UnsafeMutablePointer<siginfo_t>?, context: UnsafeMutableRawPointer?, state: UnsafeMutablePointer<CrashHandlerState>
    ) {
        guard pthread_mutex_trylock(state.pointee.handlingLock) == 0 else { return waitForFirstRecord(state) }
        defer { state.pointee.handlingDone.pointee = 1 }
        guard pthread_mutex_trylock(state.pointee.registryLock) == 0 else { return }
        defer { pthread_mutex_unlock(state.pointee.registryLock) }
        let record = state.pointee.scratch
        record.storeBytes(of: Layout.magic, toByteOffset: 0, as: UInt64.self)
        record.storeBytes(of: signal, toByteOffset: Layout.signal, as: Int32.self)
        record.storeBytes(of: info?.pointee.si_code ?? 0, toByteOffset: Layout.code, as: Int32.self)
        record.storeBytes(of: UInt64(UInt(bitPattern: faultAddress(info))), toByteOffset: Layout.faultAddress, as: UInt64.self)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        record.storeBytes(of: Int64(now.tv_sec), toByteOffset: Layout.seconds, as: Int64.self)
        record.storeBytes(of: Int64(now.tv_nsec), toByteOffset: Layout.nanoseconds, as: Int64.self)
        record.storeBytes(of: UInt32(writeFrames(context: context, state: state)), toByteOffset: Layout.frameCount, as: UInt32.self)
        let registrations = state.pointee.registrations
        var index = 0
        while index < CrashHandlerState.maxRegistrations {
            let registration = registrations + index
            index &+= 1
            guard registration.pointee.active, registration.pointee.fd >= 0 else { continue }
            record.storeBytes(of: registration.pointee.recordId.0, toByteOffset: Layout.recordId, as: UInt64.self)
            record.storeBytes(of: registration.pointee.recordId.1, toByteOffset: Layout.recordId &+ 8, as: UInt64.self)
            record.storeBytes(of: UInt32(truncatingIfNeeded: registration.pointee.slotCount), toByteOffset: Layout.slotCount, as: UInt32.self)
            record.storeBytes(of: UInt32(truncatingIfNeeded: registration.pointee.slotSize), toByteOffset: Layout.slotSize, as: UInt32.self)
            _ = pwrite(registration.pointee.fd, record, Layout.crashPartSize, 0)
            if let slots = registration.pointee.slots {
                _ = pwrite(registration.pointee.fd, slots, registration.pointee.slotCount &* registration.pointee.slotSize, off_t(Layout.crashPartSize))
            }
        }
    }

    /// Sleeps (`nanosleep`, async-signal-safe) in 1 ms steps until the first crashing thread
    /// has written its record, for 2 s at most (the same thread faulting again inside the
    /// handler waits for itself, then chains).
    private static func waitForFirstRecord(_ state: UnsafeMutablePointer<CrashHandlerState>) {
        var step = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var waited = 0
        while state.pointee.handlingDone.pointee == 0, waited < 2_000 {
            nanosleep(&step, nil)
            waited &+= 1
        }
    }

    /// Puts back every action that was in place before the install, then lets the signal take
    /// its course: a fault returns and faults again into that action; a signal that was sent
    /// (`abort`, `kill`) or a trap that would not recur is raised again, delivered on return.
    static func chain(signal: Int32, info: UnsafeMutablePointer<siginfo_t>?, state: UnsafeMutablePointer<CrashHandlerState>) {
        var index = 0
        while index < state.pointee.signalCount {
            sigaction(state.pointee.signals[index], state.pointee.previous + index, nil)
            index &+= 1
        }
        let code = info?.pointee.si_code ?? 0
        if code <= 0 || signal == SIGTRAP || signal == SIGABRT { raise(signal) }
    }

    /// Writes the frames from the faulting instruction outward (the handler's own frames and
    /// the signal trampoline left out when the program counter is found among them).
    private static func writeFrames(context: UnsafeMutableRawPointer?, state: UnsafeMutablePointer<CrashHandlerState>) -> Int {
        guard let backtrace = state.pointee.backtrace else { return 0 }
        let raw = state.pointee.rawFrames
        let count = Int(max(0, backtrace(raw, Int32(CrashHandlerState.rawFrameCapacity))))
        let pc = programCounter(context)
        var first = 0
        var index = 0
        while pc != 0, index < count {
            if UInt(bitPattern: raw[index]) == pc {
                first = index
                break
            }
            index &+= 1
        }
        var written = 0
        index = first
        while index < count, written < Layout.maxFrames {
            writeFrame(at: written, address: UInt(bitPattern: raw[index]), state: state)
            written &+= 1
            index &+= 1
        }
        return written
    }

    private static func writeFrame(at slot: Int, address: UInt, state: UnsafeMutablePointer<CrashHandlerState>) {
        let frame = state.pointee.scratch + (Layout.headerSize &+ slot &* Layout.frameSize)
        frame.storeBytes(of: UInt64(address), toByteOffset: Layout.frameAddress, as: UInt64.self)
        var fileOffset: UInt64 = 0
        var inode: UInt64 = 0
        var pathLength = 0
        if let images = state.pointee.images, let paths = state.pointee.imagePaths {
            var index = 0
            while index < state.pointee.imageCount {
                let image = images[index]
                index &+= 1
                guard address >= image.start, address < image.end else { continue }
                fileOffset = image.fileOffset &+ UInt64(address &- image.start)
                inode = image.inode
                pathLength = min(image.pathLength, Layout.pathCapacity)
                (frame + Layout.framePath).copyMemory(from: paths + image.pathOffset, byteCount: pathLength)
                break
            }
        }
        frame.storeBytes(of: fileOffset, toByteOffset: Layout.frameFileOffset, as: UInt64.self)
        frame.storeBytes(of: inode, toByteOffset: Layout.frameInode, as: UInt64.self)
        frame.storeBytes(of: UInt16(pathLength), toByteOffset: Layout.framePathLength, as: UInt16.self)
    }

    private static func faultAddress(_ info: UnsafeMutablePointer<siginfo_t>?) -> UnsafeMutableRawPointer? {
        guard let info else { return nil }
        #if canImport(Darwin)
        return info.pointee.si_addr
        #else
        return info.pointee._sifields._sigfault.si_addr
        #endif
    }

    /// The interrupted instruction's address from the signal context, where the platform's
    /// layout is known here (Linux on x86-64 and arm64); 0 elsewhere, and then every frame
    /// `backtrace` returned is kept.
    private static func programCounter(_ context: UnsafeMutableRawPointer?) -> UInt {
        guard let context else { return 0 }
        #if os(Linux) && arch(x86_64)
        // gregs[REG_RIP], REG_RIP being 16 in <sys/ucontext.h>.
        let registers = context.assumingMemoryBound(to: ucontext_t.self)
        return withUnsafeMutableBytes(of: &registers.pointee.uc_mcontext.gregs) { UInt(bitPattern: Int($0.load(fromByteOffset: 16 * 8, as: Int64.self))) }
        #elseif os(Linux) && arch(arm64)
        return UInt(context.assumingMemoryBound(to: ucontext_t.self).pointee.uc_mcontext.pc)
        #else
        return 0
        #endif
    }
}
