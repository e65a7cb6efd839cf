import FCMDoor
import FCMEngine
import FCMHTTPPort
import FCMProfiles

/// `GET events:stream?after=SEQ&type=…`: the event log as server-sent events, each
/// `id: SEQ`, `event: NAME` and `data: {the event as JSON}`, the same filters as
/// `GET events`; a comment line keeps an idle stream open.
public struct EventStream: Sendable {
    let log: EventLog
    let filter: EventFilter
    /// How long an idle stream waits before a keep-alive comment.
    static let idle: Duration = .seconds(15)

    /// The next text to send after `after`, and the sequence number it reaches; nil
    /// once the server is stopping.
    public func next(after: Int64) async -> (text: String, last: Int64)? {
        let found = await log.wait(after: after, limit: 1_000, timeout: Self.idle, matching: filter.matches)
        guard let newest = found.last else { return log.isClosed ? nil : (": keep-alive\n\n", after) }
        var text = ""
        for entry in found {
            text += "id: \(entry.seq)\nevent: \(entry.event.name)\ndata: "
            text += TranscriptFormatter.json(entry.event, seq: entry.seq) + "\n\n"
        }
        return (text, newest.seq)
    }

    public var start: Int64 { filter.after }
}

/// What the control API makes of a request: a reply, or a stream to keep writing.
public enum ControlAnswer: Sendable {
    case reply(HTTPReply)
    case stream(EventStream)
}

extension ControlService {
    /// A stream for `GET …/events:stream` (with `Last-Event-ID` honoured as `after`),
    /// the reply for everything else; the route is read once (`route(of:)`).
    public func answer(_ request: HTTPRequestParts) async -> ControlAnswer {
        let route: ControlRoute
        switch self.route(of: request) {
        case .failure(let refusal): return .reply(refusal.reply)
        case .success(let read): route = read
        }
        guard route == .eventStream else { return .reply(await respond(request, on: route)) }
        var filter: EventFilter
        switch EventFilter.read(request) {
        case .success(let read): filter = read
        case .failure(let problem): return .reply(Self.error(400, problem.description))
        }
        if let last = request.header("last-event-id").flatMap(Int64.init) { filter.after = max(filter.after, last) }
        return .stream(EventStream(log: log, filter: filter))
    }
}
