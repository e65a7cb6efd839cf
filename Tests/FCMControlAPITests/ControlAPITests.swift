import FCMControlAPI
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import FCMProfiles
import Foundation
import Testing

/// A real engine behind the control service, wired as the server wires it: every
/// event the engine produces goes into the log.
final class ControlledDevice: EngineReader, @unchecked Sendable {
    static let sender = "123456789012"
    let lock = NSLock()
    var engine: DeviceEngine
    let log = EventLog()
    var service: ControlService!
    var time: Millis = 0
    /// The session's clock, which runs on between events (nil: none given).
    var sessionNow: Millis?

    static let configuration = EngineConfiguration(
        device: DeviceSettings(name: "Pixel 8", platform: .android, sdk: .fcm, state: .foreground, seed: 4),
        senders: [SenderConfig(id: sender, key: "k", project: "demo-project")])

    init(token: String? = nil, configuration config: EngineConfiguration = ControlledDevice.configuration) {
        engine = DeviceEngine(config)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        for event in events { log.append(event) }
        service = ControlService(
            log: log, token: token,
            device: ControlGateway(
                reader: self,
                perform: { [unowned self] action in perform(action) },
                appServers: { [unowned self] in lock.withLock { engine.appServerSenders } },
                now: { [unowned self] in lock.withLock { sessionNow } }))
    }

    func read<T>(_ body: (DeviceEngine) -> T) -> T { lock.withLock { body(engine) } }

    func perform(_ action: StepAction) -> [EventLog.Entry] {
        var events: [Event] = []
        lock.withLock {
            time += 1_000
            for input in action.inputs(on: engine, at: time) { engine.handle(input, into: &events) }
        }
        return events.map { EventLog.Entry(seq: log.append($0), event: $0) }
    }

    func call(
        _ method: String, _ route: String, query: String = "", body: String = "", bearer: String? = nil,
        project: String = "demo-project"
    ) async -> (status: Int, json: [String: Any]) {
        var headers = ["Content-Type": "application/json"]
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        let reply = await service.respond(
            HTTPRequestParts(
                method: method, path: "/emulator/v1/projects/\(project)/" + route, query: query, headers: headers,
                body: Array(body.utf8)))
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any] ?? [:]
        return (reply.status, object)
    }

    static func names(_ json: [String: Any]) -> [String] {
        (json["events"] as? [[String: Any]] ?? []).compactMap { $0["event"] as? String }
    }
}

