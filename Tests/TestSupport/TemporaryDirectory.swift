import Foundation
import ToolkitCore

/// A scratch directory, private to the user, removed when the last reference goes.
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("spotify-toolkit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o700)  // the tools refuse a home others could write, whatever the umask
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package var path: String { url.path }

    /// Writes a file in the directory; its path.
    @discardableResult
    package func file(_ name: String, contents: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    package func read(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: url.appendingPathComponent(name)), as: UTF8.self)
    }

    /// Opens (and with `contents`, first writes) a file in the directory; its descriptor.
    package func open(_ name: String, contents: String? = nil, flags: Int32) throws -> Int32 {
        let path = url.appendingPathComponent(name).path
        if let contents { try contents.write(toFile: path, atomically: false, encoding: .utf8) }
        let fd = Foundation.open(path, flags, 0o600)
        guard fd >= 0 else { throw ToolError.ioError("cannot open \(path)") }
        return fd
    }
}
