import FCMHTTPAPI
import FCMHTTPPort
import Testing

@Suite("The port's one route table")
struct RouteTableTests {
    @Test("every endpoint the catalog lists reads back to a route, once each, and the 404 list names its methods")
    func theCatalogIsTheTable() {
        let routes = HTTPRoute.catalog.map { HTTPRoute(path: $0.example) }
        #expect(routes.allSatisfy { $0 != nil }, "\(HTTPRoute.catalog.map(\.example))")
        // Each kind of route once (by what it is, whatever its parameters).
        let kinds = routes.compactMap { $0 }.map { route -> String in
            switch route {
            case .healthz: "healthz"
            case .control: "control"
            case .legacy: "legacy"
            case .v1: "v1"
            case .token: "token"
            case .iidBatch(let add): add ? "batchAdd" : "batchRemove"
            case .iidRelation: "iidRelation"
            case .topicSubscription(_, _, let topic): topic == nil ? "subscriptions" : "subscription"
            case .groups: "groups"
            case .allowedLocations: "allowedLocations"
            case .webPush: "webPush"
            case .checkin: "checkin"
            case .register3: "register3"
            case .installations: "installations"
            case .registrations: "registrations"
            }
        }
        #expect(Set(kinds).count == kinds.count)
        // Every route a client may call is listed (google-auth's lookup is not one to call).
        #expect(
            Set(kinds)
                == [
                    "healthz", "control", "legacy", "v1", "token", "batchAdd", "batchRemove", "iidRelation",
                    "subscriptions", "subscription", "groups", "webPush", "checkin", "register3", "installations",
                    "registrations",
                ])
        #expect(HTTPRoute(path: "/v1/projects/p/installations") == .installations(project: "p"))
        #expect(HTTPRoute(path: "/v1/projects/p/registrations") == .registrations(project: "p"))
        #expect(HTTPRoute(path: "/v1/projects/p/registrations/t/topicSubscriptions") != .registrations(project: "p"))
        #expect(HTTPRoute(path: "/fcm/send/abc:APA91b") == .webPush(subscription: "abc:APA91b"))
        #expect(HTTPRoute(path: "/wp/abc") == .webPush(subscription: "abc"))
        #expect(HTTPRoute(path: "/fcm/send") == .legacy)
        #expect(HTTPRoute.listed.hasPrefix("POST /fcm/send and /gcm/send; POST /v1/projects/PROJECT/messages:send"))
        #expect(
            HTTPRoute.listed.contains(
                "GET, PATCH, DELETE /v1/projects/PROJECT/registrations/TOKEN/topicSubscriptions/TOPIC"))
    }
}
