import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMProfiles
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

    /// One phone's part of the JSON: its name, tokens, queue, store, inbox, tray and topics.
    static func phoneJSON(_ phone: Installation) -> JSONValue {
        .members([
            "name": .string(phone.name), "platform": .string(phone.platform.rawValue),
            "installed": .bool(phone.installed), "appState": .string(phone.appState.rawValue),
            "network": .string(phone.network.rawValue), "doze": .bool(phone.doze),
            "tokens": .strings(phone.senders.map { KeyValue($0.id, phone.tokens[$0.id] ?? "") }),
            "pending": .strings(phone.pending.map(\.id)), "stored": .strings(phone.stored.map(\.id)),
            "inbox": .strings(phone.inbox.map(\.id)), "tray": .strings(phone.tray.map(\.id)),
            "deleted": .int(Int64(phone.deletedCount)),
            "topics": .object(JSONObject(phone.senders.map { (key: $0.id, value: .strings(phone.topics(of: $0.id))) })),
        ])
    }

    static func json(_ engine: DeviceEngine, path: String) -> String {
        let tokens = engine.senders.map { KeyValue($0.id, engine.tokens[$0.id] ?? "") }
        let topics = JSONObject(engine.senders.map { (key: $0.id, value: .strings(engine.topics(of: $0.id))) })
        return JSONValue.members([
            "devices": .array(engine.devices.map(phoneJSON)),
            "state": .string(path), "clock": .int(engine.now), "tokens": .strings(tokens),
            "pending": .strings(engine.pending.map(\.id)),
            "awaitingAck": .strings(engine.awaitingAck.map(\.message.id)),
            "stored": .strings(engine.stored.map(\.id)), "inbox": .strings(engine.inbox.map(\.id)),
            "tray": .strings(engine.tray.map(\.id)), "owedReceipts": .strings(engine.owedReceipts.map(\.id)),
            "deleted": .int(engine.deletedCount), "topics": .object(topics),
        ]).json
    }

    static func text(_ engine: DeviceEngine, path: String) -> String {
        let device = engine.device
        var lines = [
            "state     \(path)",
            "device    \(device.name) (\(device.platform.rawValue), \(device.sdk.rawValue)), "
                + "\(engine.appState.rawValue), \(engine.network.rawValue)\(engine.doze ? ", dozing" : "")",
            "clock     \(String(format: "%.3f", Double(engine.now) / 1_000)) s",
        ]
        for sender in engine.senders {
            lines.append("token     \(sender.id)  \(engine.tokens[sender.id] ?? "(none)")")
        }
        lines += [
            "upstream  \(engine.pending.count) pending on the device, \(engine.awaitingAck.count) awaiting an app server's ack",
            "stored    \(engine.stored.count) downstream messages held for the device",
            "delivered \(engine.inbox.count) kept (newest last: \(engine.inbox.suffix(3).map(\.id).joined(separator: ", ")))",
            "tray      \(engine.tray.count) notifications",
            "receipts  \(engine.owedReceipts.count) owed to app servers (not acknowledged yet)",
            "topics    \(engine.topicCount) subscriptions"
                + (engine.topicCount == 0
                    ? ""
                    : " (" + engine.senders.flatMap { engine.topics(of: $0.id) }.prefix(5).joined(separator: ", ")
                        + (engine.topicCount > 5 ? ", …" : "") + ")"),
        ]
        if engine.devices.count > 1 {
            lines.append("devices   \(engine.devices.count) phones (the lines above are the first's):")
            for phone in engine.devices.prefix(50) {
                let conditions =
                    phone.installed
                    ? "\(phone.appState.rawValue), \(phone.network.rawValue)\(phone.doze ? ", dozing" : "")"
                    : "uninstalled"
                lines.append(
                    "  \(phone.name)  \(phone.platform.rawValue)/\(phone.settings.sdk.rawValue), \(conditions); "
                        + "\(phone.pending.count) pending, \(phone.stored.count) stored, \(phone.inbox.count) delivered, "
                        + "\(phone.topicCount) topics")
            }
            if engine.devices.count > 50 {
                lines.append("  … and \(engine.devices.count - 50) more (--json lists all)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
