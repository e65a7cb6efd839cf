import FCMEngine
import FCMProfiles
import Testing

/// Production's settings in a profile: read, checked against the platform, written back.
@Suite("Production settings in profiles")
struct ProductionSettingsTests {
    static func parse(_ device: String, server: String = "") throws(ProfileError) -> Profile {
        try ProfileParser.parse(
            "version: 1\ndevice: \(device)\nsenders: [{ id: \"1\", key: k }]\n\(server)", file: "p.yaml")
    }

    @Test func permissionApiLevelAndChannelsAreReadAndWrittenBack() throws {
        let profile = try Self.parse(
            "{ platform: android, permission: not-asked, api_level: 34, channels: [orders, general], "
                + "default_channel: general }", server: "server: { device_limits: false }\n")
        let device = profile.configuration.device
        #expect(device.permission == .notAsked && device.apiLevel == 34)
        #expect(device.channels == ["orders", "general"] && device.defaultChannel == "general")
        #expect(profile.configuration.store.deviceLimits == false)
        let written = ProfileWriter.yaml(profile: profile, inputs: [])
        let back = try ProfileParser.parse(written, file: "back.yaml")
        #expect(back.configuration == profile.configuration)
    }

    @Test func aFanOutBatchIsReadWrittenBackAndRefusedOutOfItsRange() throws {
        let profile = try Self.parse("{ platform: android }", server: "server: { fan_out_batch: 500 }\n")
        #expect(profile.configuration.store.fanOutBatch == 500)
        let back = try ProfileParser.parse(ProfileWriter.yaml(profile: profile, inputs: []), file: "back.yaml")
        #expect(back.configuration.store.fanOutBatch == 500)
        let plain = try Self.parse("{ platform: android }")
        #expect(plain.configuration.store.fanOutBatch == StorePolicy.defaultFanOutBatch)
        #expect(!ProfileWriter.yaml(profile: plain, inputs: []).contains("fan_out_batch"))
        do throws(ProfileError) {
            _ = try Self.parse("{ platform: android }", server: "server: { fan_out_batch: 0 }\n")
            Issue.record("a batch of 0 was taken")
        } catch {
            #expect(error.location.line == 4)
            #expect(error.message.contains("1"), "\(error.message)")
        }
    }

    @Test("a setting of another platform is refused at its key, in that platform's words")
    func anotherPlatformsSettingIsRefusedWhereItIsWritten() {
        let cases: [(String, String)] = [
            ("{ platform: ios, permission: granted }", "one of authorized, denied, not-determined, provisional"),
            ("{ platform: web, api_level: 33 }", "api_level is an Android app's setting"),
            ("{ platform: android, api_level: 30, permission: not-asked }", "granted at install"),
            ("{ platform: android, api_level: 25, channels: [a] }", "no notification channels"),
        ]
        for (device, words) in cases {
            do throws(ProfileError) {
                _ = try Self.parse(device)
                Issue.record("\(device) was taken")
            } catch {
                #expect(error.message.contains(words), "\(device): \(error.message)")
                #expect(error.location.line == 2)
            }
        }
    }

    @Test func aPermissionStepOnAPhoneIsCheckedAgainstItsPlatform() throws {
        let good = try Self.parse("{ platform: ios }", server: "timeline:\n  - at: 1s\n    permission: provisional\n")
        #expect(good.steps.count == 1)
        do throws(ProfileError) {
            _ = try Self.parse("{ platform: ios }", server: "timeline:\n  - at: 1s\n    permission: default\n")
            Issue.record("a browser's permission was taken on an iPhone")
        } catch {
            #expect(error.message.contains("not a notification permission of an iPhone"))
        }
    }

    @Test("a value no setting has lists the platform's own choices, with the closest")
    func anUnknownValueListsThePlatformsChoices() {
        do throws(ProfileError) {
            _ = try Self.parse("{ platform: ios }", server: "timeline:\n  - at: 1s\n    permission: autorized\n")
            Issue.record("autorized was taken")
        } catch {
            #expect(error.message.contains("expected one of authorized, denied, not-determined, provisional"))
            #expect(error.message.contains("did you mean authorized?"))
        }
        do throws(ProfileError) {
            _ = try Self.parse("{ platform: andriod }")
            Issue.record("andriod was taken")
        } catch {
            #expect(error.message.contains("did you mean android?"))
        }
    }
}
