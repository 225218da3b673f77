import MetaRouterCore

extension DiskEventStore {
    /// Events beyond the first `evicted` to evict as well so that the files stay within
    /// ``DiskLogOptions/maxBytes`` plus a segment once a record of `size` bytes is written. The
    /// live-record budget does not see the records a commit writes between events (removals,
    /// batch keys, a new segment's clock), which a trickle of one or two events a commit
    /// makes a large share of the files. Past the bound, the oldest segments' queued events go
    /// whole, so those segments are deleted at the commit. The bound keeps back two commits
    /// and ``bookkeepingBytes``: a commit writes its records (up to a commit and an event)
    /// before it deletes what its removals emptied — the order crash safety needs: the removal
    /// summary and the pending batch's key must follow the records they name — and the rewrite
    /// writes the pending batch's copy (up to a quarter of a segment) before the oldest segment
    /// goes. A segment the pending batch keeps alive stays (its other events go, so the rewrite
    /// can move the batch out), and the segments after it go instead; the active one ends it.
    func evictionForFileBound(adding size: Int, evicted: Int) -> Int {
        // Saturating: a cap near `Int.max` is accepted and must not trap.
        let (sum, overflow) = options.maxBytes.addingReportingOverflow(options.segmentBytes)
        let bound = overflow ? Int.max : sum - 2 * options.commitBytes - Self.bookkeepingBytes
        var projected = files.totalBytes + buffer.count + size
        guard projected > bound else { return 0 }
        var more = 0
        while projected > bound, head + evicted + more < entries.count {
            let segment = entries[head + evicted + more].segment
            guard segment != files.activeId, let bytes = files.segments.first(where: { $0.id == segment })?.size else { break }
            // Its events the budget evicted already, then the rest of them.
            var first = head + evicted + more
            while first > head, entries[first - 1].segment == segment { first -= 1 }
            while head + evicted + more < entries.count, entries[head + evicted + more].segment == segment { more += 1 }
            let inSegment = head + evicted + more - first
            // With none of the pending batch's events there, the segment goes at the commit.
            if (liveBySegment[segment] ?? 0) <= inSegment { projected -= bytes }
        }
        return more
    }

    /// Room for the records a commit writes besides events and the pending batch's copy: a
    /// removal summary of a few runs, the batch's key logged again, a new segment's clock.
    static let bookkeepingBytes = 256
}
