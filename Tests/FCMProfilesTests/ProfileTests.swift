import FCMEngine
import FCMEventGuide
import FCMProfiles
import Foundation
import Testing

/// A profile as a whole: what it starts, how it seeds itself, what its steps count,
/// and that every profile shipped in profiles/ reads and replays green.
@Suite("Profiles")
struct ProfileTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../profiles"
    ).standardized

    static var shipped: [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "yaml" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static let fleet = """
        version: 1
        devices:
          - { name: pixel, seed: 5 }
          - { name: iphone, platform: ios, senders: ["222"] }
        senders:
          - { id: "111", key: k1, project: first }
          - { id: "222", key: k2 }
        timeline:
          - at: 1s
            push: { sender: "222", id: d-1, data: { k: v }, devices: [iphone] }
          - at: 1s
            expect: { event: didReceiveRemoteNotification, id: d-1 }
          - at: 2s
            expect_none: { event: onMessageReceived }
        """

    @Test func aProfileOfSeveralPhonesStartsEachWithItsOwnSenders() throws {
        let profile = try ProfileParser.parse(Self.fleet, file: "fleet.yaml")
        let engine = DeviceEngine(profile.configuration)
        #expect(engine.devices.map(\.name) == ["pixel", "iphone"])
        #expect(engine.devices.map { $0.senders.map(\.id) } == [["111", "222"], ["222"]])
        #expect(engine.devices[1].platform == .ios)
        #expect(profile.steps.count == 3)
        #expect(profile.expectationCount == 2)
        #expect(profile.hasSeed, "the first phone names a seed")
    }

    @Test func seedingMovesEveryPhoneAlikeAndKeepsANamedSeed() throws {
        let profile = try ProfileParser.parse(Self.fleet, file: "fleet.yaml")
        let before = profile.configuration.devices.map(\.settings.seed)
        // The profile names a seed: seeding keeps it, so its tokens replay the same.
        #expect(profile.seeded().configuration.devices.map(\.settings.seed) == before)
        var unnamed = profile
        unnamed.hasSeed = false
        let drawn = unnamed.seeded().configuration.devices.map(\.settings.seed)
        #expect(drawn[1] &- drawn[0] == before[1] &- before[0])
    }

    @Test func aFleetProfileReplaysItsExpectationsGreen() throws {
        let profile = try ProfileParser.parse(Self.fleet, file: "fleet.yaml")
        let result = Replayer.run(profile)
        #expect(result.checks.count == 2)
        #expect(result.passed, "\(result.failures.map { $0.detail ?? "" })")
    }

    @Test func everyShippedProfileReadsAndReplaysGreen() throws {
        #expect(Self.shipped.count >= 20, "found \(Self.shipped.map(\.lastPathComponent)) in \(Self.folder.path)")
        for file in Self.shipped {
            let profile = try ProfileParser.load(path: file.path)
            let result = Replayer.run(profile)
            let failed = result.checks.filter { !$0.passed }
            #expect(failed.isEmpty, "\(file.lastPathComponent): \(failed.map { $0.expectation.summary })")
            #expect(!result.checks.isEmpty, "\(file.lastPathComponent) checks nothing")
            // What an `expect` may name is what events carry: no event carries a field its kind does not declare.
            for event in result.events {
                let undeclared = event.fields.map(\.name).filter { !event.kind.carries($0) }
                #expect(undeclared.isEmpty, "\(file.lastPathComponent): \(event.name) carries \(undeclared)")
            }
        }
    }
}
