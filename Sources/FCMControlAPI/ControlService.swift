import FCMDoor
import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMProfiles
import Foundation
import Synchronization

/// Reads the running device where it lies, under the session's lock: nothing is
/// copied (a copy held while the session changes the engine would make the session
/// copy every phone). `body` should read and answer, not keep the engine.
public protocol EngineReader: Sendable {
    func read<T>(_ body: (DeviceEngine) -> T) -> T
}

/// How the control API reaches the running device. The engine decides what each
/// action does; these calls only carry it there and back.
public struct ControlGateway: Sendable {
    /// The device as it stands, read in place (a name resolved, a body read against it).
    public var reader: any EngineReader
    /// Runs a profile action (a command or a push) at the session's current time and
    /// answers the events it produced, numbered as the event log numbers them, once
    /// they are on disk.
    public var perform: @Sendable (StepAction) async -> [EventLog.Entry]
    /// The senders app servers may act for now (asked at every request).
    public var appServers: @Sendable () -> AppServerSenders
    /// The session's time now (its clock runs between events); nil: the device's
    /// time as of its last event.
    public var now: @Sendable () -> Millis?

    public init(
        reader: any EngineReader,
        perform: @escaping @Sendable (StepAction) async -> [EventLog.Entry],
        appServers: @escaping @Sendable () -> AppServerSenders,
        now: @escaping @Sendable () -> Millis? = { nil }
    ) {
        self.reader = reader
        self.perform = perform
        self.appServers = appServers
        self.now = now
    }

    /// Reads the device in place.
    func read<T>(_ body: (DeviceEngine) -> T) -> T { reader.read(body) }

    /// The whole device as it stands, to answer a read of every phone without holding
    /// the session meanwhile (a copy, taken for that request and dropped).
    func snapshot() -> DeviceEngine { reader.read { $0 } }
}

/// The control API for test suites, on the HTTP port under
/// `/emulator/v1/projects/{project}/` (the Firebase emulators' convention): the
/// device, the event log (read, filtered, waited for), actions in the profile's own
/// step syntax, and expectations judged against the log.
public final class ControlService: Sendable {
    public static let prefix = HTTPRoute.controlPrefix
    /// The longest a caller may wait for an event.
    public static let maxWait: Duration = .seconds(60)

    let log: EventLog
    let device: ControlGateway
    /// The one judge of expectations, as a profile's runner uses it: an `expect` met
    /// by an event claims it, so two `expect`s of one event need two events. Reset
    /// with the device.
    let judge = Mutex(ExpectationJudge())
    /// The HTTP port's one authentication step (the control token, and whether the
    /// API is open at all), shared with the send APIs.
    let authenticator: HTTPAuthenticator

    public init(log: EventLog, authenticator: HTTPAuthenticator, device: ControlGateway) {
        self.log = log
        self.authenticator = authenticator
        self.device = device
    }

    /// A control API of its own, with this control token (and closed for this reason).
    public convenience init(log: EventLog, token: String?, closedBecause: String? = nil, device: ControlGateway) {
        self.init(
            log: log,
            authenticator: HTTPAuthenticator(
                findSender: { [appServers = device.appServers] in appServers().find($0) }, controlToken: token,
                controlClosedBecause: closedBecause),
            device: device)
    }

    public func respond(_ request: HTTPRequestParts) async -> HTTPReply {
        switch route(of: request) {
        case .failure(let refusal): return refusal.reply
        case .success(let route): return await respond(request, on: route)
        }
    }

    /// A refusal before any route is answered (not found, not allowed).
    struct Refusal: Error {
        let reply: HTTPReply
    }

