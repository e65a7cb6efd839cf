/// One app server the device registered with.
public struct SenderConfig: Sendable, Equatable, Codable {
    /// The sender ID (Google project number).
    public var id: String
    /// The server key app servers authenticate with.
    public var key: String
    /// The HTTP v1 project id, if any.
    public var project: String?
    /// A fixed first registration token; generated when nil.
    public var token: String?

    /// Whether a v1 project name or a `project_id` header names this sender: its
    /// project, or its sender ID (the project number).
    public func isNamed(byProject name: String) -> Bool { name == project || name == id }

    public init(id: String, key: String, project: String? = nil, token: String? = nil) {
        self.id = id
        self.key = key
        self.project = project
        self.token = token
    }
}
