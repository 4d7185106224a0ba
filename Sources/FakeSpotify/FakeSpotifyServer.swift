import LoopbackHTTP

/// fake-spotify on a socket: a `FakeSpotifyService` behind a `LoopbackHTTPServer` on 127.0.0.1.
/// Tests start one in process; the `fake-spotify` executable runs one until a signal.
final class FakeSpotifyServer: Sendable {
    let service: FakeSpotifyService
    private let http: LoopbackHTTPServer

    /// Binds 127.0.0.1:`port` (0: a free port); call `start()` to serve.
    /// `log`, when given, is called after each answer (from the connection's thread).
    init(
        settings: FakeSpotifySettings = FakeSpotifySettings(), port: UInt16 = 0,
        log: (@Sendable (HTTPRequest, HTTPResponse) -> Void)? = nil
    ) throws {
        let service = FakeSpotifyService(settings: settings)
        self.service = service
        // Kept-alive connections, as Spotify keeps them: a client pays for connecting once, not per request.
        http = try LoopbackHTTPServer(host: "127.0.0.1", port: port, keepAliveIdleSeconds: 30) { request in
            let response = service.handle(request)
            log?(request, response)
            return response
        }
    }

    var port: UInt16 { http.port }

    /// `http://127.0.0.1:PORT`: the accounts base; the Web API base is this + `/v1`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    func start() { http.start() }

    /// Stops accepting connections; idempotent.
    func stop() { http.stop() }
}
