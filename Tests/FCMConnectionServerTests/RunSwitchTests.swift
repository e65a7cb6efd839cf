import FCMEngine
import FCMSession
import FCMStore
import Foundation
import Testing

/// A saved device takes `--no-echo` and `--no-device-limits` from each run, through
/// its front door, so that its journal replays each run under the switches it ran with.
@Suite("Run switches on a saved device", .serialized)
struct RunSwitchTests {
    static func open(_ folder: String, fresh: Bool, noEcho: Bool = false, noLimits: Bool = false) async throws
        -> DeviceSession
    {
        try await EveryDoorTests.open(folder, fresh: fresh) { settings in
            settings.noEcho = noEcho
            settings.noDeviceLimits = noLimits
        }
    }

    @Test func eachRunsSwitchesAreJournaledAndTheNextRunSetsItsOwn() async throws {
        let folder = EveryDoorTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = StateFolder.devicePath(folder, profilePath: nil)
        var session = try await Self.open(folder, fresh: true)
        #expect(session.configuration.store.deviceLimits && session.configuration.appServer == .echo)
        try await session.stop()

        session = try await Self.open(folder, fresh: false, noEcho: true, noLimits: true)
        #expect(!session.configuration.store.deviceLimits && session.configuration.appServer == .none)
        try await session.stop()
        // The switches went into the journal: the saved device replays them.
        let saved = try #require(try DeviceStore.peek(path: path))
        #expect(!saved.configuration.store.deviceLimits && saved.configuration.appServer == .none)

        session = try await Self.open(folder, fresh: false)
        #expect(session.configuration.store.deviceLimits && session.configuration.appServer == .echo)
        try await session.stop()
    }
}
