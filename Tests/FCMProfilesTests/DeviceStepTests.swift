import FCMEngine
import FCMProfiles
import Testing

@Suite("Profiles with several devices")
struct DeviceStepTests {
    static let header = """
        version: 1
        devices:
          - { name: a, seed: 5 }
          - { name: b, platform: ios, senders: ["222"] }
        senders:
          - { id: "111", key: k }
          - { id: "222", key: k2 }
        timeline:

        """

    func parse(_ text: String) throws -> Profile {
        try ProfileParser.parse(text, file: "t.yaml")
    }

    func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aDevicesListMakesEachPhoneWithItsSenders() throws {
        let profile = try parse(Self.header.replacingOccurrences(of: "timeline:\n", with: "timeline: []\n"))
        let phones = profile.configuration.startingDevices
        #expect(phones.map(\.settings.name) == ["a", "b"])
        #expect(phones.map { $0.senders.map(\.id) } == [["111", "222"], ["222"]])
        // The second phone's seed follows the first's.
        #expect(phones[1].settings.seed == 6)
        #expect(profile.hasSeed)
    }

    @Test(
        "a fleet-wide expectation takes a callback some phone has now: none after its last Android phone is an iPhone")
    func fleetExpectationsFollowReinstalls() throws {
        let fleet = """
            version: 1
            devices:
              - { name: droid, seed: 5, count: 3 }
              - { name: b, platform: ios }
            senders:
              - { id: "111", key: k }
            timeline:
              - at: 0s
                expect: { event: onMessageReceived }

            """
        #expect(problem(fleet) == nil, "three Android phones take onMessageReceived")
        let bare = fleet.replacingOccurrences(of: "  - at: 0s\n    expect: { event: onMessageReceived }\n", with: "")
        func reinstalled(_ numbers: ClosedRange<Int>, then expected: String) -> String? {
            problem(
                bare
                    + numbers.map { "  - at: 0s\n    device: droid-\($0)\n    reinstall: { platform: ios }\n" }.joined()
                    + "  - at: 1s\n    expect: { event: \(expected) }\n")
        }
        #expect(reinstalled(1...3, then: "didReceiveRemoteNotification") == nil)
        let refused = reinstalled(1...3, then: "onMessageReceived")
        #expect(refused?.contains("onMessageReceived") == true, "no phone is an Android app any more: \(refused ?? "")")
        let oneLeft = reinstalled(1...2, then: "onMessageReceived")
        #expect(oneLeft == nil, "droid-3 is still an Android app: \(oneLeft ?? "")")
    }

    @Test func stepsNameTheirPhoneAndExpectationsLookAtItsEventsOnly() throws {
        let profile = try parse(
            Self.header + """
                  - at: 0s
                    device: b
                    network: offline
                  - at: 1s
                    push: { sender: "222", devices: [a, b], id: m-1 }
                  - at: 1s
                    expect: { event: stored, device: b, id: m-1, reason: offline }
                  - at: 1s
                    device: a
                    expect: { event: onMessageReceived, id: m-1 }
                  - at: 1s
                    device: b
                    expect_none: { event: didReceiveRemoteNotification, id: m-1 }
                """)
        let result = Replayer.run(profile)
        let failed = result.checks.filter { !$0.passed }.map { $0.detail ?? "" }
        #expect(result.checks.count == 3)
        #expect(failed.isEmpty, "\(failed)")
    }

    @Test func theGeneratorFormMakesAFleet() throws {
        let profile = try parse(
            """
            version: 1
            devices: { count: 1000, like: { name: phone, platform: ios, seed: 9 } }
            senders: [ { id: "111", key: k } ]
            timeline: []
            """)
        let phones = profile.configuration.startingDevices
        #expect(phones.count == 1000)
        #expect(phones.first?.settings.name == "phone-1")
        #expect(phones.last?.settings.platform == .ios)
        let result = Replayer.run(profile)
        #expect(result.events.filter { $0.name == "didReceiveRegistrationToken" }.count == 1000)
    }

