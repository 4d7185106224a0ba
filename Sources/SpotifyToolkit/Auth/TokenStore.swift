import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where tokens live between runs. Every tool reads it; only login, refresh and logout write.
public protocol TokenStore: Sendable {
    /// For people: "file /home/me/.config/spotify-toolkit/tokens.json" or "macOS Keychain ...".
    var location: String { get }
    /// nil when nobody is logged in; throws (exit 78, naming the store) when it cannot be read.
    func load() throws -> StoredTokens?
    func save(_ tokens: StoredTokens) throws
    /// Idempotent.
    func remove() throws
}

public enum TokenStores {
    /// The Keychain on macOS unless SPOTIFY_TOOLKIT_TOKEN_STORE=file; a 0600 file elsewhere.
    public static func make(environment: ToolEnvironment) -> TokenStore {
        #if canImport(Security)
        if environment["SPOTIFY_TOOLKIT_TOKEN_STORE"] != "file" { return KeychainTokenStore() }
        #endif
        return FileTokenStore(directory: environment.configDirectory)
    }

    /// The lock that serialises refreshes across processes; beside the config whatever the store.
    public static func refreshLock(environment: ToolEnvironment) throws -> InterProcessLock {
        try PrivateDirectory.create(environment.configDirectory)
        return InterProcessLock(path: environment.configDirectory + "/tokens.lock")
    }
}

/// A directory only its owner can enter: created 0700 (never wider, not even for a moment).
public enum PrivateDirectory {
    public static func create(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ToolError.config("\(path) exists and is not a directory") }
            // Ours: tighten it if someone widened it.
            _ = chmod(path, 0o700)
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw ToolError.config("cannot create \(parent): \(error.localizedDescription)")
            }
        }
        // mkdir with 0700: the umask can only take bits away, so it is never wider than 0700.
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw ToolError.config("cannot create \(path): \(systemErrorMessage(errno))")
        }
    }
}

/// Tokens in `$XDG_CONFIG_HOME/spotify-toolkit/tokens.json`: directory 0700, file 0600 from the
/// moment they exist, written atomically (temporary file, fsync, rename) so a reader never sees half a file.
public struct FileTokenStore: TokenStore {
    public let directory: String
    public var path: String { directory + "/tokens.json" }
    public var location: String { path }

    public init(directory: String) {
        self.directory = directory
    }

    public func load() throws -> StoredTokens? {
        let data: Data
        do {
            data = try readFile(path)
        } catch let error as SystemError where error.code == ENOENT {
            return nil
        } catch let error as SystemError {
            throw ToolError.config("cannot read the token store \(path): \(systemErrorMessage(error.code)); fix its permissions or remove it with 'spotify-auth logout'")
        }
        do {
            return try JSONDecoder().decode(StoredTokens.self, from: data)
        } catch {
            throw ToolError.config("the token store \(path) is damaged (not the JSON spotify-auth writes); remove it with 'spotify-auth logout' and log in again")
        }
    }

    public func save(_ tokens: StoredTokens) throws {
        try PrivateDirectory.create(directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(tokens)
        try writeAtomically(data, to: path)
    }

    public func remove() throws {
        if unlink(path) != 0 && errno != ENOENT {
            throw ToolError.config("cannot remove the token store \(path): \(systemErrorMessage(errno))")
        }
    }

    func readFile(_ path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(code: errno) }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(code: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // O_EXCL + 0600: the file is private from its first byte.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ToolError.config("cannot write the token store in \(directory): \(systemErrorMessage(errno))")
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw ToolError.config("cannot write the token store \(path): \(systemErrorMessage(failure))")
        }
        // Make the rename itself durable.
        let directoryDescriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}

/// An errno value, for the few places that branch on it before turning it into a ToolError.
struct SystemError: Error {
    var code: Int32
}
