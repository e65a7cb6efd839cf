import FCMStore
import NIOConcurrencyHelpers
import NIOCore

/// What waits for the journal, gathered per event loop: however many connections of
/// a loop hold replies, the journal calls back once per loop and commit, and that
/// call lets out, in order, everything the commit made durable. (One callback per
/// connection woke the loop once for each: a commit of 30 HTTP sends cost 30 wakeups
/// on the journal's thread, between that commit and the next.)
final class DurableReleases: Sendable {
    /// Nil when nothing is saved: then nothing waits.
    let store: DeviceStore?
    private let queues = NIOLockedValueBox<[ObjectIdentifier: LoopReleases]>([:])

    init(store: DeviceStore?) {
        self.store = store
    }

    /// The queue of `loop`, made on first use (once per connection, not per reply).
    func queue(on loop: any EventLoop) -> LoopReleases {
        queues.withLockedValue { queues in
            let key = ObjectIdentifier(loop)
            if let queue = queues[key] { return queue }
            let queue = LoopReleases(store: store, loop: loop)
            queues[key] = queue
            return queue
        }
    }
}

/// One event loop's actions waiting for the journal; used on that loop only.
final class LoopReleases: @unchecked Sendable {
    private let store: DeviceStore?
    private let loop: any EventLoop
    private var waiting = CircularBuffer<(point: Int64, action: () -> Void)>()
    /// A callback from the journal is on its way (one at a time per loop).
    private var callbackPending = false

    init(store: DeviceStore?, loop: any EventLoop) {
        self.store = store
        self.loop = loop
    }

    /// Runs `action` on the loop once the journal is on disk up to `point`: never
    /// inside this call, and after every action queued before it.
    func after(_ point: Int64, _ action: @escaping () -> Void) {
        loop.assertInEventLoop()
        waiting.append((point, action))
        if !callbackPending { awaitDisk() }
    }

    private func awaitDisk() {
        guard let first = waiting.first else { return }
        callbackPending = true
        let loop = self.loop
        guard let store else {
            loop.execute { self.release(upTo: .max) }
            return
        }
        store.whenDurable(first.point) { loop.execute { self.release(upTo: store.durableSeq) } }
    }

    /// Runs what `durable` lets out, in order; waits again for the rest (an action may
    /// queue more: it waits its turn).
    private func release(upTo durable: Int64) {
        callbackPending = false
        while let first = waiting.first, first.point <= durable {
            waiting.removeFirst()
            first.action()
        }
        if !waiting.isEmpty, !callbackPending { awaitDisk() }
    }
}