    @Test func aGroupOfPhonesGetsAMessageToItsName() throws {
        let profile = try parse(
            Self.header + """
                  - at: 0s
                    group: { sender: "222", operation: create, name: fam, devices: [a, b] }
                  - at: 1s
                    push: { sender: "222", group: fam, data: { k: v } }
                  - at: 1s
                    expect: { event: onMessageReceived, device: a, data: { k: v } }
                  - at: 1s
                    expect: { event: didReceiveRemoteNotification, device: b, data: { k: v } }
                """)
        let result = Replayer.run(profile)
        #expect(result.checks.count == 2)
        let details = result.checks.map { $0.detail ?? "" }
        #expect(result.failures.isEmpty, "\(details)")
    }

    @Test func aSavedSessionOfSeveralPhonesReadsBackTheSame() throws {
        let profile = try parse(Self.header + "  - at: 0s\n    device: b\n    doze: true\n")
        let yaml = ProfileWriter.yaml(
            profile: profile,
            inputs: [
                .input(.on(device: "b", .setNetwork(.offline)), at: 5),
                .input(.addDevice(DeviceSpec(DeviceSettings(name: "c"), senders: ["111"])), at: 6),
                .input(.on(device: "c", .subscribe(topic: "news", sender: nil)), at: 7),
            ])
        let again = try parse(yaml)
        #expect(again.configuration.devices == profile.configuration.devices)
        let replayed = Replayer.run(again)
        let named = replayed.events.compactMap { event in event.string("device").map { "\($0) \(event.name)" } }
        #expect(named.contains("b networkChanged"))
        #expect(named.contains("c deviceAdded"))
        #expect(named.contains("c topicSubscribed"))
    }

    @Test(arguments: [
        ("  - at: 0s\n    device: z\n    network: offline\n", "t.yaml:10:13", "no device is named \"z\""),
        ("  - at: 0s\n    device: a\n    service: down\n", "t.yaml:10:", "acts on the connection server"),
        ("  - at: 0s\n    push: { sender: \"111\", devices: [a, q] }\n", "t.yaml:10:", "no device is named \"q\""),
        ("  - at: 0s\n    push: { sender: \"111\", topic: t, devices: [a] }\n", "t.yaml:10:", "devices picks tokens"),
        ("  - at: 0s\n    add_device: { name: a }\n", "t.yaml:10:", "already named a"),
        ("  - at: 0s\n    group: { sender: \"111\", operation: create, devices: [a] }\n", "t.yaml:10:", "with a name"),
        // Nothing falls back to the first phone: a fleet's step names its phone.
        (
            "  - at: 0s\n    network: offline\n", "t.yaml:10:5",
            "this profile has 2 devices: name the one this step acts on with device: (a, b)"
        ),
        (
            "  - at: 0s\n    push: { sender: \"111\", data: { k: v } }\n", "t.yaml:10:5",
            "name the one whose token the push goes to with device: or devices: (a, b)"
        ),
    ])
    func aBadDeviceStepNamesWhatIsWrongAndWhere(step: String, location: String, detail: String) {
        let message = problem(Self.header + step) ?? ""
        #expect(message.hasPrefix(location), "\(message)")
        #expect(message.contains(detail), "\(message)")
    }

    @Test(arguments: [
        ("devices:\n  - { name: a }\n  - { name: a }\n", "already named a"),
        ("devices:\n  - { name: a, senders: [\"9\"] }\n", "unknown sender \"9\""),
        ("devices: []\n", "devices is empty"),
        ("device: { name: x }\ndevices:\n  - { name: a }\n", "not both"),
        ("devices: { count: 0 }\n", "outside 1...10000000"),
    ])
    func aBadDevicesListIsRefused(devices: String, detail: String) {
        let text = "version: 1\n" + devices + "senders: [ { id: \"111\", key: k } ]\ntimeline: []\n"
        let message = problem(text) ?? ""
        #expect(message.contains(detail), "\(message)")
    }
}
