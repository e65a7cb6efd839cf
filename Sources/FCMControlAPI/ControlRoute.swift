/// The control API's routes under `/emulator/v1/projects/{project}/`, declared once:
/// dispatch reads a request by this table, and a 404 lists it.
enum ControlRoute: Equatable {
    case devices
    case device(String)
    case events
    case eventStream
    case expectations
    case addFault
    case clearFaults
    case faults
    case reset
    case report
    case action(device: String)
    case fleetAction

    /// Every route: its method, its path as a person writes it, and how it is read
    /// from the path's segments after the project.
    static let table: [(method: String, pattern: String, read: @Sendable ([String]) -> ControlRoute?)] = [
        ("GET", "devices", { $0 == ["devices"] ? .devices : nil }),
        ("GET", "devices/NAME", { $0.count == 2 && $0[0] == "devices" ? .device($0[1]) : nil }),
        ("GET", "events", { $0 == ["events"] ? .events : nil }),
        ("GET", "events:stream", { $0 == ["events:stream"] ? .eventStream : nil }),
        (
            "POST", "devices/NAME/actions",
            { $0.count == 3 && $0[0] == "devices" && $0[2] == "actions" ? .action(device: $0[1]) : nil }
        ),
        ("POST", "actions", { $0 == ["actions"] ? .fleetAction : nil }),
        ("POST", "expectations", { $0 == ["expectations"] ? .expectations : nil }),
        ("POST", "faults", { $0 == ["faults"] ? .addFault : nil }),
        ("GET", "faults", { $0 == ["faults"] ? .faults : nil }),
        ("DELETE", "faults", { $0 == ["faults"] ? .clearFaults : nil }),
        ("POST", "reset", { $0 == ["reset"] ? .reset : nil }),
        ("GET", "report", { $0 == ["report"] ? .report : nil }),
    ]

    /// The route `method` on these segments (percent-decoded) names, if any.
    init?(method: String, segments: [String]) {
        for entry in Self.table where entry.method == method {
            if let route = entry.read(segments) {
                self = route
                return
            }
        }
        return nil
    }

    /// The routes, listed for a 404.
    static func listed(under prefix: String) -> String {
        table.map { "\($0.method) \($0.pattern)" }.joined(separator: ", ") + " under \(prefix)"
    }
}