    /// The route a request names, read once through `ControlRoute`, after the
    /// authentication step and the project check; or the refusal to answer.
    func route(of request: HTTPRequestParts) -> Result<ControlRoute, Refusal> {
        guard let controlRoute = HTTPRoute(path: request.path), case .control(let project, _) = controlRoute else {
            return .failure(Refusal(reply: Self.error(404, "not a control route: \(request.path)")))
        }
        if case .failure(let refusal) = authenticator.authenticate(request, for: controlRoute) {
            return .failure(Refusal(reply: refusal.reply))
        }
        let rest = request.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard !project.isEmpty else {
            return .failure(Refusal(reply: Self.error(404, "name the project: \(Self.prefix)PROJECT/…")))
        }
        let senders = device.appServers()
        guard senders.sender(project: project) != nil else {
            return .failure(
                Refusal(
                    reply: Self.error(
                        404,
                        "no project \(project) here: no phone registers with a sender of that project or id; "
                            + "the projects are \(senders.projectNames)")))
        }
        let segments = rest.dropFirst().map { FormDecodingName.decode(String($0)) }
        guard let route = ControlRoute(method: request.method, segments: segments) else {
            return .failure(
                Refusal(
                    reply: Self.error(
                        404,
                        "no such control route: \(request.method) \(request.path); there are "
                            + ControlRoute.listed(under: "\(Self.prefix)\(project)/"))))
        }
        return .success(route)
    }

    func respond(_ request: HTTPRequestParts, on route: ControlRoute) async -> HTTPReply {
        switch route {
        case .devices: return await devices()
        case .device(let name): return await device(named: name)
        case .events: return await events(request)
        // A stream is answered by `answer(_:)`; asked of `respond`, it is the log's page.
        case .eventStream: return await events(request)
        case .expectations: return await expectation(request)
        case .addFault: return await addFault(request)
        case .clearFaults: return await run(.clearFaults)
        case .faults: return await faults()
        case .reset:
            judge.withLock { $0.forget() }
            return await run(.reset)
        case .report: return .json(200, log.report.json.json)
        case .action(let name): return await action(request, device: name)
        case .fleetAction: return await action(request, device: nil)
        }
    }

    static func error(_ status: Int, _ text: String) -> HTTPReply { HTTPAuthenticator.controlError(status, text) }

    // MARK: Devices

    func devices() async -> HTTPReply {
        let engine = device.snapshot()
        let reports = engine.devices.indices.map { engine.snapshot(ofPhoneAt: $0) }
        let document = JSONValue.members([
            // The session's time, not the last event's: a served clock runs between them.
            "clock": .int(max(engine.now, device.now() ?? engine.now)), "fanOuts": engine.pendingFanOutsJSON,
            "devices": .array(reports),
        ])
        return .json(200, document.json)
    }

    func device(named name: String) async -> HTTPReply {
        device.read { engine in
            switch engine.phoneIndex(named: name) {
            case .success(let index): .json(200, engine.snapshot(ofPhoneAt: index).json)
            case .failure(let problem): Self.error(404, problem.description)
            }
        }
    }

    // MARK: Events

    func events(_ request: HTTPRequestParts) async -> HTTPReply {
        let filter: EventFilter
        switch EventFilter.read(request) {
        case .success(let read): filter = read
        case .failure(let problem): return Self.error(400, problem.description)
        }
        let found: [EventLog.Entry]
        if let wait = filter.wait {
            found = await log.wait(after: filter.after, limit: filter.limit, timeout: wait, matching: filter.matches)
        } else {
            found = log.entries(after: filter.after, limit: filter.limit, matching: filter.matches)
        }
        return Self.eventsReply(found, last: log.lastSeq)
    }

    static func eventsReply(
        _ entries: [EventLog.Entry], last: Int64, status: Int = 200, error: JSONValue? = nil
    ) -> HTTPReply {
        // An error, when there is one, first; the events and `last` as ever.
        var body = error.map { "{\"error\":" + $0.json + ",\"events\":[" } ?? "{\"events\":["
        for (index, entry) in entries.enumerated() {
            if index > 0 { body += "," }
            body += TranscriptFormatter.json(entry.event, seq: entry.seq)
        }
        body += "],\"last\":\(last)}"
        return .json(status, body)
    }

    // MARK: Actions and expectations

