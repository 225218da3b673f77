import MetaRouterLifecycle
import Testing

/// The background-time request the UIKit lifecycle source makes around a flush, in every order
/// its two ends can come: each identifier is ended exactly once, and an end that comes before
/// the platform answered ends the request as soon as it does.
@Suite struct BackgroundWorkRequestTests {
    @Test func anEndAfterTheBeginEndsItOnce() {
        let request = BackgroundWorkRequest()
        #expect(request.begun(identifier: 7) == false)
        #expect(request.end() == 7)
        #expect(request.end() == nil, "the expiry after the SDK's end ends nothing")
    }

    @Test func anEndBeforeTheBeginEndsTheBeginAtOnce() {
        let request = BackgroundWorkRequest()
        #expect(request.end() == nil, "nothing to end before the platform answered")
        #expect(request.begun(identifier: 9) == true, "the begin must end at once")
        #expect(request.end() == nil)
    }

    @Test func theExpiryAndTheSDKRacingEndItOnce() async {
        let request = BackgroundWorkRequest()
        _ = request.begun(identifier: 3)
        let ended = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<8 { group.addTask { request.end() } }
            return await group.reduce(into: [Int]()) { if let id = $1 { $0.append(id) } }
        }
        #expect(ended == [3])
    }
}
