import Foundation

extension DiskEventStore {
    /// Deletes the segments none of whose events is queued any more: the dead prefix, and
    /// dead segments behind a live one (a pending batch that eviction never takes keeps the
    /// oldest alive) once a summary of every removal is logged (``logRemovalSummary()``).
    func deleteDeadSegments() {
        func isDead(_ segment: SegmentFiles.Segment) -> Bool { segment.id != files.activeId && (liveBySegment[segment.id] ?? 0) <= 0 }
        let prefix = files.segments.prefix(while: isDead)
        let behind = files.segments.dropFirst(prefix.count).dropFirst().filter(isDead)
        let deletingBehind = !behind.isEmpty && logRemovalSummary()
        guard !prefix.isEmpty || deletingBehind, logPendingKeyAgain() else { return }
        for segment in prefix + (deletingBehind ? behind : []) {
            liveBySegment[segment.id] = nil
            files.delete(id: segment.id)
        }
    }

    /// Logs the pending batch's key again, at the end of the active segment, before a dead
    /// segment is deleted: the one deleted may hold the batch's only key record (it holds no
    /// queued event), and a restart without it would send the batch under a new key. Returns
    /// whether segments may be deleted.
    private func logPendingKeyAgain() -> Bool {
        guard let current = pending else { return true }
        guard fault == nil else { return false }
        do {
            try files.append(LogRecord.batch(key: current.batch.idempotencyKey, ranges: LogRecord.ranges(current.entries.map(\.sequence))).encoded())
            return true
        } catch {
            enterFault(error)
            return false
        }
    }
}
