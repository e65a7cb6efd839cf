import FCMStore
import NIOCore

/// Write-ahead for a connection: nothing leaves for the app server before the
/// journal holds the state it reports. Each write is tagged with the journal's
/// sequence number at that moment and held until that number is on disk; flushes
/// and closes wait behind the writes before them. When everything is already on
/// disk (most of the time between bursts), writes pass straight through.
final class DurableFlushGate: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct Held {
        var data: NIOAny
        var promise: EventLoopPromise<Void>?
        var seq: Int64
    }

    private enum Waiting {
        case write(Held)
        case flush(seq: Int64)
        case close(CloseMode, EventLoopPromise<Void>?, seq: Int64)

        var seq: Int64 {
            switch self {
            case .write(let held): held.seq
            case .flush(let seq), .close(_, _, let seq): seq
            }
        }
    }

    private let releases: DurableReleases
    /// This connection's loop's queue of what waits for the journal.
    private var loopReleases: LoopReleases?
    private var waiting = CircularBuffer<Waiting>()
    /// A release is queued on the loop (one at a time per connection).
    private var callbackPending = false
    private var removed = false

    /// Nothing is held when `releases` has no store (nothing is saved).
    init(releases: DurableReleases) {
        self.releases = releases
    }

    func handlerAdded(context: ChannelHandlerContext) {
        loopReleases = releases.queue(on: context.eventLoop)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let store = releases.store else { return context.write(data, promise: promise) }
        let seq = store.appendedSeq
        if waiting.isEmpty && store.isDurable(seq) {
            context.write(data, promise: promise)
        } else {
            hold(.write(Held(data: data, promise: promise, seq: seq)), context: context)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if waiting.isEmpty {
            context.flush()
        } else {
            hold(.flush(seq: waiting.last?.seq ?? 0), context: context)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if waiting.isEmpty {
            context.close(mode: mode, promise: promise)
        } else {
            hold(.close(mode, promise, seq: waiting.last?.seq ?? 0), context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        for item in waiting {
            switch item {
            case .write(let held): held.promise?.fail(ChannelError.ioOnClosedChannel)
            case .close(_, let promise, _): promise?.fail(ChannelError.ioOnClosedChannel)
            case .flush: break
            }
        }
        waiting.removeAll()
    }

    private func hold(_ item: Waiting, context: ChannelHandlerContext) {
        waiting.append(item)
        if !callbackPending { awaitDisk(context: context) }
    }

    /// Asks to be called back once the oldest held item is on disk: each commit lets
    /// out what it made durable, not only the one that holds the newest.
    private func awaitDisk(context: ChannelHandlerContext) {
        guard let first = waiting.first, let loopReleases else { return }
        callbackPending = true
        loopReleases.after(first.seq) { [self] in release(context: context) }
    }

    /// Passes on, in order, everything whose state is now on disk, and flushes what it
    /// passed even when the flush that was asked for still waits behind newer writes:
    /// what is on disk may leave, and holding it back for the rest would make one
    /// connection wait for a whole burst's commits before any of its replies go out.
    /// Waits again for what came in meanwhile.
    private func release(context: ChannelHandlerContext) {
        callbackPending = false
        guard !removed else { return }
        let durable = releases.store?.durableSeq ?? .max
        var unflushed = false
        while let first = waiting.first, first.seq <= durable {
            waiting.removeFirst()
            switch first {
            case .write(let held):
                context.write(held.data, promise: held.promise)
                unflushed = true
            case .flush:
                context.flush()
                unflushed = false
            case .close(let mode, let promise, _): context.close(mode: mode, promise: promise)
            }
        }
        if unflushed { context.flush() }
        if !waiting.isEmpty { awaitDisk(context: context) }
    }
}
