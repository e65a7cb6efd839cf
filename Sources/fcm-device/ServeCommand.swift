import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMJSON
import FCMProfiles
import Foundation

/// `fcm-device serve`: the device and its connection server, headless.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the device and the emulated connection server headless, logging JSON lines.",
        discussion: """
            Prints {"event":"listening","ccs":N,"ccsPlain":N,"http":N,"tlsCert":"PATH"} first ("https":N \
            too with --https-port), then \
            every event as a JSON line. Stops cleanly on SIGINT or SIGTERM, writing the app server's \
            report card ({"event":"report","findings":[…]}, docs/report.md) and then {"event":"stopped"}. The HTTP port serves POST \
            /fcm/send and /gcm/send (legacy, Authorization: key=SERVER_KEY), POST \
            /v1/projects/PROJECT/messages:send (Authorization: Bearer TOKEN), POST /token (the OAuth2 \
            grant for the service-account JSON that `fcm-device credentials` prints) and Web Push to a \
            browser's subscription at POST /fcm/send/ID and /wp/ID (VAPID; docs/app-servers.md).
            """
    )

    @Option(help: "A device profile (YAML); its timeline plays on the real clock. Default: the built-in device.")
    var profile: String?

    @OptionGroup var listen: ListenOptions

    func run() async throws {
        // Armed first: a stop asked for while the device opens is not lost.
        let stop = StopSignal.arm()
        var loaded = try ProfileLoading.load(profile)
        if profile == nil { loaded.steps = [] }
        let output = LineWriter()
        let session = try await listen.openSession(loaded, profilePath: profile) { event, seq in
            output.write(event, seq: seq)
        }
        output.write(session.listening.json)
        output.flush()
        try await session.start(timeline: loaded.steps)
        let signal = await stop.wait()
        // The app server's report card, as the run left it before the stop ended its
        // connections (docs/report.md).
        let card = session.server.events.runReport
        try await session.stop()
        var report = JSONObject([(key: "event", value: .string("report"))])
        if case .object(let members) = card.json { report.members += members.members }
        output.write(JSONValue.object(report).json)
        output.write(JSONValue.members(["event": .string("stopped"), "signal": .int(Int(signal))]).json)
        output.flush()
        // Everything is on disk and written out: the process ends here, without
        // freeing a fleet of a million phones one object at a time on the way.
        withExtendedLifetime(session) { Foundation.exit(0) }
    }
}

/// Writes whole lines to standard output from any thread, in batches: a busy server
/// logs thousands of events a second, and a write per line would cost more than the
/// events. An event is kept as it is and written as a JSON line only when its batch
/// goes out, on the writer's own queue, not on the thread that logged it. Lines go
/// out within 20 ms, or soon past 4,096 waiting, and on `flush()`, in the order they
/// were given. A thread that logs faster than lines can be written waits once
/// `waitingLimit` lines wait (a burst, such as a big fleet's first tokens, does not).
final class LineWriter: @unchecked Sendable {
    enum Line {
        case text(String)
        case event(Event, seq: Int64)
    }

    private let lock = NSLock()
    /// Held while a batch is taken and written, so batches go out in order.
    private let writing = NSLock()
    private var pending: [Line] = []
    /// Whether a batch was handed to the queue and not written yet.
    private var batchQueued = false
    private let queue = DispatchQueue(label: "fcm-device.log")
    private let timer: any DispatchSourceTimer
    static let batchLines = 4_096
    static let waitingLimit = 1 << 20

    init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(20), repeating: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    func write(_ line: String) {
        add(.text(line))
    }

    /// An event, as a JSON line led by its place in the event log (`seq`, as the
    /// control API and the report card's evidence number it).
    func write(_ event: Event, seq: Int64) {
        add(.event(event, seq: seq))
    }

    private func add(_ line: Line) {
        lock.lock()
        pending.append(line)
        let overflowing = pending.count >= Self.waitingLimit
        let handOver = pending.count >= Self.batchLines && !batchQueued && !overflowing
        if handOver { batchQueued = true }
        lock.unlock()
        if overflowing {
            flush()
        } else if handOver {
            queue.async { [self] in
                lock.withLock { batchQueued = false }
                flush()
            }
        }
    }

    /// Set once standard output is gone (its reader closed the pipe): the server
    /// goes on, its log is dropped.
    private var outputClosed = false

    func flush() {
        writing.lock()
        defer { writing.unlock() }
        lock.lock()
        let lines = pending
        pending = []
        lock.unlock()
        // Written a few batches at a time: a burst of a million lines is never one
        // buffer of a million lines' text.
        var start = 0
        while start < lines.count {
            let end = min(start + 4 * Self.batchLines, lines.count)
            writeOut(lines[start..<end])
            start = end
        }
    }

    private func writeOut(_ lines: ArraySlice<Line>) {
        guard !lock.withLock({ outputClosed }) else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.count * 256)
        for line in lines {
            switch line {
            case .text(let text): bytes += text.utf8
            case .event(let event, let seq): TranscriptFormatter.appendJSON(event, seq: seq, to: &bytes)
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            try FileHandle.standardOutput.write(contentsOf: bytes)
        } catch {
            lock.withLock { outputClosed = true }
        }
    }
}

/// Waits for SIGINT or SIGTERM.
enum StopSignal {
    /// Starts listening for SIGINT and SIGTERM now: one that arrives before anyone
    /// waits (just after the listening line, say) is kept, not lost.
    static func arm() -> Armed {
        let armed = Armed()
        let queue = DispatchQueue(label: "fcm-device.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { armed.received(number) }
            source.resume()
            Sources.keep(source)
        }
        return armed
    }

    /// The first stop signal, once it came, and whoever waits for it.
    final class Armed: @unchecked Sendable {
        private let lock = NSLock()
        private var signal: Int32?
        private var waiting: CheckedContinuation<Int32, Never>?

        func received(_ number: Int32) {
            lock.lock()
            guard signal == nil else { return lock.unlock() }
            signal = number
            let waiter = waiting
            waiting = nil
            lock.unlock()
            waiter?.resume(returning: number)
        }

        func wait() async -> Int32 {
            await withCheckedContinuation { continuation in
                lock.lock()
                if let signal {
                    lock.unlock()
                    continuation.resume(returning: signal)
                } else {
                    waiting = continuation
                    lock.unlock()
                }
            }
        }
    }

    /// Keeps the signal sources alive for the life of the process.
    enum Sources {
        nonisolated(unsafe) static var all: [any DispatchSourceSignal] = []
        static func keep(_ source: any DispatchSourceSignal) { all.append(source) }
    }
}
