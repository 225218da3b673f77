import Dispatch
import Foundation
import Testing

@testable import MetaRouterCore

/// What the executor's start and its lock-guarded values promise: the first start runs off the
/// calling thread (on Linux), every command still runs once and in order, code can tell whether
/// it runs on the executor, and a `Locked` value is shared by its copies and freed with the last.
@Suite struct ExecutorStartTests {
    private final class Tracked: Sendable {}

    @Test func copiesOfALockedValueShareItAndTheLastOneFreesIt() {
        weak var watched: Tracked?
        do {
            let tracked = Tracked()
            watched = tracked
            let first = Locked<[Tracked]>([tracked])
            let second = first
            second.withLock { $0.append(Tracked()) }
            #expect(first.current.count == 2)
            #expect(first.withLock { $0[0] } === tracked)
        }
        #expect(watched == nil)
    }

    @Test func theFirstStartRunsItsWorkOnceOnAnotherThread() async {
        let caller = pthread_self()
        let runs = Locked<[Bool]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            FirstStart.run {
                runs.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) }
                done.resume()
            }
        }
        #if os(Linux)
        #expect(runs.current == [false])
        #else
        #expect(runs.current == [true])
        #endif
    }

    @Test func commandsMadeBeforeAndDuringTheFirstStartRunInOrderOnTheExecutor() async {
        for round in 0..<50 {
            let executor = PipelineExecutor(label: "test.first-start.\(round)", held: round % 2 == 0)
            let seen = Locked<[Int]>([])
            let offExecutor = Locked(0)
            #expect(!executor.isCurrent)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                for number in 0..<200 {
                    executor.submit(.operation { _ in
                        if !executor.isCurrent { offExecutor.withLock { $0 += 1 } }
                        seen.withLock { $0.append(number) }
                        if number == 199 { done.resume() }
                    })
                    if number == 100 { executor.release() }
                }
            }
            #expect(seen.current == Array(0..<200))
            #expect(offExecutor.current == 0)
            #expect(!executor.isCurrent)
        }
    }

    /// What the tests read of an executor may be read while its first start is still making its
    /// queue (ThreadSanitizer checks the suite).
    @Test func capacitiesAreReadableWhileTheFirstStartIsUnderWay() {
        for round in 0..<200 {
            let executor = PipelineExecutor(label: "test.first-start.read.\(round)")
            executor.submit(.operation { _ in })
            let read = executor.capacitiesAfterDrain
            #expect(read.ingress >= 0 && read.spare >= 0)
        }
    }
}
