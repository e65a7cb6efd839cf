import FCMEngine
import Yams

extension ProfileParser {
    /// One action in a profile step's own syntax, without its `at`: what the control
    /// API takes (`{"network": "offline"}`, `{"push": {…}}`, `{"expect": {…}}`).
    /// JSON is YAML, so either is read. Checked against the device as it is now (its
    /// senders, platform and SDK).
    /// With `phone`, the action is read as that phone's (its SDK and callback names).
    public static func action(_ text: String, on engine: DeviceEngine, phone: String? = nil, source: String)
        throws(ProfileError)
        -> StepAction
    {
        try readAction(text, on: engine, phone: phone, source: source).action
    }

    /// An action as `action(_:on:phone:source:)` reads it, with its step's key and
    /// the control API's door for the step as written (before it is aimed at `phone`).
    public static func readAction(_ text: String, on engine: DeviceEngine, phone: String? = nil, source: String)
        throws(ProfileError) -> (key: String, action: StepAction, door: StepDoor)
    {
        try readAction(try ActionBody(text, source: source), on: engine, phone: phone)
    }

    /// An action read from a body already parsed (`ActionBody`): what needs the device
    /// (its senders, its phones' names) is read here, the text was read before.
    public static func readAction(_ body: ActionBody, on engine: DeviceEngine, phone: String? = nil)
        throws(ProfileError) -> (key: String, action: StepAction, door: StepDoor)
    {
        let node = YAMLNode(node: body.root, file: body.source, path: "")
        let map = try node.mapping(allowed: actionKeys)
        guard map.entries.count == 1, let entry = map.entries.first else {
            throw node.error(
                map.entries.isEmpty
                    ? "name one action: \(actionKeys.joined(separator: ", "))"
                    : "one action at a time; found \(map.entries.map(\.name).joined(separator: " and "))")
        }
        var context = StepContext(
            senders: engine.knownSenderIDs, starting: StartingPhones(engine))
        if let phone, let index = engine.deviceNumber(named: phone) {
            context.current = engine.devices[index].name
            context.stepNamesPhone = true
        }
        let parsed = try parseAction(entry.name, entry.value, context: &context)
        // On a device of one an action needs no name (the engine's rule); on a fleet it is aimed.
        guard let phone, engine.unnamedPhone == nil else { return (entry.name, parsed, parsed.door) }
        return (entry.name, try aim(parsed, at: phone, node: node, strict: false), parsed.door)
    }
}

/// A request body (JSON or YAML) parsed into its document, before it is read against
/// the device: the control API parses it without holding the device, then reads it
/// under the session's lock.
public struct ActionBody {
    let root: Node
    let source: String

    public init(_ text: String, source: String) throws(ProfileError) {
        let start = SourceLocation(file: source, line: 1, column: 1)
        do {
            guard let node = try Yams.compose(yaml: text) else { throw ProfileError(start, "the body is empty") }
            root = node
        } catch let error as ProfileError {
            throw error
        } catch let error as YamlError {
            let json = text.first { !$0.isWhitespace }.map { $0 == "{" || $0 == "[" } ?? false
            throw ProfileParser.yamlProblem(error, file: source, format: json ? "JSON" : "YAML", text: text)
        } catch {
            throw ProfileError(start, "cannot read the body: \(error)")
        }
        self.source = source
    }
}
