import FCMEngine
import Foundation
import Yams

/// Reads a profile from YAML text, checking every key, type and reference.
public enum ProfileParser {
    static let topKeys = [
        "version", "description", "device", "devices", "senders", "upstream", "app_server", "server", "end",
        "timeline",
    ]

    /// Why a file cannot be read, as a person would say it.
    static func unreadableReason(_ path: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return "no such file (looked in \(FileManager.default.currentDirectoryPath))"
        }
        if isFolder.boolValue { return "it is a folder; name a .yaml file in it" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return "it could not be read"
    }

    public static func load(path: String) throws(ProfileError) -> Profile {
        let location = SourceLocation(file: path, line: 1, column: 1)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProfileError(location, "cannot read the file: " + unreadableReason(path))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ProfileError(location, "the file is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws(ProfileError) -> Profile {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw ProfileError(SourceLocation(file: file, line: 1, column: 1), "the profile is empty")
            }
            root = node
        } catch let error as ProfileError {
            throw error
        } catch let error as YamlError {
            throw yamlProblem(error, file: file)
        } catch {
            throw ProfileError(SourceLocation(file: file, line: 1, column: 1), "cannot read YAML: \(error)")
        }
        let top = try YAMLNode(node: root, file: file, path: "").mapping(allowed: topKeys)
        let version = try top.required("version")
        guard try version.int() == 1 else { throw version.error("only version 1 is known") }
        var device = DeviceSettings()
        if let node = top["device"] { device = try parseDevice(node) }
        let senders = try parseSenders(try top.required("senders"))
        var configuration = EngineConfiguration(device: device, senders: senders)
        if let node = top["devices"] {
            if let single = top["device"] { throw single.error("give device: (one phone) or devices:, not both") }
            configuration.devices = try parseDevices(node, senders: Set(senders.map(\.id)))
            configuration.device = configuration.firstStartingDevice
        }
        if let node = top["upstream"] { configuration.batch = try parseUpstream(node) }
        if let node = top["app_server"] { configuration.appServer = try node.oneOf(AppServerMode.self) }
        if let node = top["server"] { configuration.store = try parseServer(node) }
        var context = StepContext(senders: Set(senders.map(\.id)), starting: StartingPhones(configuration))
        let steps =
            try top["timeline"].map { node throws(ProfileError) in try parseTimeline(node, context: &context) } ?? []
        let end = try top["end"]?.duration()
        if let end, let last = steps.last, end < last.at {
            throw top["end"]!.error(
                "end \(DurationText.stamp(end)) comes before the last step at \(DurationText.stamp(last.at))")
        }
        var profile = Profile(
            file: file, description: try top["description"]?.string(), configuration: configuration, end: end,
            steps: steps)
        let deviceSeed = try top["device"]?.mapping(allowed: deviceKeys)["seed"] != nil
        let devicesSeed = try hasSeed(devices: top["devices"])
        profile.hasSeed = deviceSeed || devicesSeed
        return profile
    }

    /// `format`: what the text was written as (a control-API body in braces is JSON,
    /// which the YAML reader reads too, and its errors say so).
    static func yamlProblem(_ error: YamlError, file: String, format: String = "YAML") -> ProfileError {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return ProfileError(at(mark), "invalid \(format): \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ProfileError(at(context.mark), "duplicate key \(duplicates.joined(separator: ", "))")
        default:
            return ProfileError(SourceLocation(file: file, line: 1, column: 1), "invalid \(format): \(error)")
        }
    }

    static var deviceKeys: [String] { DeviceVocabulary.names }

    /// The `device:` keys of a mapping that may also hold `extraKeys`.
    static func parseDevice(_ node: YAMLNode, extraKeys: [String] = []) throws(ProfileError) -> DeviceSettings {
        let map = try node.mapping(allowed: deviceKeys + extraKeys)
        var device = DeviceSettings()
        for entry in DeviceVocabulary.keys {
            if let value = map[entry.key] { try entry.read(value, &device) }
        }
        // The engine's word on what the platform does not have, at the key that says it.
        if let (setting, problem) = device.platformProblems.first, let node = map[setting] { throw node.error(problem) }
        return device
    }

    static func parseSenders(_ node: YAMLNode) throws(ProfileError) -> [SenderConfig] {
        let items = try node.sequence()
        guard !items.isEmpty else { throw node.error("at least one sender is needed") }
        guard items.count <= ServiceLimits.maxSenders else {
            throw items[ServiceLimits.maxSenders].error(
                "an app instance can register at most \(ServiceLimits.maxSenders) senders; this is number \(items.count)"
            )
        }
        var seen = Set<String>()
        var senders: [SenderConfig] = []
        for item in items {
            let sender = try parseSender(item)
            guard seen.insert(sender.id).inserted else { throw item.error("sender \(sender.id) is listed twice") }
            senders.append(sender)
        }
        return senders
    }

    static func parseSender(_ node: YAMLNode) throws(ProfileError) -> SenderConfig {
        let map = try node.mapping(allowed: ["id", "key", "project", "token"])
        let idNode = try map.required("id")
        let id = try idNode.scalarText()
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            throw idNode.error("a sender ID is the project number, digits only; found \"\(id)\"")
        }
        let key = try map.required("key").string()
        let project = try map["project"].flatMap { v throws(ProfileError) in v.isNull ? nil : try v.string() }
        let token = try map["token"].flatMap { v throws(ProfileError) in v.isNull ? nil : try v.string() }
        return SenderConfig(id: id, key: key, project: project, token: token)
    }

    static func parseUpstream(_ node: YAMLNode) throws(ProfileError) -> BatchPolicy {
        let map = try node.mapping(allowed: ["batch"])
        var policy = BatchPolicy()
        if let batch = map["batch"] {
            let fields = try batch.mapping(allowed: ["window", "max"])
            if let v = fields["window"] { policy.window = try v.duration() }
            if let v = fields["max"] { policy.max = Int(try v.int(in: 1...10_000)) }
        }
        return policy
    }

    static func parseServer(_ node: YAMLNode) throws(ProfileError) -> StorePolicy {
        let map = try node.mapping(allowed: ["store_limit", "collapse_keys", "collapse_evict", "device_limits"])
        var policy = StorePolicy()
        if let v = map["store_limit"] { policy.nonCollapsibleLimit = Int(try v.int(in: 1...100_000)) }
        if let v = map["collapse_keys"] { policy.collapseKeyLimit = Int(try v.int(in: 1...1_000)) }
        if let v = map["collapse_evict"] { policy.eviction = try v.oneOf(CollapseEviction.self) }
        if let v = map["device_limits"] { policy.deviceLimits = try v.bool() }
        return policy
    }
}
