import FCMEngine
import Yams

extension ProfileParser {
    /// One action in a profile step's own syntax, without its `at`: what the control
    /// API takes (`{"network": "offline"}`, `{"push": {…}}`, `{"expect": {…}}`).
    /// JSON is YAML, so either is read. Checked against the device as it is now (its
    /// senders, platform and SDK).
    public static func action(_ text: String, on engine: DeviceEngine, source: String) throws(ProfileError)
        -> StepAction
    {
        let start = SourceLocation(file: source, line: 1, column: 1)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { throw ProfileError(start, "the body is empty") }
            root = node
        } catch let error as ProfileError {
            throw error
        } catch let error as YamlError {
            throw yamlProblem(error, file: source)
        } catch {
            throw ProfileError(start, "cannot read the body: \(error)")
        }
        let node = YAMLNode(node: root, file: source, path: "")
        let map = try node.mapping(allowed: actionKeys)
        guard map.entries.count == 1, let entry = map.entries.first else {
            throw node.error(
                map.entries.isEmpty
                    ? "name one action: \(actionKeys.joined(separator: ", "))"
                    : "one action at a time; found \(map.entries.map(\.name).joined(separator: " and "))")
        }
        let device = engine.configuration.device
        var context = StepContext(
            sdk: device.sdk, senders: Set(engine.senders.map(\.id)),
            callbacks: CallbackNames(platform: device.platform, sdk: device.sdk), platform: device.platform)
        return try parseAction(entry.name, entry.value, context: &context)
    }
}
