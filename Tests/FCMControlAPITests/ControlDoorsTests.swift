import FCMControlAPI
import FCMEngine
import Foundation
import Testing

/// The control API's two doors: `POST actions` for the fleet's steps, `POST
/// devices/NAME/actions` for a phone's; each names the other for the rest, and an
/// answer numbers its events as the log does.
@Suite("Control API: the fleet's door and the phones'")
struct ControlDoorsTests {
    static func message(_ json: [String: Any]) -> String {
        (json["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test func theFleetsDoorAddsAPhoneAndPushesToAListOfPhones() async {
        let device = ControlledDevice(configuration: ControlFleetTests.split())
        let added = await device.call("POST", "actions", body: #"{"add_device": {"name": "tablet"}}"#)
        #expect(added.status == 200, "\(added.json)")
        #expect(ControlledDevice.names(added.json).contains("deviceAdded"), "\(added.json)")
        #expect(device.engine.devices.map(\.name) == ["pixel", "iphone", "tablet"])
        let pushed = await device.call(
            "POST", "actions",
            body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "devices": ["pixel", "tablet"], "id": "p-1"}}"#)
        #expect(pushed.status == 200, "\(pushed.json)")
        let received = (pushed.json["events"] as? [[String: Any]] ?? []).filter {
            $0["event"] as? String == "onMessageReceived"
        }
        #expect(received.compactMap { $0["device"] as? String } == ["pixel", "tablet"])
    }

    @Test("a big fleet's phones are named as the engine names them, the first five, in a wrong door's answer")
    func aBigFleetIsNamedInPart() async {
        var configuration = ControlFleetTests.split()
        configuration.devices = (1...25).map {
            DeviceSpec(DeviceSettings(name: "phone-\($0)", seed: 4), senders: [ControlledDevice.sender])
        }
        let device = ControlledDevice(configuration: configuration)
        let phoneStep = await device.call("POST", "actions", body: #"{"network": "offline"}"#)
        #expect(phoneStep.status == 400)
        let names = (1...5).map { "phone-\($0)" }.joined(separator: ", ")
        #expect(
            Self.message(phoneStep.json)
                == "network is a phone's step: POST devices/NAME/actions, NAME one of \(names), …")
    }

    @Test func eachDoorRefusesTheOthersStepsNamingTheRightDoor() async {
        let device = ControlledDevice(configuration: ControlFleetTests.split())
        let phoneStep = await device.call("POST", "actions", body: #"{"network": "offline"}"#)
        #expect(phoneStep.status == 400)
        #expect(
            Self.message(phoneStep.json)
                == "network is a phone's step: POST devices/NAME/actions, NAME one of pixel, iphone")
        let fleetStep = await device.call("POST", "devices/pixel/actions", body: #"{"add_device": {"name": "t"}}"#)
        #expect(fleetStep.status == 400)
        #expect(Self.message(fleetStep.json) == "add_device is the fleet's step, not pixel's: POST actions")
        let topicPush = await device.call(
            "POST", "devices/pixel/actions",
            body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "topic": "news", "id": "t-1"}}"#)
        #expect(topicPush.status == 400)
        #expect(Self.message(topicPush.json).hasSuffix("is the fleet's step, not pixel's: POST actions"))
        let service = await device.call("POST", "devices/pixel/actions", body: #"{"service": "down"}"#)
        #expect(Self.message(service.json) == "service is the fleet's step, not pixel's: POST actions")
        let ownPush = await device.call(
            "POST", "actions", body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "id": "f-1"}}"#)
        #expect(ownPush.status == 400)
        #expect(
            Self.message(ownPush.json).hasPrefix(
                "a push to a phone's own token (latest, previous) is a phone's step: POST devices/NAME/actions"))
        #expect(device.engine.devices.count == 2, "nothing was done")
        #expect(device.engine.server.serviceUp)
        // A push that names its phones is the fleet's, one phone or several.
        let named = await device.call(
            "POST", "actions",
            body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "devices": ["pixel"], "id": "n-1"}}"#)
        #expect(named.status == 200, "\(Self.message(named.json))")
        let namedAtAPhone = await device.call(
            "POST", "devices/pixel/actions",
            body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "devices": ["pixel"], "id": "n-2"}}"#)
        #expect(Self.message(namedAtAPhone.json).hasSuffix("is the fleet's step, not pixel's: POST actions"))
        // A push to the phone's own token is the phone's.
        let own = await device.call(
            "POST", "devices/pixel/actions", body: #"{"push": {"sender": "\#(ControlledDevice.sender)", "id": "o-1"}}"#)
        #expect(own.status == 200, "\(Self.message(own.json))")
    }

    @Test func aDeviceOfOneNamesDefaultAsThePhonesDoor() async {
        let device = ControlledDevice()
        let refused = await device.call("POST", "actions", body: #"{"state": "background"}"#)
        #expect(
            Self.message(refused.json)
                == "state is a phone's step: POST devices/NAME/actions, NAME one of default, or Pixel 8")
        let service = await device.call("POST", "actions", body: #"{"service": "down"}"#)
        #expect(ControlledDevice.names(service.json) == ["serviceChanged"])
    }

    @Test func anAnswerNumbersItsEventsAsTheLogDoesWhateverCameBetween() async {
        let device = ControlledDevice()
        // Events that look alike, made before: the answer's are its own, by number.
        for network in ["offline", "online", "offline"] {
            let answer = await device.call("POST", "devices/default/actions", body: #"{"network": "\#(network)"}"#)
            let events = answer.json["events"] as? [[String: Any]] ?? []
            #expect(events.compactMap { $0["event"] as? String } == ["networkChanged"])
            #expect(events.compactMap { $0["seq"] as? Int } == [Int(device.log.lastSeq)])
        }
    }
}
