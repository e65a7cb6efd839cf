import FCMEngine
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import FCMConnectionServer
@testable import FCMStore

/// What waits for the journal on one event loop, with commits held and let go by hand.
@Suite("Releases held for the journal, per event loop")
struct DurableReleasesTests {
    let engine = DeviceEngine(WriteAheadTests.configuration)

    final class Order: @unchecked Sendable {
        var ran: [String] = []
    }

    @Test("each commit lets out what it made durable, in the order queued; nothing runs inside the call that queues it")
    func releasedInOrderAsCommitsLand() async throws {
        let store = try DurableFlushGateTests().openStore()
        defer { store.close(final: engine) }
        let loop = NIOAsyncTestingEventLoop()
        let queue = DurableReleases(store: store).queue(on: loop)
        let order = Order()
        store.writer.pause()
        let first = store.append([.advance(to: 1)], engine: engine)
        try await loop.executeInContext {
            queue.after(first) { order.ran.append("first") }
            queue.after(0) { order.ran.append("nothing to wait for, behind first") }
            #expect(order.ran.isEmpty)
        }
        await loop.run()
        #expect(order.ran.isEmpty, "a reply left before its state was on disk")
        store.writer.resume()
        await store.durable(first)
        store.writer.pause()
        let second = store.append([.advance(to: 2)], engine: engine)
        try await loop.executeInContext { queue.after(second) { order.ran.append("second") } }
        await loop.run()
        #expect(order.ran == ["first", "nothing to wait for, behind first"])
        store.writer.resume()
        await store.durable(second)
        await loop.run()
        #expect(order.ran == ["first", "nothing to wait for, behind first", "second"])
    }

    @Test("without a store nothing waits, but the action still runs on a later turn of the loop")
    func withoutStore() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let queue = DurableReleases(store: nil).queue(on: loop)
        let order = Order()
        try await loop.executeInContext {
            queue.after(0) { order.ran.append("a") }
            queue.after(5) { order.ran.append("b") }
            #expect(order.ran.isEmpty)
        }
        await loop.run()
        #expect(order.ran == ["a", "b"])
    }

    @Test("one loop's queue is shared by its connections; another loop has its own")
    func oneQueuePerLoop() {
        let releases = DurableReleases(store: nil)
        let one = NIOAsyncTestingEventLoop()
        let other = NIOAsyncTestingEventLoop()
        #expect(releases.queue(on: one) === releases.queue(on: one))
        #expect(releases.queue(on: one) !== releases.queue(on: other))
    }
}