    /// An action at a phone's door (`devices/NAME/actions`), or at the fleet's
    /// (`actions`, `name` nil): each door takes its own steps (`StepAction.door`) and
    /// names the other for the rest.
    func action(_ request: HTTPRequestParts, device name: String?) async -> HTTPReply {
        // The body parsed first, without holding the device; then the name resolved and
        // the action read against the device in place, once.
        let body: ActionBody
        do throws(ProfileError) {
            body = try ActionBody(String(decoding: request.body, as: UTF8.self), source: "request body")
        } catch {
            return Self.error(400, error.description)
        }
        let read: Resolved = device.read { engine in
            var phone: String?
            if let name {
                switch engine.phoneIndex(named: name) {
                case .success(let index): phone = engine.devices[index].name
                case .failure(let problem): return .refused(Self.error(404, problem.description))
                }
            }
            let read: (key: String, action: StepAction, door: StepDoor)
            do throws(ProfileError) {
                read = try ProfileParser.readAction(body, on: engine, phone: phone)
            } catch {
                return .refused(Self.error(400, error.description))
            }
            switch read.action {
            case .expect, .expectNone:
                return .refused(Self.error(400, "an expectation goes to POST expectations, not to a device's actions"))
            case .command, .push:
                if let refusal = Self.wrongDoor(read.door, key: read.key, phone: phone, engine: engine) {
                    return .refused(Self.error(400, refusal))
                }
                return .action(read.action)
            }
        }
        switch read {
        case .action(let action): return Self.actionReply(await device.perform(action), last: log.lastSeq)
        case .refused(let refusal): return refusal
        }
    }

    /// The events an action caused; when the device refused it (its `commandRefused`
    /// event: the app stopped, the tray empty), 409 with the device's words as the
    /// error's message, and the events all the same: a client that acts and reads 200
    /// can count on the action having been taken.
    static func actionReply(_ entries: [EventLog.Entry], last: Int64) -> HTTPReply {
        guard let refusal = entries.first(where: { $0.event.kind == .commandRefused })?.event else {
            return eventsReply(entries, last: last)
        }
        let detail = refusal.string("detail") ?? "refused"
        let message = refusal.string("command").map { "\($0) refused: \(detail)" } ?? detail
        let error = JSONValue.members([
            "code": .int(409), "message": .string(message), "status": .string("FAILED_PRECONDITION"),
        ])
        return eventsReply(entries, last: last, status: 409, error: error)
    }

    /// A request's action read against the device, or the answer that refuses it.
    enum Resolved {
        case action(StepAction)
        case refused(HTTPReply)
    }

    /// Why a step whose door is `door` is not this door's (a phone's, or the fleet's
    /// when `phone` is nil), naming the door that takes it; nil when it is.
    static func wrongDoor(_ door: StepDoor, key: String, phone: String?, engine: DeviceEngine) -> String? {
        switch (door, phone) {
        case (.phone, nil):
            let what = key == "push" ? "a push to a phone's own token (latest, previous)" : key
            return "\(what) is a phone's step: POST devices/NAME/actions, NAME one of \(phoneNames(engine))"
        case (.fleet, let phone?):
            let what =
                key == "push"
                ? "a push to a topic, a condition, a group, a token named outright or a list of devices" : key
            return "\(what) is the fleet's step, not \(phone)'s: POST actions"
        default: return nil
        }
    }

    /// The names a phone's door takes: `default` too on a device of one; on a fleet,
    /// the first few as the engine names phones in its messages.
    static func phoneNames(_ engine: DeviceEngine) -> String {
        let phones = engine.devices
        if phones.count == 1 { return "default, or \(phones[0].name)" }
        return DeviceEngine.phoneNames(phones.prefix(5).map(\.name), of: phones.count)
    }

    /// Runs one command and answers the events it caused.
    func run(_ command: Input) async -> HTTPReply {
        Self.eventsReply(await device.perform(.command(command)), last: log.lastSeq)
    }

