import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMJSON
import FCMProfiles
import FCMSession
import FCMStore
import Foundation

/// `fcm-device state`: what a device's state file holds, read without stopping
/// an emulator that runs on it.
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show what a device's state file holds: tokens, queues, stored and delivered messages.",
        discussion: """
            Reads the file that `serve` and `tui` keep for the profile (NAME.sqlite in the state folder) \
            as it stands, even while they run. --json prints one object with every id.
            """
    )

    @Option(help: "The profile whose device to show. Default: the built-in device.")
    var profile: String?

    @Option(help: "The state folder. Default: $XDG_STATE_HOME/fcm-device.")
    var state: String?

    @Flag(help: "One JSON object with every id, for scripts.")
    var json = false

    func run() throws {
        let path = StateFolder.devicePath(state ?? StateFolder.default, profilePath: profile)
        let saved: DeviceEngine?
        do {
            saved = try DeviceStore.peek(path: path)
        } catch {
            Diagnostics.write("\(error)")
            throw ExitCode(2)
        }
        guard let engine = saved else {
            Diagnostics.write("no saved device at \(path); `serve` or `tui` with this --state and --profile makes one")
            throw ExitCode(1)
        }
        print(json ? Self.json(engine, path: path) : Self.text(engine, path: path))
    }

    /// The connection server's part and every phone's snapshot, the same document
    /// the control API's `GET devices` answers for each phone.
    static func json(_ engine: DeviceEngine, path: String) -> String {
        JSONValue.members([
            "state": .string(path), "clock": .int(engine.now),
            "service": .string(engine.server.serviceUp ? "up" : "down"),
            "awaitingAck": .strings(engine.server.awaitingAck.map(\.message.id)),
            "owedReceipts": .strings(engine.server.owedReceipts.map(\.id)),
            "fanOuts": engine.pendingFanOutsJSON,
            "devices": .array(engine.devices.indices.map { engine.snapshot(ofPhoneAt: $0) }),
        ]).json
    }

    /// The same facts as text: the server's lines, then each phone's (the first 50).
    static func text(_ engine: DeviceEngine, path: String) -> String {
        var lines = [
            "state     \(path)",
            "clock     \(String(format: "%.3f", Double(engine.now) / 1_000)) s",
            "service   \(engine.server.serviceUp ? "up" : "down"); \(engine.server.awaitingAck.count) upstream awaiting an app "
                + "server's ack, \(engine.server.owedReceipts.count) receipts owed to app servers",
        ]
        for fanOut in engine.pendingFanOuts {
            lines.append(
                "fan-out   \(fanOut.id) to \(fanOut.topic.map { "topic " + $0 } ?? "a condition"): \(fanOut.sent) of "
                    + "\(fanOut.copies) copies sent; the rest go out when the device runs again")
        }
        for index in engine.devices.indices.prefix(50) {
            lines += phoneLines(engine.snapshot(ofPhoneAt: index))
        }
        if engine.devices.count > 50 {
            lines.append("… and \(engine.devices.count - 50) more phones (--json lists all)")
        }
        return lines.joined(separator: "\n")
    }

    /// One phone's lines, read off its snapshot.
    static func phoneLines(_ snapshot: JSONValue) -> [String] {
        guard case .object(let phone) = snapshot else { return [] }
        func text(_ key: String) -> String { phone[key]?.string ?? "" }
        func count(_ key: String) -> Int {
            if case .array(let items)? = phone[key] { return items.count }
            return 0
        }
        let conditions =
            phone["installed"] == .bool(false)
            ? "uninstalled"
            : text("appState") + ", " + text("network")
                + (phone["doze"] == .bool(true)
                    ? ", " + (Platform(rawValue: text("platform"))?.idleNames?.state ?? "dozing") : "")
        var lines = ["device    \(text("name")) (\(text("platform")), \(text("sdk"))), \(conditions)"]
        for member in phone["tokens"]?.object?.members ?? [] {
            lines.append("token     \(member.key)  \(member.value.string ?? "(none)")")
        }
        if phone["tokensExpired"] == .bool(true) {
            lines.append(
                "tokens    expired: away \(DeviceLimits.tokenExpiryDays) days; new ones come when the app is opened "
                    + "while connected")
        } else if let at = phone["tokensExpireAt"]?.int64 {
            lines.append(
                "tokens    expire at \(DurationText.stamp(at)) on the device's clock if the phone stays away "
                    + "(\(DeviceLimits.tokenExpiryDays) days without connecting)")
        }
        let topics = (phone["topics"]?.object?.members ?? []).flatMap { member -> [String] in
            guard case .array(let names) = member.value else { return [] }
            return names.compactMap(\.string)
        }
        let newest: [String] = {
            guard case .array(let items)? = phone["inbox"] else { return [] }
            return items.suffix(3).compactMap { $0.object?["id"]?.string }
        }()
        lines += [
            "upstream  \(count("pending")) pending on the device",
            "stored    \(count("held")) downstream messages held for the device",
            "delivered \(count("inbox")) kept"
                + (newest.isEmpty ? "" : " (newest last: \(newest.joined(separator: ", ")))"),
            "tray      \(count("tray")) notifications",
            "topics    \(topics.count) subscriptions"
                + (topics.isEmpty
                    ? "" : " (" + topics.prefix(5).joined(separator: ", ") + (topics.count > 5 ? ", …" : "") + ")"),
        ]
        return lines
    }
}
