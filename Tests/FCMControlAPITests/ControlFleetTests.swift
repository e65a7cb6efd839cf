import FCMControlAPI
import FCMEngine
import Foundation
import Testing

/// The control API answers for the project of any sender some phone registers with,
/// asked live, and describes each phone with the engine's one snapshot.
@Suite("Control API across a fleet")
struct ControlFleetTests {
    static func split() -> EngineConfiguration {
        var configuration = EngineConfiguration(
            device: DeviceSettings(name: "pixel", seed: 4),
            senders: [
                SenderConfig(id: ControlledDevice.sender, key: "k", project: "demo-project"),
                SenderConfig(id: "222", key: "k2", project: "second-project"),
            ])
        configuration.devices = [
            DeviceSpec(DeviceSettings(name: "pixel", seed: 4), senders: [ControlledDevice.sender]),
            DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, seed: 4), senders: ["222"]),
        ]
        return configuration
    }

    @Test func theProjectOfASenderOnlyTheSecondPhoneHasIsServed() async {
        let device = ControlledDevice(configuration: Self.split())
        let devices = await device.call("GET", "devices", project: "second-project")
        #expect(devices.status == 200)
        #expect((devices.json["devices"] as? [[String: Any]])?.map { $0["name"] as? String } == ["pixel", "iphone"])
    }

    @Test func aSenderAddedAtRunTimeIsServedAndOneRemovedIsNot() async {
        let device = ControlledDevice(configuration: Self.split())
        #expect(await device.call("GET", "devices", project: "late-project").status == 404)
        let added = await device.call(
            "POST", "devices/iphone/actions",
            body: #"{"add_sender": {"id": "555", "key": "k5", "project": "late-project"}}"#)
        #expect(added.status == 200)
        #expect(await device.call("GET", "devices", project: "late-project").status == 200)
        let removed = await device.call("POST", "devices/iphone/actions", body: #"{"remove_sender": "555"}"#)
        #expect(removed.status == 200)
        let refused = await device.call("GET", "devices", project: "late-project")
        #expect(refused.status == 404)
        let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("demo-project") && message.contains("second-project"), "\(message)")
    }

    @Test func getDevicesNameAnswersTheEnginesSnapshotOfThatPhoneAndTheListHoldsTheSame() async throws {
        let device = ControlledDevice(configuration: Self.split())
        let reply = await device.call("GET", "devices/iphone")
        #expect(reply.status == 200)
        let tokens = reply.json["tokens"] as? [String: String]
        #expect(tokens?.keys.sorted() == ["222"])
        #expect(reply.json["platform"] as? String == "ios")
        // The same document `state --json` lists for the phone: the engine's one snapshot.
        let snapshot = device.lock.withLock { device.engine.snapshot(named: "iphone")?.json ?? "" }
        let expected = try JSONSerialization.jsonObject(with: Data(snapshot.utf8)) as? NSDictionary
        #expect(expected == reply.json as NSDictionary)
        let list = await device.call("GET", "devices")
        let listed = (list.json["devices"] as? [NSDictionary])?.last
        #expect(listed == reply.json as NSDictionary)
    }

    @Test("GET devices lists a topic message's copies still going out, by phone, as `state --json` does")
    func getDevicesListsCopiesStillGoingOut() async throws {
        var configuration = EngineConfiguration(
            device: DeviceSettings(name: "a", seed: 4),
            senders: [SenderConfig(id: ControlledDevice.sender, key: "k", project: "demo-project")],
            store: StorePolicy(fanOutBatch: 1))
        configuration.devices = ["a", "b", "c"].map { DeviceSpec(DeviceSettings(name: $0, seed: 4)) }
        let device = ControlledDevice(configuration: configuration)
        for name in ["c", "a", "b"] {
            #expect(await device.call("POST", "devices/\(name)/actions", body: #"{"subscribe": "news"}"#).status == 200)
        }
        let pushed = await device.call(
            "POST", "actions",
            body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "topic": "news", "id": "t-1"}}"#)
        #expect(pushed.status == 200)
        func fanOuts() async -> [[String: Any]] {
            await device.call("GET", "devices").json["fanOuts"] as? [[String: Any]] ?? [["missing": true]]
        }
        // One copy a batch: the first went with the answer, in the order of the phones.
        var listed = await fanOuts()
        #expect(listed.count == 1)
        #expect(
            listed.first?["topic"] as? String == "news" && listed.first?["sender"] as? String == ControlledDevice.sender
        )
        #expect(listed.first?["sent"] as? Int == 1 && listed.first?["copies"] as? Int == 3)
        #expect(listed.first?["waiting"] as? [String] == ["b", "c"])
        // The same document the engine gives `state --json`.
        let engineView = device.lock.withLock { device.engine.pendingFanOutsJSON.json }
        let expected = try JSONSerialization.jsonObject(with: Data(engineView.utf8)) as? [NSDictionary]
        #expect(expected == listed as [NSDictionary])
        device.lock.withLock {
            var events: [Event] = []
            device.engine.handle(.fanOut(at: device.time), into: &events)
        }
        listed = await fanOuts()
        #expect(listed.first?["sent"] as? Int == 2 && listed.first?["waiting"] as? [String] == ["c"])
        device.lock.withLock {
            var events: [Event] = []
            while device.engine.hasPendingFanOut {
                device.engine.handle(.fanOut(at: device.engine.now), into: &events)
            }
        }
        #expect(await fanOuts().isEmpty)
    }

    @Test func aWebPhoneIsListedAndItsUpstreamAndClientTopicsAreRefusedWith400() async throws {
        var configuration = Self.split()
        var browser = DeviceSettings(name: "browser", platform: .web, app: "https://app.example.com", seed: 4)
        browser.permission = .granted
        configuration.devices.append(DeviceSpec(browser, senders: [ControlledDevice.sender]))
        let device = ControlledDevice(configuration: configuration)
        let phone = await device.call("GET", "devices/browser")
        #expect(phone.status == 200)
        #expect(phone.json["platform"] as? String == "web")
        #expect((phone.json["tokens"] as? [String: String])?.keys.sorted() == [ControlledDevice.sender])
        let send = await device.call(
            "POST", "devices/browser/actions",
            body: #"{"send": {"sender": "\#(ControlledDevice.sender)", "id": "u-1"}}"#)
        #expect(send.status == 400)
        let message = (send.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("no upstream") && message.contains("browser"), "\(message)")
        let subscribe = await device.call("POST", "devices/browser/actions", body: #"{"subscribe": "news"}"#)
        #expect(subscribe.status == 400)
        // The server side subscribes it, and a push reaches the page.
        let background = await device.call("POST", "devices/browser/actions", body: #"{"state": "background"}"#)
        #expect(background.status == 200)
    }
}
