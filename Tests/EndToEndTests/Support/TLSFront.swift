#if os(Linux)
import Foundation
import Glibc
import Testing

@testable import ToolkitCore

/// fake-spotify behind a real TLS 1.3 front: nginx, run unprivileged-style from a
/// temporary prefix of its own (config, pid, logs), on 127.0.0.1 and two free ports: `h2Port`
/// offers HTTP/2 and HTTP/1.1 by ALPN, `h1Port` HTTP/1.1 only. Its certificate, for 127.0.0.1,
/// localhost and api.spotify.test, is signed by a CA made for the test with openssl (`caFile`,
/// and hashed in `caDirectory`); `wrongCAFile` is another CA that signed nothing here. nginx
/// gzips JSON for a client that asks, as a CDN in front of an API does, and logs every request
/// with its connection, protocol, TLS session reuse and bytes (`requests()`); failed handshakes
/// go to its error log (`failedHandshakes()`). Stopped (and its files removed) when let go, and
/// if the test process dies: nginx runs under a `sh` that stops it when its standard input, a
/// pipe from this process, ends. (Not `timeout`: a child of the test process inherits its
/// blocked signals, and a `timeout` that cannot take SIGTERM never passes it on.)
final class TLSFront: @unchecked Sendable {  // immutable after init, but for the log offsets under `lock`
    let fake: FakeSpotifyProcess
    let directory: TemporaryDirectory
    let h2Port: Int
    let h1Port: Int
    let caFile: String
    let wrongCAFile: String
    let caDirectory: String
    private let nginx: Process
    /// The keeper's standard input: closing its write end stops nginx.
    private let keeper: Pipe
    private let lock = NSLock()
    private var accessOffset = 0
    private var errorOffset = 0

    static let nginxPath = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx"]
        .first(where: FileManager.default.isExecutableFile)
    static let opensslPath = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first(where: FileManager.default.isExecutableFile)

    /// Why the front cannot run on this machine, or nil when it can.
    static let missing: String? = {
        var absent: [String] = []
        if nginxPath == nil { absent.append("nginx") }
        if opensslPath == nil { absent.append("openssl") }
        return absent.isEmpty
            ? nil : "\(absent.joined(separator: " and ")) not installed (apt-get install nginx openssl)"
    }()

    /// Whether the TLS front tests run: wherever nginx and openssl are, and always in CI
    /// (`CI=true`, which `.ci/run` installs them for), where a missing one then fails them.
    static let runs = missing == nil || ProcessInfo.processInfo.environment["CI"] == "true"

