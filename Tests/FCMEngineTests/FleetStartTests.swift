import FCMEngine
import Testing

@Suite("A fleet as its configuration starts it (made again on every resume)")
struct FleetStartTests {
    static let configuration: EngineConfiguration = {
        var configuration = EngineConfiguration(senders: [SenderConfig(id: "123456789012", key: "fleet-key")])
        configuration.devices = [
            DeviceSpec(DeviceSettings(name: "a", seed: 1)),
            DeviceSpec(DeviceSettings(name: "phone", seed: 3), count: 1_000),
            DeviceSpec(DeviceSettings(name: "b", platform: .ios, seed: 5)),
        ]
        configuration.device = configuration.firstStartingDevice
        return configuration
    }()

    @Test("each phone is found by its place and by its name, as the listed fleet has it")
    func phonesAreFoundWithoutListingThem() {
        let configuration = Self.configuration
        let listed = configuration.startingDevices
        #expect(configuration.startingDeviceCount == 1_002 && listed.count == 1_002)
        for (index, phone) in listed.enumerated() {
            #expect(configuration.startingDevice(at: index) == phone.settings)
            #expect(configuration.startingIndex(of: phone.settings.name) == index)
        }
        #expect(configuration.startingIndex(of: "phone-7") == 7)
        #expect(configuration.startingDevice(at: 1_002) == nil && configuration.startingDevice(at: -1) == nil)
        for unknown in ["phone-07", "phone-0", "phone-1001", "phone-", "phone", "phone-x", "c"] {
            #expect(configuration.startingIndex(of: unknown) == nil, "\(unknown) is no phone's name")
        }
    }

    @Test("tokens keep their values from release to release: a saved fleet is made again from its seeds")
    func tokensAreStable() {
        var configuration = Self.configuration
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 3), count: 3)]
        configuration.device = configuration.firstStartingDevice
        var engine = DeviceEngine(configuration)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        #expect(
            engine.phone(named: "phone-1")?.tokens["123456789012"]
                == "7qin1y9d20l:APA91bMY2qInhDbEYcTteGSXpgJ5Ocr1XLP1mk4MEwiqJJub6KPKt6EtF3awKRDpyb3zJfosSjzQJVOYbOjij2mV8a"
                + "VG6VyAtmmdwN87GbJJMtLybcTBGbGArmW-onVadDEj-jC6us5B")
        #expect(
            engine.phone(named: "phone-3")?.tokens["123456789012"]
                == "Y9V579sP6W4:APA91bO-GLyJMf1JVw6nh5M3Fl3rrMTX_-erXPN7nQkTlKp_xv0OG27WowYfUiqOPBP8oJM1LrwvvoQ3eIZV_a5SMm"
                + "oA7pOR84hOVjfmkhBtOdbDbIdmAD2InpvOPMJPYFTEoutYlpFm")
    }

    @Test("a silent replay runs every rule and makes no event; the fleet then answers as one that spoke")
    func silentReplayMakesNoEvents() {
        var spoken = DeviceEngine(Self.configuration)
        var quiet = DeviceEngine(Self.configuration)
        var events: [Event] = []
        spoken.handle(.start(at: 0), into: &events)
        #expect(events.count == 1_002)
        quiet.handleSilently(.start(at: 0))
        quiet.handleSilently(.input(.on(device: "phone-9", .refreshToken(sender: nil)), at: 10))
        spoken.handle(.input(.on(device: "phone-9", .refreshToken(sender: nil)), at: 10), into: &events)
        for name in ["a", "phone-9", "b"] {
            #expect(quiet.phone(named: name)?.tokens == spoken.phone(named: name)?.tokens)
        }
        let old = spoken.phone(named: "phone-9")?.issuedTokens["123456789012"]?.first ?? ""
        let push = Input.push(DownstreamRequest(sender: "123456789012", to: old, data: [KeyValue("n", "1")]))
        let answer = quiet.handle(.input(push, at: 20))
        #expect(!answer.isEmpty && answer == spoken.handle(.input(push, at: 20)))
        #expect(quiet.device(holding: old) == quiet.deviceNumber(named: "phone-9"), "a refreshed token is still known")
    }
}