@Suite("Control API")
struct ControlAPITests {
    @Test("actions take the profile's step syntax and answer the events they caused, numbered")
    func actionsAnswerTheirEvents() async {
        let device = ControlledDevice()
        let offline = await device.call("POST", "devices/Pixel 8/actions", body: #"{"network": "offline"}"#)
        #expect(offline.status == 200)
        #expect(ControlledDevice.names(offline.json) == ["networkChanged"])
        let push = await device.call(
            "POST", "devices/default/actions",
            body: #"{"push": {"sender": "123456789012", "id": "m-1", "data": {"k": "v"}}}"#)
        #expect(ControlledDevice.names(push.json) == ["downstreamAccepted", "stored"])
        let seqs = (push.json["events"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        #expect(seqs.count == 2 && seqs[1] == seqs[0] + 1)
    }

    @Test("an action the device refuses answers 409 with the device's words, and the events it caused")
    func aRefusedActionAnswers409() async {
        let device = ControlledDevice()
        let tap = await device.call("POST", "devices/default/actions", body: #"{"tap": "last"}"#)
        #expect(tap.status == 409)
        let error = tap.json["error"] as? [String: Any] ?? [:]
        #expect(error["status"] as? String == "FAILED_PRECONDITION")
        #expect((error["message"] as? String)?.contains("the tray is empty") == true, "\(error)")
        #expect(ControlledDevice.names(tap.json) == ["commandRefused"])
        #expect(tap.json["last"] as? Int == Int(device.log.lastSeq))
        // The same door takes the next action as ever.
        let offline = await device.call("POST", "devices/default/actions", body: #"{"network": "offline"}"#)
        #expect(offline.status == 200 && offline.json["error"] == nil)
    }

    @Test("events are read after a sequence number and filtered by type and field")
    func eventsAreFiltered() async throws {
        let device = ControlledDevice()
        _ = await device.call("POST", "devices/default/actions", body: #"{"subscribe": "news"}"#)
        let start = device.log.lastSeq
        for id in ["a", "b"] {
            _ = await device.call(
                "POST", "actions",
                body: #"{"push": {"sender": "123456789012", "topic": "news", "id": "\#(id)"}}"#)
        }
        let all = await device.call("GET", "events", query: "after=\(start)")
        #expect(
            ControlledDevice.names(all.json) == [
                "downstreamAccepted", "onMessageReceived", "downstreamAccepted", "onMessageReceived",
            ])
        let one = await device.call("GET", "events", query: "type=onMessageReceived&id=b&from=%2Ftopics%2Fnews")
        #expect(ControlledDevice.names(one.json) == ["onMessageReceived"])
        #expect(one.json["last"] as? Int == Int(device.log.lastSeq))
    }

    @Test("a wait returns the event as soon as it happens, and nothing when the wait runs out")
    func waitsForAnEvent() async throws {
        let device = ControlledDevice()
        let after = device.log.lastSeq
        async let waited = device.call("GET", "events", query: "after=\(after)&type=onMessageReceived&wait=10s")
        try await device.log.untilSomeoneWaits()
        _ = device.perform(
            .push(
                PushStep(
                    request: DownstreamRequest(sender: ControlledDevice.sender, to: nil, messageID: "late"),
                    tokenOwner: ControlledDevice.sender)))
        let result = await waited
        #expect(ControlledDevice.names(result.json) == ["onMessageReceived"])
        let clock = ContinuousClock()
        let started = clock.now
        let empty = await device.call("GET", "events", query: "after=\(device.log.lastSeq)&wait=100ms")
        #expect(ControlledDevice.names(empty.json).isEmpty)
        #expect(clock.now - started >= .milliseconds(100))
    }

    @Test("expectations are judged against the log: held, or failed saying what happened instead")
    func expectations() async {
        let device = ControlledDevice()
        _ = await device.call("POST", "devices/default/actions", body: #"{"state": "background"}"#)
        _ = await device.call(
            "POST", "devices/default/actions",
            body: #"{"push": {"sender": "123456789012", "id": "n-1", "notification": {"title": "Hi"}}}"#)
        let held = await device.call(
            "POST", "expectations", body: #"{"expect": {"event": "notificationPosted", "id": "n-1"}}"#)
        #expect(held.json["held"] as? Bool == true)
        #expect(held.json["seq"] is Int)
        let failed = await device.call(
            "POST", "expectations", body: #"{"expect": {"event": "notificationPosted", "id": "n-2"}}"#)
        #expect(failed.json["held"] as? Bool == false)
        #expect((failed.json["detail"] as? String)?.contains("what happened instead") == true)
        let none = await device.call("POST", "expectations", body: #"{"expect_none": {"event": "onMessageReceived"}}"#)
        #expect(none.json["held"] as? Bool == true)
    }

    @Test("an expectation's body is told what it must be: wait goes in the query, an action goes to a phone")
    func expectationBodiesAreToldWhatTheyMustBe() async {
        let device = ControlledDevice()
        func message(_ body: String) async -> (Int, String) {
            let reply = await device.call("POST", "expectations", body: body)
            return (reply.status, (reply.json["error"] as? [String: Any])?["message"] as? String ?? "")
        }
        let waiting = await message(#"{"expect": {"event": "onNewToken", "wait": "5s"}}"#)
        #expect(waiting.0 == 400 && waiting.1.contains("wait goes in the query"), "\(waiting)")
        let pushed = await message(#"{"push": {"id": "n-1"}}"#)
        #expect(pushed.0 == 400 && pushed.1.contains("must be {\"expect\""), "\(pushed)")
        #expect(pushed.1.contains("not push") && !pushed.1.contains("sender"))
    }

    @Test("a malformed JSON body is reported as JSON, with where it broke; YAML is still taken")
    func malformedJSONIsCalledJSON() async {
        let device = ControlledDevice()
        let broken = await device.call("POST", "expectations", body: #"{"expect": {"event": "onNewToken",}"#)
        #expect(broken.status == 400)
        let message = (broken.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("invalid JSON"), "\(broken.json)")
        #expect(!message.contains("YAML"))
        let yaml = await device.call("POST", "expectations", body: "expect: { event: onNewToken }")
        #expect(yaml.status == 200)
    }

    @Test("an expectation naming a field its event never carries is 400 naming it, not held by a typo")
    func expectationsNameRealFields() async {
        let device = ControlledDevice()
        let typo = await device.call(
            "POST", "expectations", body: #"{"expect_none": {"event": "onMessageReceived", "idd": "m-1"}}"#)
        #expect(typo.status == 400)
        let error = (typo.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(error.contains("onMessageReceived has no field idd; did you mean id?"), "\(typo.json)")
        #expect(typo.json["held"] == nil)
    }

    @Test("one event meets one expect, as in a profile; a reset lets events be claimed again")
    func oneEventMeetsOneExpect() async {
        let device = ControlledDevice()
        _ = await device.call(
            "POST", "devices/default/actions",
            body: #"{"push": {"sender": "123456789012", "id": "d-1", "data": {"k": "v"}}}"#)
        let expect = #"{"expect": {"event": "onMessageReceived"}}"#
        let first = await device.call("POST", "expectations", body: expect)
        #expect(first.json["held"] as? Bool == true)
        let second = await device.call("POST", "expectations", body: expect)
        #expect(second.json["held"] as? Bool == false)
        #expect((second.json["detail"] as? String)?.contains("what happened instead") == true)
        _ = await device.call(
            "POST", "devices/default/actions",
            body: #"{"push": {"sender": "123456789012", "id": "d-2", "data": {"k": "v"}}}"#)
        let third = await device.call("POST", "expectations", body: expect)
        #expect(third.json["held"] as? Bool == true)
        _ = await device.call("POST", "reset")
        let again = await device.call("POST", "expectations", body: expect)
        #expect(again.json["held"] as? Bool == true)
    }

    @Test("the device shows its tokens, topics, tray and inbox")
    func devices() async {
        let device = ControlledDevice()
        _ = await device.call("POST", "devices/default/actions", body: #"{"subscribe": "news"}"#)
        _ = await device.call(
            "POST", "actions", body: #"{"push": {"sender": "123456789012", "topic": "news", "id": "t-1"}}"#)
        let report = await device.call("GET", "devices")
        let first = (report.json["devices"] as? [[String: Any]])?.first ?? [:]
        #expect(first["name"] as? String == "Pixel 8")
        #expect(
            (first["tokens"] as? [String: String])?[ControlledDevice.sender]
                == device.engine.devices[0].tokens[ControlledDevice.sender])
        #expect((first["topics"] as? [String: [String]])?[ControlledDevice.sender] == ["news"])
        let inbox = first["inbox"] as? [[String: Any]] ?? []
        #expect(inbox.last?["from"] as? String == "/topics/news")
    }

    @Test("bad calls get a 4xx naming what is wrong")
    func badCalls() async {
        let device = ControlledDevice()
        let cases: [(String, String, String, String, Int, String)] = [
            (
                "GET", "nope", "", "", 404,
                "no such control route: GET /emulator/v1/projects/demo-project/nope; there are GET devices, "
                    + "GET devices/NAME, GET events, GET events:stream, POST devices/NAME/actions, POST actions, POST expectations, "
                    + "POST faults, GET faults, DELETE faults, POST reset, GET report under /emulator/v1/projects/demo-project/"
            ),
            (
                "POST", "devices/Nokia/actions", "", #"{"network":"offline"}"#, 404,
                "no device is named Nokia; the phones are Pixel 8"
            ),
            ("POST", "devices/default/actions", "", #"{"network": "sideways"}"#, 400, "request body:1:13"),
            ("POST", "devices/default/actions", "", "{nope", 400, "request body:"),
            ("POST", "devices/default/actions", "", #"{"expect": {"event": "stored"}}"#, 400, "POST expectations"),
            ("GET", "events", "type=onMesageReceived", "", 400, "no event is called \"onMesageReceived\""),
            ("GET", "events", "wait=2m", "", 400, "at most 60s"),
            ("GET", "events", "after=-3", "", 400, "sequence number"),
            ("GET", "events", "after=0&tpye=onMessageReceived", "", 400, "GET events takes no parameter tpye"),
            ("POST", "expectations", "", #"{"network":"offline"}"#, 400, "expect"),
        ]
        for (method, route, query, body, status, words) in cases {
            let reply = await device.call(method, route, query: query, body: body)
            let message = (reply.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(reply.status == status, "\(route) \(body)")
            #expect(message.contains(words), "\(message)")
        }
        let wrongProject = await device.service.respond(
            HTTPRequestParts(method: "GET", path: "/emulator/v1/projects/other/devices"))
        #expect(wrongProject.status == 404)
        #expect(device.engine.devices[0].network == .online)
    }

    @Test("GET devices says the session's time, which runs on between events")
    func theClockIsTheSessions() async {
        let device = ControlledDevice()
        _ = await device.call("POST", "devices/default/actions", body: #"{"network":"offline"}"#)
        #expect(await device.call("GET", "devices").json["clock"] as? Int == 1_000, "the last event's, with no clock")
        device.lock.withLock { device.sessionNow = 9_500 }
        #expect(await device.call("GET", "devices").json["clock"] as? Int == 9_500)
    }

    @Test("with a control token, calls without it are refused")
    func controlToken() async {
        let device = ControlledDevice(token: "s3cret")
        #expect(await device.call("GET", "devices").status == 401)
        #expect(await device.call("GET", "devices", bearer: "wrong").status == 401)
        #expect(await device.call("GET", "devices", bearer: "s3cret").status == 200)
    }
}

@Suite("Control API: faults and reset")
struct ControlFaultTests {
    @Test("faults are added in the profile's syntax, listed, and cleared; a bad one is named")
    func faults() async {
        let device = ControlledDevice()
        let added = await device.call("POST", "faults", body: #"{"path": "/fcm/send", "status": 503, "count": 2}"#)
        #expect(ControlledDevice.names(added.json) == ["faultAdded"])
        let listed = await device.call("GET", "faults")
        let faults = listed.json["faults"] as? [[String: Any]] ?? []
        #expect(faults.first?["does"] as? String == "status 503")
        #expect(faults.first?["left"] as? Int == 2)
        let bad = await device.call(
            "POST", "faults", body: #"{"path": "/fcm/send", "status": 503, "error": "Unavailable"}"#)
        #expect(bad.status == 400)
        #expect(((bad.json["error"] as? [String: Any])?["message"] as? String)?.contains("does one thing") == true)
        let open = await device.call("POST", "faults", body: #"{"status": 503}"#)
        #expect(((open.json["error"] as? [String: Any])?["message"] as? String)?.contains("scope") == true)
        let cleared = await device.call("DELETE", "faults")
        #expect(ControlledDevice.names(cleared.json) == ["faultsCleared"])
        #expect(device.engine.server.faults.isEmpty)
    }

    @Test("reset returns the device to its start: the same token, nothing delivered, twice in a row")
    func reset() async {
        let device = ControlledDevice()
        let token = device.engine.devices[0].tokens[ControlledDevice.sender]
        _ = await device.call("POST", "devices/default/actions", body: #"{"refresh_token": true}"#)
        _ = await device.call("POST", "devices/default/actions", body: #"{"subscribe": "news"}"#)
        let first = await device.call("POST", "reset")
        #expect(ControlledDevice.names(first.json) == ["deviceReset", "onNewToken"])
        let second = await device.call("POST", "reset")
        #expect(ControlledDevice.names(second.json) == ["deviceReset", "onNewToken"])
        #expect(device.engine.devices[0].tokens[ControlledDevice.sender] == token)
        #expect(device.engine.devices[0].topicCount == 0)
    }

    @Test(
        "GET report judges the events in the log, its evidence numbered as GET events numbers them; a reset starts it over"
    )
    func report() async {
        let device = ControlledDevice()
        #expect(await device.call("GET", "report").json["findings"] as? [Any] != nil)
        // A high-priority data message that shows nothing.
        _ = await device.call(
            "POST", "devices/default/actions",
            body: #"{"push": {"sender": "123456789012", "priority": "high", "data": {"k": "v"}}}"#)
        let report = await device.call("GET", "report")
        #expect(report.status == 200)
        let findings = report.json["findings"] as? [[String: Any]] ?? []
        #expect(findings.compactMap { $0["rule"] as? String } == ["high-priority-unseen"])
        let example = (findings.first?["examples"] as? [[String: Any]])?.first
        let seq = example?["event"] as? Int ?? 0
        let events = await device.call("GET", "events", query: "after=\(seq - 1)&limit=1")
        #expect(ControlledDevice.names(events.json) == ["onMessageReceived"])
        _ = await device.call("POST", "reset")
        #expect((await device.call("GET", "report").json["findings"] as? [Any])?.isEmpty == true)
    }
}

@Suite("Control API: server-sent events")
struct EventStreamTests {
    @Test("the stream sends matching events as they happen, each with its id, and honours Last-Event-ID")
    func streamsEvents() async throws {
        let device = ControlledDevice()
        let answer = await device.service.answer(
            HTTPRequestParts(
                method: "GET", path: "/emulator/v1/projects/demo-project/events:stream",
                query: "type=networkChanged", headers: ["Last-Event-ID": "1"]))
        guard case .stream(let stream) = answer else {
            Issue.record("no stream")
            return
        }
        async let first = stream.next(after: stream.start)
        try await device.log.untilSomeoneWaits()
        _ = device.perform(.command(.on(.setNetwork(.offline))))
        let (text, last) = try #require(await first)
        #expect(text.hasPrefix("id: \(last)\nevent: networkChanged\ndata: {\"seq\":\(last),"))
        #expect(text.hasSuffix("}\n\n"))
        device.log.close()
        #expect(await stream.next(after: last) == nil, "a closed log ends the stream")
    }

    @Test("a stream for an unknown project or with a bad filter is an ordinary error reply")
    func badStreams() async {
        let device = ControlledDevice()
        for (path, query, status) in [
            ("/emulator/v1/projects/nope/events:stream", "", 404),
            ("/emulator/v1/projects/demo-project/events:stream", "type=bogus", 400),
        ] {
            guard
                case .reply(let reply) = await device.service.answer(
                    HTTPRequestParts(method: "GET", path: path, query: query))
            else {
                Issue.record("\(path) streamed")
                continue
            }
            #expect(reply.status == status)
        }
    }
}

extension EventLog {
    /// Returns once a caller waits on the log (a long poll or a stream has started),
    /// so what a test does next happens during the wait, not before it.
    func untilSomeoneWaits(within limit: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + limit
        while waiting == 0 {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            await Task.yield()
        }
    }
}
