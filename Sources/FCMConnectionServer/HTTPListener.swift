import FCMControlAPI
import FCMHTTPAPI
import FCMHTTPPort
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import ServiceLifecycle

/// Serves the HTTP send APIs with Hummingbird: each request becomes plain values for
/// `HTTPSendService`, and its reply goes back as a response. `GET /healthz` answers
/// `ok` without touching the device (for readiness checks and as the benchmark's
/// baseline route).
struct SendAPIResponder: HTTPResponder {
    typealias Context = ChannelRequestContext
    let service: HTTPSendService
    let control: ControlService

    /// Every request goes by the port's one route table (`HTTPRoute`).
    func respond(to request: Request, context: Context) async throws -> Response {
        let route = HTTPRoute(path: request.uri.path)
        if route == .healthz, request.method == .get {
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: HTTPSendService.maxBodyBytes)
        } catch {
            return Self.response(
                service.refuseTooLarge(HTTPRequestParts(method: request.method.rawValue, path: request.uri.path)))
        }
        var parts = HTTPRequestParts(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
            fields: request.headers, authority: request.head.authority, body: body)
        // Web Push reads the scheme its request came over (its VAPID `aud`).
        if case .webPush? = route { parts.secure = await Self.isTLS(context.channel) }
        if case .control? = route {
            switch await control.answer(parts) {
            case .reply(let reply): return Self.response(reply)
            case .stream(let stream): return Self.response(stream)
            }
        }
        let reply = await service.respond(parts)
        if let ending = reply.endsConnection { FaultedConnection.end(context.channel, ending) }
        return Self.response(reply)
    }

    /// Whether a request's channel (or, for an HTTP/2 stream, its connection) speaks TLS.
    static func isTLS(_ channel: any Channel) async -> Bool {
        for candidate in [channel, channel.parent].compactMap({ $0 }) {
            let secure = try? await candidate.eventLoop.submit {
                (try? candidate.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)) != nil
            }.get()
            if secure == true { return true }
        }
        return false
    }

    /// Server-sent events until the client goes away.
    static func response(_ stream: EventStream) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "text/event-stream"
        fields[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: fields,
            body: ResponseBody { writer in
                var after = stream.start
                while !Task.isCancelled, let (text, last) = await stream.next(after: after) {
                    after = last
                    try await writer.write(ByteBuffer(string: text))
                }
                try await writer.finish(nil)
            })
    }

    static func response(_ reply: HTTPReply) -> Response {
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: fields,
            body: ResponseBody(byteBuffer: reply.bytes.map { ByteBuffer(bytes: $0) } ?? ByteBuffer(string: reply.body)))
    }
}

/// A request context that keeps the request's channel, so a fault can reset it.
struct ChannelRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// A running HTTP listener; `stop()` shuts it down gracefully.
final class HTTPListener: Sendable {
    let port: Int
    let group: ServiceGroup
    let running: Task<Void, any Error>

    init(port: Int, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.running = running
    }

    /// Serves the send APIs on `port`. With `tls` and `tlsFromStart` false it is the
    /// plain port that also takes `CONNECT` tunnels (the HTTPS proxy); with
    /// `tlsFromStart` true it is the direct TLS port. Without `tls`, plain HTTP/1.1 only.
    static func start(
        service: HTTPSendService, control: ControlService, releases: DurableReleases, bind: String, port: Int,
        tls: NIOSSLContext?, tlsFromStart: Bool = false, on loops: any EventLoopGroup
    ) async throws
        -> HTTPListener
    {
        let logger = Logger(label: "fcm-device.http") { _ in SwiftLogNoOpLogHandler() }
        let (ports, announce) = AsyncStream<Int>.makeStream()
        let server: HTTPServerBuilder
        if let tls {
            server = HTTPServerBuilder { responder in
                HTTPFrontChannel(
                    tlsFromStart: tlsFromStart, tls: tls, responder: responder, service: service, releases: releases,
                    rejected: { service.reportRejected($0) })
            }
        } else {
            server = .http1(configuration: .directSends(service, releases: releases))
        }
        let app = Application(
            responder: SendAPIResponder(service: service, control: control), server: server,
            configuration: ApplicationConfiguration(address: .hostname(bind, port: port), backlog: 1_024),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? port)
                announce.finish()
            },
            eventLoopGroupProvider: .shared(loops),
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { announce.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await running.value
            throw ServerError.httpDidNotStart(bind: bind, port: port)
        }
        return HTTPListener(port: bound, group: group, running: running)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}

extension HTTPRequestParts {
    /// A request as the send and control services read it: header names in canonical
    /// (lowercase) form, the first of repeated fields kept.
    /// `authority` (HTTP/2's `:authority`, HTTP/1's `Host`, which HTTP types keep
    /// apart from the fields) is kept as `host` when given: Web Push reads its origin.
    init(method: String, path: String, query: String, fields: HTTPFields, authority: String? = nil, body: ByteBuffer) {
        var headers: [String: String] = [:]
        headers.reserveCapacity(fields.count + 1)
        for field in fields where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        if let authority, headers["host"] == nil { headers["host"] = authority }
        self.init(
            method: method, path: path, query: query, lowercasedHeaders: headers, body: Array(body.readableBytesView))
    }
}
