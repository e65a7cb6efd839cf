import FCMDoor
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

    /// A store whose commits are held, a test loop, its queue, and a record of what ran.
    func heldStore() throws -> (DeviceStore, NIOAsyncTestingEventLoop, LoopReleases, Order) {
        let store = try DurableFlushGateTests().openStore()
        let loop = NIOAsyncTestingEventLoop()
        store.writer.pause()
        return (store, loop, DurableReleases(store: store).queue(on: loop), Order())
    }

    @Test("each commit lets out what it made durable; nothing runs inside the call that queues it")
    func releasedAsCommitsLand() async throws {
        let (store, loop, queue, order) = try heldStore()
        defer { store.close(final: engine) }
        let first = store.append([.advance(to: 1)], engine: engine)
        try await loop.executeInContext {
            queue.after(first) { order.ran.append("first") }
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
        #expect(order.ran == ["first"])
        store.writer.resume()
        await store.durable(second)
        await loop.run()
        #expect(order.ran == ["first", "second"])
    }

    @Test("a reply with nothing to wait for does not wait behind another connection's commit")
    func noHeadOfLineWait() async throws {
        let (store, loop, queue, order) = try heldStore()
        defer { store.close(final: engine) }
        let pending = store.append([.advance(to: 1)], engine: engine)
        try await loop.executeInContext {
            queue.after(pending) { order.ran.append("waits for its commit") }
            queue.after(0) { order.ran.append("refused at once") }
            #expect(order.ran.isEmpty)
        }
        await loop.run()
        #expect(order.ran == ["refused at once"])
        store.writer.resume()
        await store.durable(pending)
        await loop.run()
        #expect(order.ran == ["refused at once", "waits for its commit"])
    }

    @Test("what an action queues (the next pipelined reply) waits for its own point")
    func actionQueuesMore() async throws {
        let (store, loop, queue, order) = try heldStore()
        defer { store.close(final: engine) }
        let first = store.append([.advance(to: 1)], engine: engine)
        let engine = self.engine
        try await loop.executeInContext {
            queue.after(first) {
                order.ran.append("first")
                queue.after(first) { order.ran.append("behind it, already on disk") }
                // Held here: the loop may run this as soon as the first commit lands.
                store.writer.pause()
                let later = store.append([.advance(to: 2)], engine: engine)
                queue.after(later) { order.ran.append("behind it, not on disk yet") }
            }
        }
        store.writer.resume()
        await store.durable(first)
        await loop.run()
        #expect(order.ran == ["first", "behind it, already on disk"])
        store.writer.resume()
        await store.durable(store.appendedSeq)
        await loop.run()
        #expect(order.ran == ["first", "behind it, already on disk", "behind it, not on disk yet"])
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
