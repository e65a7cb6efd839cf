import FCMEngine
import FCMEventGuide
import FCMHTTPPort

/// `GET events?after=SEQ&type=NAME&token=T&id=I&topic=T&side=S&limit=N&wait=5s`: which
/// events a caller wants, and how long it will wait for the first.
struct EventFilter: Sendable {
    var after: Int64 = 0
    var limit = 1_000
    var wait: Duration?
    var types: Set<String> = []
    var fields: [(name: String, value: String)] = []
    var side: Side?

    /// Every parameter `GET events` takes, declared once, in the order the guide lists
    /// them: the reader reads by these, and refuses any other name with them.
    enum Parameter: String, CaseIterable {
        case after, type, fields, token, id, topic, sender, from, side, limit, wait

        /// The parameters that match an event's field of the same name.
        static let matchingFields: [Parameter] = [.token, .id, .topic, .sender, .from]
    }

    static let parameters = Parameter.allCases.map(\.rawValue)

    static func read(_ request: HTTPRequestParts) -> Result<EventFilter, ControlProblem> {
        // A parameter it does not take (a misspelt filter) is named, not ignored: a
        // filter left out would answer events the caller did not ask for.
        for pair in request.query.split(separator: "&") {
            let name = String(pair.prefix { $0 != "=" })
            guard !name.isEmpty, !parameters.contains(name) else { continue }
            return .failure(
                ControlProblem(
                    "GET events takes no parameter \(name)" + CloseNames.suggestion(among: parameters, to: name)
                        + "; it takes " + parameters.joined(separator: ", ")))
        }
        var filter = EventFilter()
        if let text = request.parameter(Parameter.after.rawValue) {
            guard let after = Int64(text), after >= 0 else {
                return .failure(ControlProblem("after must be a sequence number (0 or more), not \(text)"))
            }
            filter.after = after
        }
        if let text = request.parameter(Parameter.limit.rawValue) {
            guard let limit = Int(text), (1...10_000).contains(limit) else {
                return .failure(ControlProblem("limit must be 1 to 10000, not \(text)"))
            }
            filter.limit = limit
        }
        if let text = request.parameter(Parameter.wait.rawValue) {
            switch ControlDuration.read(text) {
            case .success(let wait): filter.wait = wait
            case .failure(let problem): return .failure(problem)
            }
        }
        if let text = request.parameter(Parameter.type.rawValue) {
            let names = text.split(separator: ",").map(String.init)
            if let unknown = names.first(where: { EventName(rawValue: $0) == nil }) {
                return .failure(ControlProblem(EventName.noSuchEvent(unknown)))
            }
            filter.types = Set(names)
        }
        // `fields=title,data`: the fields a caller will compare, checked against each
        // type as an `expect` is (a client that filters on its side asks this first).
        if let text = request.parameter(Parameter.fields.rawValue) {
            for kind in filter.types.compactMap(EventName.init(rawValue:)) {
                for name in text.split(separator: ",").map(String.init) where !kind.carries(name) {
                    return .failure(ControlProblem(kind.noSuchField(name)))
                }
            }
        }
        if let text = request.parameter(Parameter.side.rawValue) {
            guard let side = Side(rawValue: text) else {
                return .failure(ControlProblem("side is device, server or check, not \(text)"))
            }
            filter.side = side
        }
        for parameter in Parameter.matchingFields {
            if let value = request.parameter(parameter.rawValue) { filter.fields.append((parameter.rawValue, value)) }
        }
        return .success(filter)
    }

    var matches: @Sendable (Event) -> Bool {
        let types = types
        let fields = fields
        let side = side
        return { event in
            if !types.isEmpty, !types.contains(event.name) { return false }
            if let side, event.side != side { return false }
            return fields.allSatisfy { field in
                switch event[field.name] {
                case .list(let items)?: items.contains(field.value)
                case let value?: value.text == field.value
                case nil: false
                }
            }
        }
    }
}

/// Waits as the control API takes them: `5s`, `250ms`, `2m`, or whole seconds; at
/// most `ControlService.maxWait`.
enum ControlDuration {
    static func read(_ text: String) -> Result<Duration, ControlProblem> {
        guard let millis = DurationText.parse(text) ?? Int64(text).map({ $0 * 1_000 }), millis >= 0 else {
            return .failure(ControlProblem("wait must be a duration such as 5s or 250ms, not \(text)"))
        }
        let wait = Duration.milliseconds(millis)
        guard wait <= ControlService.maxWait else {
            return .failure(ControlProblem("wait is at most 60s; \(text) is longer"))
        }
        return .success(wait)
    }
}

/// What is wrong with a control call, in words for the caller.
struct ControlProblem: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
