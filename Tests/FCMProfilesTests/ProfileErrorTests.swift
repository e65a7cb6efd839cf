import FCMEngine
import FCMProfiles
import Testing

/// Every way a profile can be wrong gives `file:line:column: what is wrong`.
@Suite("Invalid profiles")
struct ProfileErrorTests {
    static let header = """
        version: 1
        senders:
          - id: "123"
            key: k

        """

    func error(_ text: String) -> ProfileError? {
        do {
            _ = try ProfileParser.parse(text, file: "p.yaml")
            return nil
        } catch {
            return error
        }
    }

    @Test func badYamlNamesTheLineAndColumn() {
        let problem = error("version: 1\nsenders: [\n  - id: 1\n")
        #expect(problem?.location.line == 3)
        #expect(problem?.description.hasPrefix("p.yaml:3:") == true)
        #expect(problem?.message.contains("invalid YAML") == true)
    }

    @Test func unknownKeyIsNamedWithTheChoices() {
        let problem = error("version: 1\ncolour: red\nsenders: []\n")
        #expect(problem?.description.hasPrefix("p.yaml:2:1: unknown key \"colour\"") == true)
        #expect(problem?.message.contains("device") == true)
    }

    @Test("a misspelt key at any level, or event kind, gets the closest names the product knows")
    func misspeltNamesGetDidYouMean() {
        let device = error("version: 1\ndevice: { platfrom: ios }\nsenders: [{ id: \"1\", key: k }]\n")
        #expect(
            device?.message.contains("unknown key \"platfrom\"; did you mean platform?") == true,
            "\(String(describing: device))")
        let top = error("version: 1\nsender: [{ id: \"1\", key: k }]\n")
        #expect(
            top?.description.hasPrefix("p.yaml:2:1: unknown key \"sender\"; did you mean senders or server?") == true
                && top?.more.isEmpty == true, "\(String(describing: top))")
        let kind = error(Self.header + "timeline:\n  - at: 0s\n    expect: { event: notificationPostd }\n")
        #expect(kind?.message.contains("did you mean notificationPosted?") == true, "\(String(describing: kind))")
    }

    @Test func anExpectedEventThatDoesNotExistIsNamedWithSuggestions() {
        let problem = error(Self.header + "timeline:\n  - at: 0s\n    expect: { event: onMesageRecieved }\n")
        #expect(problem?.message.contains("no event is called \"onMesageRecieved\"") == true)
        #expect(problem?.message.contains("onMessageReceived") == true)
    }

    @Test func anExpectedCallbackOfAnotherPlatformNamesTheDevicesOwn() {
        let problem = error(
            Self.header + "device: { platform: ios }\ntimeline:\n  - at: 0s\n    expect: { event: onMessageReceived }\n"
        )
        #expect(
            problem?.message.contains("reports didReceiveRemoteNotification, not onMessageReceived") == true,
            "\(String(describing: problem))")
    }

    @Test func wrongTypeSaysWhatWasExpected() {
        let problem = error(Self.header + "device:\n  doze: maybe\n")
        #expect(problem?.description == "p.yaml:6:9: device.doze: expected true or false, found \"maybe\"")
    }

    @Test func unknownEnumValueListsTheChoices() {
        let problem = error(Self.header + "device:\n  platform: windows\n")
        #expect(problem?.message == "device.platform: expected one of android, ios, web; found \"windows\"")
        #expect(problem?.location.line == 6)
    }

    @Test func oneHundredAndOneSendersAreRefusedAtTheHundredAndFirst() {
        let senders = (1...101).map { "  - { id: \"\($0)\", key: k }" }.joined(separator: "\n")
        let problem = error("version: 1\nsenders:\n" + senders + "\n")
        #expect(problem?.location.line == 103)
        #expect(problem?.message.contains("at most 100 senders") == true)
    }

    @Test func unknownSenderInAStep() {
        let problem = error(Self.header + "timeline:\n  - at: 1s\n    send: { sender: \"999\", id: m-1 }\n")
        #expect(problem?.location.line == 7)
        #expect(problem?.location.column == 21)
        #expect(problem?.message.contains("unknown sender \"999\"") == true)
    }

    @Test func durationInParsecsIsNotADuration() {
        let problem = error(Self.header + "timeline:\n  - at: 5 parsecs\n    network: offline\n")
        #expect(
            problem?.description
                == "p.yaml:6:9: timeline[0].at: \"5 parsecs\" is not a duration; write it like 250ms, 3s, 2m, 4h or 28d"
        )
    }

    @Test func aStepNoteIsOneLineOfText() throws {
        let profile = try ProfileParser.parse(
            Self.header + "timeline:\n  - at: 1s\n    network: offline\n    note: \"The phone goes offline.\"\n",
            file: "p.yaml")
        #expect(profile.steps.first?.note == "The phone goes offline.")
        let empty = error(Self.header + "timeline:\n  - at: 1s\n    network: offline\n    note: \"  \"\n")
        #expect(empty?.message.contains("note is empty") == true)
        #expect(empty?.location.line == 8)
        let long = String(repeating: "x", count: 301)
        let tooLong = error(Self.header + "timeline:\n  - at: 1s\n    network: offline\n    note: \(long)\n")
        #expect(tooLong?.message.contains("at most 300") == true)
        let twoLines = error(Self.header + "timeline:\n  - at: 1s\n    network: offline\n    note: \"a\\nb\"\n")
        #expect(twoLines?.message.contains("one line") == true)
        let alone = error(Self.header + "timeline:\n  - at: 1s\n    note: nothing happens\n")
        #expect(alone?.message.contains("a step needs one action") == true)
    }

    @Test func stepsOutOfOrderAreRefused() {
        let problem = error(Self.header + "timeline:\n  - at: 2s\n    doze: true\n  - at: 1s\n    doze: false\n")
        #expect(problem?.location.line == 8)
        #expect(problem?.message.contains("time order") == true)
    }

    @Test func aStepWithTwoActionsIsRefused() {
        let problem = error(Self.header + "timeline:\n  - at: 1s\n    doze: true\n    network: offline\n")
        #expect(problem?.message.contains("one action") == true)
    }

    @Test func senderIDsAreDigits() {
        let problem = error("version: 1\nsenders:\n  - id: abc\n    key: k\n")
        #expect(problem?.description.hasPrefix("p.yaml:3:9: senders[0].id:") == true)
    }

    @Test func duplicateKeysAreRefused() {
        let problem = error("version: 1\nversion: 1\nsenders: []\n")
        #expect(problem?.message.contains("duplicate") == true)
    }

    @Test func missingSendersIsNamed() {
        #expect(error("version: 1\n")?.message == "missing required key \"senders\"")
    }

    @Test func wrongVersionIsRefused() {
        #expect(error("version: 2\nsenders: []\n")?.message.contains("version 1") == true)
    }

    @Test func missingFileIsReported() {
        do {
            _ = try ProfileParser.load(path: "/nonexistent/p.yaml")
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/p.yaml:1:1: cannot read the file: no such file"))
        }
    }

    @Test func aFolderIsNotAProfile() {
        do {
            _ = try ProfileParser.load(path: "/tmp")
            Issue.record("loading a folder succeeded")
        } catch {
            #expect(error.message.contains("it is a folder"))
        }
    }
}

