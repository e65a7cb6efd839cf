import FCMHTTPAPI
import Testing

@Suite("The HTTPS proxy's CONNECT rule")
struct ProxyRequestTests {
    @Test(arguments: ProxyRequest.interceptedHosts)
    func aTunnelToAHostTheSDKsCallIsTaken(host: String) {
        #expect(ProxyRequest(requestLine: "CONNECT \(host):443 HTTP/1.1") == .tunnel(host: host))
        #expect(ProxyRequest(requestLine: "CONNECT \(host.uppercased()):443 HTTP/1.0") == .tunnel(host: host))
    }

    @Test(arguments: [
        ("CONNECT www.example.com:443 HTTP/1.1", 403, "never to the network"),
        ("CONNECT fcm.googleapis.com:80 HTTP/1.1", 403, "port 443 only"),
        ("CONNECT 142.250.74.10:443 HTTP/1.1", 403, "never to the network"),
        ("CONNECT fcm.googleapis.com HTTP/1.1", 400, "names no port"),
        ("CONNECT fcm.googleapis.com:99999 HTTP/1.1", 400, "names no port"),
        ("CONNECT fcm.googleapis.com:443", 400, "CONNECT host:443 HTTP/1.1"),
        ("CONNECT  fcm.googleapis.com:443 HTTP/1.1", 400, "CONNECT host:443 HTTP/1.1"),
    ])
    func otherTunnelsAreRefusedSayingWhy(line: String, status: Int, words: String) {
        let request = ProxyRequest(requestLine: line)
        guard case .refused(let refusedStatus, _, let reason) = request else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(refusedStatus == status)
        #expect(reason.contains(words), "\(reason)")
        #expect(request.refusal?.header("Connection") == "close")
        #expect(request.rejected?.method == "CONNECT")
    }
}
