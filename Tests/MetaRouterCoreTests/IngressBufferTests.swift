import Dispatch
import Foundation
import Testing

@testable import MetaRouterCore

/// The ingress's buffer while callers outrun the executor: the executor hands callers a buffer
/// with room for what it expects them to add, in memory it has already touched, and frees both
/// buffers when it goes idle.
@Suite struct IngressBufferTests {
    @Test func roomFollowsHowFastCallsArrive() {
        let limit = Defaults.maxPendingEvents
        // Nothing arrived: the stream may be over, nothing is prepared.
        #expect(PipelineExecutor.spareWanted(taken: 10, arrived: 0, limit: limit) == 0)
        #expect(PipelineExecutor.spareWanted(taken: 0, arrived: 10, limit: limit) == 0)
        // As fast as the executor ran, or slower: twice the arrivals.
        #expect(PipelineExecutor.spareWanted(taken: 100, arrived: 100, limit: limit) == 200)
        #expect(PipelineExecutor.spareWanted(taken: 100, arrived: 30, limit: limit) == 60)
        // Seven times faster: the next batch grows sevenfold.
        #expect(PipelineExecutor.spareWanted(taken: 10, arrived: 70, limit: limit) == 980)
        // Never more than the cap, or than the events the ingress may hold, whatever arrived.
        #expect(PipelineExecutor.spareWanted(taken: 1, arrived: 40_000, limit: .max) == PipelineExecutor.spareCapacity)
        #expect(PipelineExecutor.spareWanted(taken: 1, arrived: .max, limit: .max) == PipelineExecutor.spareCapacity)
        #expect(PipelineExecutor.spareWanted(taken: 1, arrived: 900, limit: 1_000) == 1_000)
    }

    @Test func callsThatOutrunABatchGetAPreparedBufferAndIdleFreesIt() async {
        let executor = PipelineExecutor(label: "ingress-buffer-test", held: true)
        let seen = Locked<[Int]>([])
        let capacityDuringSecondBatch = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<100 {
                executor.submit(.operation { _ in
                    seen.withLock { $0.append(index) }
                    guard index == 99 else { return }
                    // 300 commands arrive while the first batch of 100 runs.
                    for later in 100..<400 {
                        executor.submit(.operation { _ in
                            seen.withLock { $0.append(later) }
                            if later == 100 { capacityDuringSecondBatch.withLock { $0 = executor.ingressCapacity } }
                            if later == 399 { done.resume() }
                        })
                    }
                })
            }
            executor.release()
        }
        #expect(seen.withLock { $0 } == Array(0..<400))
        #expect(capacityDuringSecondBatch.withLock { $0 } >= PipelineExecutor.spareWanted(taken: 100, arrived: 300, limit: Defaults.maxPendingEvents))
        // Read off the cooperative pool: the read waits for the executor's drain to end.
        let after = await withCheckedContinuation { (read: CheckedContinuation<(ingress: Int, spare: Int), Never>) in
            DispatchQueue.global().async { read.resume(returning: executor.capacitiesAfterDrain) }
        }
        #expect(after.ingress == 0 && after.spare == 0)
    }
}