    init(fakeArguments: [String] = []) throws {
        if let missing = Self.missing { throw ToolError.unavailable("the TLS front cannot start: \(missing)") }
        fake = try FakeSpotifyProcess(fakeArguments)
        directory = try TemporaryDirectory()
        let path = directory.path
        caFile = path + "/ca.pem"
        wrongCAFile = path + "/wrong-ca.pem"
        caDirectory = path + "/ca.d"
        try Self.makeCertificates(in: path)
        for folder in ["logs", "tmp", "ca.d"] {
            try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
        }
        // A hashed directory (`openssl rehash`'s layout: <subject hash>.0) for SSL_CERT_DIR.
        let hash = try Self.openssl(["x509", "-hash", "-noout", "-in", caFile]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try FileManager.default.copyItem(atPath: caFile, toPath: "\(caDirectory)/\(hash).0")

        // Free ports now, nginx binds them a moment later: another process may take one
        // meanwhile, so a start that fails is tried again on new ports.
        var started: (Process, Pipe, Int, Int)?
        var failure = ""
        for _ in 0..<3 where started == nil {
            let (h2, h1) = (try Self.freePort(), try Self.freePort())
            try Self.configuration(prefix: path, fakePort: fake.port, h2Port: h2, h1Port: h1)
                .write(toFile: path + "/nginx.conf", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // nginx is the shell's child, so its pid is still nginx's when the shell signals it.
            // No `wait`: with SIGCHLD blocked the shell would never see nginx end.
            process.arguments = [
                "-c", #""$0" -p "$1" -c "$1/nginx.conf" -e "$1/logs/error.log" & n=$!; read x; kill $n"#,
                Self.nginxPath!, path,
            ]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitForListening([h2, h1], errorLog: path + "/logs/error.log") {
                started = (process, input, h2, h1)
            } else {
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
                failure = (try? String(contentsOfFile: path + "/logs/error.log", encoding: .utf8)) ?? ""
            }
        }
        guard let (process, keeper, h2, h1) = started else {
            throw ToolError.unavailable("nginx did not start: \(failure.suffix(500))")
        }
        (nginx, self.keeper, h2Port, h1Port) = (process, keeper, h2, h1)
        try skipLogs()  // the probes above are no handshakes of a tool's
    }

    deinit {
        try? keeper.fileHandleForWriting.close()  // the keeper sends nginx SIGTERM: a fast shutdown
        nginx.waitUntilExit()
    }

    /// The API base through the front: HTTP/2 by default, `http1` for the HTTP/1.1-only port.
    func apiBase(http1: Bool = false, host: String = "127.0.0.1") -> String {
        "https://\(host):\(http1 ? h1Port : h2Port)/v1"
    }

    /// The tools' environment for the front: fake-spotify's (a private home), the bases on the
    /// front, a minted token, and no CA setting of the test machine's own (CURL_CA_BUNDLE would
    /// win over SSL_CERT_FILE, as in curl), but those in `extra`.
    func environment(token: String, http1: Bool = false, _ extra: [String: String] = [:]) -> [String: String] {
        var base = [
            "SPOTIFY_API_BASE": apiBase(http1: http1),
            "SPOTIFY_ACCOUNTS_BASE": "https://127.0.0.1:\(http1 ? h1Port : h2Port)",
            "SPOTIFY_ACCESS_TOKEN": token,
        ]
        for name in Self.trustVariables + Self.proxyVariables { base[name] = "" }
        return fake.environment(base.merging(extra) { $1 })
    }

    static let trustVariables = ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"]
    static let proxyVariables = [
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
    ]

    func mintToken(scope: String = "playlist-read-private playlist-read-collaborative user-library-read") throws
        -> String
    {
        try fake.call("POST", "/_fake/tokens", form: [("scope", scope), ("expires_in", "3600")])["access_token"]?
            .stringValue ?? ""
    }

    /// One request as nginx logged it.
    struct Request: Sendable {
        var connection: Int
        var serverProtocol: String
        var tlsProtocol: String
        var sessionReused: Bool
        var status: Int
        var method: String
        var uri: String
        /// The body as sent (compressed, when it was).
        var bodyBytes: Int
        /// The body before compression: `bodyBytes` times nginx's $gzip_ratio, or `bodyBytes`.
        var uncompressedBytes: Double
        var gzipped: Bool
        var acceptEncoding: String
        var port: Int
    }

    /// The requests logged since the last call (nginx writes each line as the request ends; the
    /// tool has exited by the time a test asks, so its lines are all there).
    func requests() throws -> [Request] {
        let text = try newText(of: "access.log", offset: \.accessOffset)
        return text.split(separator: "\n").compactMap { line in
            let field = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard field.count == 12, let connection = Int(field[0]), let status = Int(field[4]),
                let bytes = Int(field[7]), let port = Int(field[11])
            else { return nil }
            let ratio = Double(field[8])
            return Request(
                connection: connection, serverProtocol: field[1], tlsProtocol: field[2], sessionReused: field[3] == "r",
                status: status, method: field[5], uri: field[6], bodyBytes: bytes,
                uncompressedBytes: Double(bytes) * (ratio ?? 1), gzipped: ratio != nil, acceptEncoding: field[9],
                port: port)
        }
    }

    /// TLS handshakes that failed since the last call, as nginx's error log tells them. nginx
    /// logs one when it has read the client's alert, which may be a moment after the client
    /// exited: this waits up to 5 s for at least `atLeast`, and then a little for any more.
    func failedHandshakes(atLeast: Int = 0) throws -> [String] {
        var lines: [String] = []
        for _ in 0..<100 {  // bounded: 5 s
            lines += try newText(of: "error.log", offset: \.errorOffset).split(separator: "\n").map(String.init)
                .filter { $0.contains("while SSL handshaking") }
            if lines.count >= atLeast { break }
            usleep(50_000)
        }
        usleep(200_000)
        return lines
            + (try newText(of: "error.log", offset: \.errorOffset).split(separator: "\n").map(String.init)
                .filter { $0.contains("while SSL handshaking") })
    }

    private func newText(of log: String, offset: ReferenceWritableKeyPath<TLSFront, Int>) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/logs/" + log))
        return lock.withLock {
            let start = min(self[keyPath: offset], data.count)
            self[keyPath: offset] = data.count
            return String(decoding: data[start...], as: UTF8.self)
        }
    }

    /// Forgets what the logs hold so far: the next `requests()` and `failedHandshakes()` start here.
    func skipLogs() throws {
        _ = try requests()
        _ = try failedHandshakes()
    }

    // MARK: - Setting up

    static func configuration(prefix: String, fakePort: Int, h2Port: Int, h1Port: Int) -> String {
        // As root (a CI container), workers would otherwise run as nobody and could not use the
        // private temporary prefix.
        let user = geteuid() == 0 ? "user root root;\n" : ""
        return """
            \(user)worker_processes 1;
            daemon off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log info;
            events { worker_connections 512; }
            http {
              log_format front '$connection\\t$server_protocol\\t$ssl_protocol\\t$ssl_session_reused\\t$status\\t$request_method\\t$request_uri\\t$body_bytes_sent\\t$gzip_ratio\\t$http_accept_encoding\\t$bytes_sent\\t$server_port';
              access_log \(prefix)/logs/access.log front;
              client_body_temp_path \(prefix)/tmp/body;
              proxy_temp_path \(prefix)/tmp/proxy;
              fastcgi_temp_path \(prefix)/tmp/fastcgi;
              uwsgi_temp_path \(prefix)/tmp/uwsgi;
              scgi_temp_path \(prefix)/tmp/scgi;
              upstream fake { server 127.0.0.1:\(fakePort); keepalive 16; }
              gzip on;
              gzip_types application/json;
              gzip_proxied any;
              gzip_comp_level 1;
              ssl_certificate \(prefix)/server.pem;
              ssl_certificate_key \(prefix)/server.key;
              ssl_protocols TLSv1.3;
              server {
                listen 127.0.0.1:\(h2Port) ssl http2;
                listen 127.0.0.1:\(h1Port) ssl;
                location / {
                  proxy_pass http://fake;
                  proxy_http_version 1.1;
                  proxy_set_header Connection "";
                  proxy_set_header Accept-Encoding "";
                  # fake-spotify's links name itself; a client following them stays on the front.
                  sub_filter_types application/json;
                  sub_filter_once off;
                  sub_filter 'http://127.0.0.1:\(fakePort)' 'https://$http_host';
                }
              }
            }

            """
    }

    /// A CA, a server certificate it signs (EC P-256, valid 2 days), and a second CA.
    static func makeCertificates(in path: String) throws {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let caExtensions = [
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ]
        for (name, subject) in [("ca", "spotify-toolkit test CA"), ("wrong-ca", "spotify-toolkit other CA")] {
            _ = try openssl(
                ["req", "-x509"] + ec + [
                    "-keyout", "\(path)/\(name).key", "-out", "\(path)/\(name).pem", "-days", "2", "-subj",
                    "/CN=\(subject)",
                ] + caExtensions)
        }
        _ = try openssl(
            ["req"] + ec + ["-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=localhost"])
        let extensions = try TemporaryFile.write(
            "\(path)/server.ext",
            """
            subjectAltName=DNS:localhost,DNS:api.spotify.test,IP:127.0.0.1
            extendedKeyUsage=serverAuth
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature

            """)
        _ = try openssl([
            "x509", "-req", "-in", "\(path)/server.csr", "-CA", "\(path)/ca.pem", "-CAkey", "\(path)/ca.key",
            "-CAcreateserial", "-out", "\(path)/server.pem", "-days", "2", "-extfile", extensions,
        ])
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath!)
        process.arguments = arguments
        let result = try ToolProcess.capture(process, stdin: nil, timeout: 60)
        guard result.status == 0 else {
            throw ToolError.unavailable(
                "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }

    /// A port nothing listens on now, from the kernel's ephemeral range.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ToolError.unavailable("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw ToolError.unavailable("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether every port accepts a connection within 10 s, before nginx logs that it cannot start.
    static func waitForListening(_ ports: [Int], errorLog: String) -> Bool {
        for _ in 0..<200 {  // bounded: 10 s
            if ports.allSatisfy(accepts) { return true }
            if let log = try? String(contentsOfFile: errorLog, encoding: .utf8), log.contains("[emerg]") {
                return false
            }
            usleep(50_000)
        }
        return false
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

private enum TemporaryFile {
    static func write(_ path: String, _ text: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
#endif
