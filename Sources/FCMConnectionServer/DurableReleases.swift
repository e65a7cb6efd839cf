import FCMStore
import NIOConcurrencyHelpers
import NIOCore

/// What waits for the journal, gathered per event loop: however many connections of
/// a loop hold replies, the journal calls back once per loop and commit, and that
/// call lets out everything the commit made durable. (One callback per connection
/// woke the loop once for each: a commit of 30 HTTP sends cost 30 wakeups on the
/// journal's thread, between that commit and the next.)
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

/// One event loop's actions waiting for the journal; used on that loop only. Each
/// connection has at most one action here at a time (its own writes keep their order
/// behind it), so actions of different connections need no order among themselves:
/// whatever is on disk goes, and nothing waits behind another connection's commit.
final class LoopReleases: @unchecked Sendable {
    private let store: DeviceStore?
    private let loop: any EventLoop
    private var waiting: [(point: Int64, action: () -> Void)] = []
    /// A callback from the journal is on its way (one at a time per loop).
    private var awaitingDisk = false
    /// A pass over what is already on disk is queued on the loop.
    private var passQueued = false
    /// Actions are running: what they queue is looked at once they are done.
    private var releasing = false

    init(store: DeviceStore?, loop: any EventLoop) {
        self.store = store
        self.loop = loop
    }

    /// Runs `action` on the loop once the journal is on disk up to `point`, never
    /// inside this call.
    func after(_ point: Int64, _ action: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        waiting.append((point, action))
        if !releasing { arm() }
    }

    private var durable: Int64 { store?.durableSeq ?? .max }

    /// Queues a pass for what is on disk already, or asks the journal to call back
    /// when the lowest point still waiting is.
    private func arm() {
        let durable = self.durable
        guard let lowest = waiting.lazy.map(\.point).min() else { return }
        if lowest <= durable {
            guard !passQueued else { return }
            passQueued = true
            loop.execute {
                self.passQueued = false
                self.release()
            }
        } else if !awaitingDisk, let store {
            awaitingDisk = true
            store.whenDurable(lowest) {
                self.loop.execute {
                    self.awaitingDisk = false
                    self.release()
                }
            }
        }
    }

    /// Runs every action whose point is on disk, then waits again for the rest.
    private func release() {
        let durable = self.durable
        var ready: [() -> Void] = []
        waiting.removeAll { entry in
            guard entry.point <= durable else { return false }
            ready.append(entry.action)
            return true
        }
        releasing = true
        for action in ready { action() }
        releasing = false
        arm()
    }
}
