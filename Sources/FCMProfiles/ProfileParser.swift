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
            let folder = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
            let close = CloseNames.among(files.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }, to: name)
                .map { folder.isEmpty ? $0 : folder + "/" + $0 }
            let place = path.hasPrefix("/") ? "" : " (looked in \(FileManager.default.currentDirectoryPath))"
            return "no such file\(place)" + CloseNames.suggestion(of: close)
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
            throw yamlProblem(error, file: file, text: text)
        } catch {
            throw ProfileError(SourceLocation(file: file, line: 1, column: 1), "cannot read YAML: \(error)")
        }
        // Each part is read on its own and every mistake is kept: one run names them
        // all. The timeline is read once the phones and senders it names are readable.
        var mistakes = ProfileMistakes()
        let top = try YAMLNode(node: root, file: file, path: "").mapping(allowed: topKeys, noting: &mistakes)
        mistakes.check { () throws(ProfileError) in
            let version = try top.required("version")
            guard try version.int() == 1 else { throw version.error("only version 1 is known") }
        }
        let device = top["device"].map { parseDevice($0, noting: &mistakes) } ?? DeviceSettings()
        // A misspelt `senders:` is said once, as the unknown key, not again as a missing one.
        let written = root.mapping?.keys.compactMap(\.string) ?? []
        let misspeltSenders = !CloseNames.among(written.filter { !topKeys.contains($0) }, to: "senders").isEmpty
        let senders =
            top["senders"] == nil && misspeltSenders
            ? nil : mistakes.check { () throws(ProfileError) in try parseSenders(try top.required("senders")) }
        var configuration = EngineConfiguration(device: device, senders: senders ?? [])
        let fleet = mistakes.check { () throws(ProfileError) -> Bool in
            guard let node = top["devices"] else { return true }
            if let single = top["device"] { throw single.error("give device: (one phone) or devices:, not both") }
            configuration.devices = try parseDevices(node, senders: Set((senders ?? []).map(\.id)))
            configuration.device = configuration.firstStartingDevice
            return true
        }
        mistakes.check { () throws(ProfileError) in
            if let node = top["upstream"] { configuration.batch = try parseUpstream(node) }
        }
        mistakes.check { () throws(ProfileError) in
            if let node = top["app_server"] { configuration.appServer = try node.oneOf(AppServerMode.self) }
        }
        mistakes.check { () throws(ProfileError) in
            if let node = top["server"] { configuration.store = try parseServer(node) }
        }
        let description = mistakes.check { () throws(ProfileError) in try top["description"]?.string() } ?? nil
        let end = mistakes.check { () throws(ProfileError) in try top["end"]?.duration() } ?? nil
        var steps: [Step] = []
        if senders != nil, fleet != nil, let node = top["timeline"] {
            let ids = Set(configuration.senders.map { $0.id })
            var context = StepContext(senders: ids, starting: StartingPhones(configuration))
            steps = parseTimeline(node, context: &context, noting: &mistakes)
        }
        if let end, let last = steps.last, end < last.at, let node = top["end"] {
            mistakes.add(
                node.error(
                    "end \(DurationText.stamp(end)) comes before the last step at \(DurationText.stamp(last.at))"))
        }
        try mistakes.throwIfAny()
        var profile = Profile(
            file: file, description: description, configuration: configuration, end: end, steps: steps)
        let deviceSeed = try top["device"]?.mapping(allowed: deviceKeys)["seed"] != nil
        let devicesSeed = try hasSeed(devices: top["devices"])
        profile.hasSeed = deviceSeed || devicesSeed
        return profile
    }

    /// `format`: what the text was written as (a control-API body in braces is JSON,
    /// which the YAML reader reads too, and its errors say so).
    static func yamlProblem(_ error: YamlError, file: String, format: String = "YAML", text: String = "")
        -> ProfileError
    {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            let hint = YAMLHints.hint(problem, at: mark, in: text, format: format).map { " (\($0))" } ?? ""
            return ProfileError(at(mark), "invalid \(format): \(problem)" + hint)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ProfileError(at(context.mark), "duplicate key \(duplicates.joined(separator: ", "))")
        default:
            return ProfileError(SourceLocation(file: file, line: 1, column: 1), "invalid \(format): \(error)")
        }
    }

    static var deviceKeys: [String] { DeviceVocabulary.names }

    /// The `device:` keys of a mapping that may also hold `extraKeys`.
    static func parseDevice(_ node: YAMLNode, extraKeys: [String] = []) throws(ProfileError) -> DeviceSettings {
        var mistakes = ProfileMistakes()
        let device = parseDevice(node, extraKeys: extraKeys, noting: &mistakes)
        try mistakes.throwIfAny()
        return device
    }

    /// The device as far as its keys read, each mistaken key noted: every one is
    /// named in one run, and the timeline is still read against what did read.
    static func parseDevice(_ node: YAMLNode, extraKeys: [String] = [], noting mistakes: inout ProfileMistakes)
        -> DeviceSettings
    {
        var device = DeviceSettings()
        let allowed = deviceKeys + extraKeys
        var unknown = ProfileMistakes()
        guard
            let map = mistakes.check({ () throws(ProfileError) in try node.mapping(allowed: allowed, noting: &unknown) }
            )
        else { return device }
        for mistake in unknown.found { mistakes.add(mistake) }
        let before = mistakes.found.count
        for entry in DeviceVocabulary.keys {
            if let value = map[entry.key] {
                mistakes.check { () throws(ProfileError) in try entry.read(value, &device) }
            }
        }
        // The engine's word on what the platform does not have, at the key that says it.
        if mistakes.found.count == before, let (setting, problem) = device.platformProblems.first,
            let node = map[setting]
        {
            mistakes.add(node.error(problem))
        }
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
        let map = try node.mapping(allowed: [
            "store_limit", "collapse_keys", "collapse_evict", "device_limits", "fan_out_batch",
        ])
        var policy = StorePolicy()
        if let v = map["store_limit"] { policy.nonCollapsibleLimit = Int(try v.int(in: 1...100_000)) }
        if let v = map["collapse_keys"] { policy.collapseKeyLimit = Int(try v.int(in: 1...1_000)) }
        if let v = map["collapse_evict"] { policy.eviction = try v.oneOf(CollapseEviction.self) }
        if let v = map["device_limits"] { policy.deviceLimits = try v.bool() }
        if let v = map["fan_out_batch"] {
            let range = StorePolicy.fanOutBatchRange
            policy.fanOutBatch = Int(try v.int(in: Int64(range.lowerBound)...Int64(range.upperBound)))
        }
        return policy
    }
}
