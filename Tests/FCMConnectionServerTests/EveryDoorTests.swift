import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMProfiles
import FCMSession
import FCMTerminalUI
import Foundation
import Testing

/// One running device, many doors: what happens through one is seen through all.
@Suite("Every door sees what every other door did", .serialized)
struct EveryDoorTests {
    static let profile = try! ProfileParser.parse(
        """
        version: 1
        device: { name: pixel, platform: android, app: com.example.chat, seed: 7 }
        senders:
          - { id: "777", key: k7, project: p7 }
        """, file: "doors.yaml")

    static func open(
        _ folder: String, fresh: Bool = true, adjust: (inout DeviceSession.Settings) -> Void = { _ in }
    ) async throws -> DeviceSession {
        var settings = DeviceSession.Settings()
        settings.ccsPort = 0
        settings.ccsPlainPort = 0
        settings.httpPort = 0
        settings.stateFolder = folder
        settings.fresh = fresh
        adjust(&settings)
        // No log: the session's events go to the TUI's inbox (and the control API's log).
        let session = try await DeviceSession.open(profile, settings: settings)
        try await session.start()
        return session
    }

    static func folder() -> String {
        NSTemporaryDirectory() + "fcm-device-doors-" + UUID().uuidString
    }

    /// One request on a connection of its own; the reply up to `marker`, which only
    /// its end holds.
    static func call(
        _ port: Int, _ method: String, _ path: String, body: String = "", headers: [String] = [],
        until marker: String = "\"last\":"
    ) async throws -> String {
        let client = try RawClient(port: port)
        client.write(LiveHTTPTests.request(method, path, headers: headers, body: body))
        return await client.reply(until: marker)
    }

    /// An app server's legacy send, as the test sender.
    static func legacySend(_ port: Int, _ body: String, until marker: String = "\"results\"") async throws -> String {
        try await call(
            port, "POST", "/fcm/send", body: body,
            headers: ["Authorization: key=k7", "Content-Type: application/json"],
            until: marker)
    }

    /// A control-API action on the phone.
    static func act(_ port: Int, _ body: String) async throws -> String {
        try await call(port, "POST", "/emulator/v1/projects/p7/devices/pixel/actions", body: body)
    }

    @Test("a key pressed in the TUI is in the control API's events and in the journal")
    func aKeyReachesTheControlAPIAndTheJournal() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try await Self.open(folder)
        let port = try #require(session.server.httpPort)
        let link = session.link()
        link.submit(.on(device: "pixel", .setAppState(.background)))
        let events = try await Self.call(port, "GET", "/emulator/v1/projects/p7/events?type=appStateChanged")
        #expect(events.contains("\"event\":\"appStateChanged\""), "\(events)")
        #expect(events.contains("\"state\":\"background\""), "\(events)")
        try await session.stop()
        // Reopened, the device is as the key left it: the journal took the key.
        let again = try await Self.open(folder, fresh: false)
        #expect(again.server.host.engine.devices[0].appState == .background)
        try await again.stop()
    }

    @Test("an app server's push and a control-API action show in the TUI, and w saves them as steps that replay")
    func outsideTrafficReachesTheTUIAndItsRecording() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try await Self.open(folder)
        let port = try #require(session.server.httpPort)
        let link = session.link()
        _ = link.takeEvents()
        let token = try #require(link.view().devices[0].tokens["777"])
        let sent = try await Self.legacySend(port, #"{"to":"\#(token)","data":{"k":"v"}}"#)
        #expect(sent.contains("\"success\":1"), "\(sent)")
        let acted = try await Self.act(port, #"{"network": "offline"}"#)
        #expect(acted.contains("networkChanged"), "\(acted)")
        let seen = link.takeEvents().map(\.name)
        #expect(seen.contains("downstreamAccepted"))
        #expect(seen.contains("onMessageReceived"))
        #expect(seen.contains("networkChanged"))
        // `w`: what the app server and the control API did is in the saved profile.
        let yaml = ProfileWriter.yaml(profile: Self.profile, inputs: link.recording())
        let saved = try ProfileParser.parse(yaml, file: "saved.yaml")
        #expect(saved.steps.count == 2, "\(yaml)")
        let replayed = Replayer.run(saved).events
        let received = try #require(replayed.first { $0.name == "onMessageReceived" })
        #expect(received["data"] == .map([KeyValue("k", "v")]), "\(received)")
        #expect(replayed.contains { $0.name == "networkChanged" })
        try await session.stop()
    }

    @Test("w after a profile's timeline, a key and a stop saves a profile that replays to the same events")
    func theTimelineIsInTheRecording() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let timeline = try ProfileParser.parse(
            """
            version: 1
            device: { name: pixel, platform: android, app: com.example.chat, seed: 7 }
            senders:
              - { id: "777", key: k7, project: p7 }
            timeline:
              - at: 1h
                network: offline
              - at: 1h
                push: { sender: "777", id: t-1, data: { k: v } }
              - at: 2h
                network: online
            """, file: "timeline.yaml")
        var settings = DeviceSession.Settings()
        settings.ccsPort = 0
        settings.ccsPlainPort = 0
        settings.httpPort = 0
        settings.stateFolder = folder
        let session = try await DeviceSession.open(timeline, settings: settings)
        // The TUI's link records from before the start, as the TUI opens it.
        let link = session.link()
        try await session.start(timeline: timeline.steps)
        link.submit(.on(device: "pixel", .setAppState(.background)))
        // The timeline plays as the clock is moved on (the TUI's clock keys).
        try await session.server.loop.submit { [host = session.server.host] in host.moveClock(by: 2 * Span.hour) }
            .get()
        try await session.stop()
        let live = link.takeEvents().map(\.name).filter { $0 != "expectationHeld" }
        let yaml = ProfileWriter.yaml(profile: Self.profile, inputs: link.recording())
        let saved = try ProfileParser.parse(yaml, file: "saved.yaml")
        #expect(saved.steps.count == 4, "\(yaml)")
        #expect(Replayer.run(saved).events.map(\.name) == live, "\(yaml)")
    }

    @Test("the TUI shows a served session's clock running between events")
    func theServedClockRunsInTheTUI() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try await Self.open(folder)
        let model = TUIModel(profile: Self.profile, door: session.link())
        let before = model.now
        try await Task.sleep(for: .milliseconds(300))
        #expect(model.now >= before + 250, "the header's clock stood still")
        try await session.stop()
    }

    @Test("a session driven through every door reopens from its journal as the same device")
    func theJournalIsEveryDoor() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let session = try await Self.open(folder)
        let port = try #require(session.server.httpPort)
        let link = session.link()
        link.submit(.on(device: "pixel", .subscribe(topic: "news", sender: nil)))
        let token = try #require(link.view().devices[0].tokens["777"])
        _ = try await Self.legacySend(port, #"{"to":"\#(token)","notification":{"title":"hi"},"collapse_key":"c"}"#)
        _ = try await Self.act(port, #"{"doze": true}"#)
        _ = try await Self.legacySend(port, #"{"to":"/topics/news","data":{"n":"1"}}"#, until: "message_id")
        let before = session.server.host.engine.snapshot(ofPhoneAt: 0).json
        try await session.stop()
        let again = try await Self.open(folder, fresh: false)
        #expect(again.server.host.engine.snapshot(ofPhoneAt: 0).json == before)
        try await again.stop()
    }
}