@Suite("Durations")
struct DurationTests {
    @Test(arguments: [
        ("250ms", 250), ("3s", 3_000), ("2m", 120_000), ("4h", 14_400_000), ("28d", 2_419_200_000), ("1.5s", 1_500),
        ("0", 0),
    ])
    func parses(text: String, millis: Int64) {
        #expect(DurationText.parse(text) == millis)
    }

    @Test(arguments: ["5 parsecs", "s", "-1s", "1x", "", "99999999999999999d"])
    func refuses(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test(arguments: [
        ("+00:02:05", 125_000), ("00:02:05.250", 125_250), ("2:05", 125_000), ("90s", 90_000), ("3d", 259_200_000),
        ("+672:00:00", 2_419_200_000),
    ])
    func readsAMomentAsAStampOrADuration(text: String, millis: Int64) {
        #expect(DurationText.moment(text) == millis)
    }

    @Test(arguments: ["1:2:3:4", "0:75:00", "2:65", "a:05", ":05", "2:.5", "soon"])
    func refusesAMomentThatIsNeither(text: String) {
        #expect(DurationText.moment(text) == nil)
    }

    @Test func stampsHoursPastADay() {
        #expect(DurationText.stamp(1_000) == "+00:00:01.000")
        #expect(DurationText.stamp(28 * 86_400_000 + 5) == "+672:00:00.005")
    }
}