    /// `POST faults` with a fault in the profile's `fault:` syntax, as JSON.
    func addFault(_ request: HTTPRequestParts) async -> HTTPReply {
        let text = String(decoding: request.body, as: UTF8.self)
        let body: ActionBody
        do throws(ProfileError) {
            body = try ActionBody("{\"fault\": \(text)}", source: "request body")
        } catch {
            return Self.error(400, error.description)
        }
        let read: Resolved = device.read { engine in
            do throws(ProfileError) {
                return .action(try ProfileParser.readAction(body, on: engine).action)
            } catch {
                return .refused(Self.error(400, error.description))
            }
        }
        switch read {
        case .refused(let refusal): return refusal
        case .action(.command(let command)): return await run(command)
        case .action: return Self.error(400, "the body must be one fault")
        }
    }

    func faults() async -> HTTPReply {
        let faults = device.read { $0.server.faults }
        let items = faults.map { fault -> JSONValue in
            var members: [(key: String, value: JSONValue)] = [
                (key: "fault", value: .int(fault.id)), (key: "does", value: .string(fault.summary)),
            ]
            for (name, value) in [
                ("path", fault.path), ("token", fault.token), ("sender", fault.sender), ("topic", fault.topic),
            ] {
                if let value { members.append((key: name, value: .string(value))) }
            }
            if let count = fault.count { members.append((key: "left", value: .int(count))) }
            if let until = fault.until { members.append((key: "until", value: .int(until))) }
            return .object(JSONObject(members))
        }
        return .json(200, JSONValue.members(["faults": .array(items)]).json)
    }

    func expectation(_ request: HTTPRequestParts) async -> HTTPReply {
        let text = String(decoding: request.body, as: UTF8.self)
        // Parsed without holding the device; read against it in place.
        if let problem = ExpectationCall.shapeProblem(text) { return Self.error(400, problem) }
        let body: ActionBody
        do throws(ProfileError) {
            body = try ActionBody(text, source: "request body")
        } catch {
            return Self.error(400, error.description)
        }
        var check: ExpectationCall
        switch device.read({ ExpectationCall.read(body, query: request, engine: $0) }) {
        case .success(let read): check = read
        case .failure(let problem): return Self.error(400, problem.description)
        }
        let expectation = check.expectation
        let negated = check.negated
        // Judged by the one judge on what the log holds; an `expect` not met yet may
        // wait for an event it could claim.
        let judgedUpTo = log.lastSeq
        var verdict = judge.withLock { judge in
            judge.judge(
                expectation, negated: negated,
                among: log.entries(after: check.after, limit: 100_000) { $0.name == expectation.event }.lazy.map {
                    (key: $0.seq, event: $0.event)
                })
        }
        if !verdict.held, !negated, let wait = check.wait {
            // Waits for an event this call can claim: one another call claimed first
            // does not end the wait.
            let deadline = ContinuousClock.now + wait
            var seen = max(check.after, judgedUpTo)
            while !verdict.held, ContinuousClock.now < deadline {
                let waited = await log.wait(after: seen, limit: 1, timeout: deadline - ContinuousClock.now) { event in
                    expectation.matches(event) && event.side != .check
                }
                guard let hit = waited.first else { break }
                seen = hit.seq
                verdict = judge.withLock { judge in
                    judge.judge(expectation, negated: false, among: [(key: hit.seq, event: hit.event)])
                }
            }
            if !verdict.held {
                // What happened instead, over everything up to now.
                verdict.sameName = log.entries(after: check.after, limit: 100_000) { $0.name == expectation.event }
                    .filter { $0.event.side != .check }.map { (key: $0.seq, event: $0.event) }
            }
        }
        check.judge(verdict)
        return .json(200, check.replyJSON)
    }
}

/// A path segment, percent-decoded (a device name may hold spaces).
enum FormDecodingName {
    static func decode(_ segment: String) -> String {
        segment.removingPercentEncoding ?? segment
    }
}
