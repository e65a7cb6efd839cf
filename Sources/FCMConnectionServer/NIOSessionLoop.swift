import FCMDoor
import FCMEngine
import NIOCore

/// A served session's loop: the event loop its XMPP and MCS connections run on.
public final class NIOSessionLoop: SessionLoop {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public var inLoop: Bool { eventLoop.inEventLoop }

    public func execute(_ task: @escaping @Sendable () -> Void) { eventLoop.execute(task) }

    public func schedule(in span: Millis, _ task: @escaping @Sendable () -> Void) -> any SessionTimer {
        NIOSessionTimer(scheduled: eventLoop.scheduleTask(in: .milliseconds(span), task))
    }
}

struct NIOSessionTimer: SessionTimer {
    let scheduled: Scheduled<Void>

    func cancel() { scheduled.cancel() }
}
