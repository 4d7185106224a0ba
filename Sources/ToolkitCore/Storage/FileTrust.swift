import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a directory or file may be trusted, as ssh's StrictModes decides: it must belong to
/// the user running the tool and must not be writable by group or others (a secret must not be
/// readable by them either). Otherwise another local user could swap in their own session or
/// data, or read ours. Pure: the caller supplies what stat(2) said.
package enum FileTrust: Sendable {
    case directory
    /// A file others may read but not change (config, routines, playlists).
    case file
    /// A file only its owner may read (tokens).
    case secret

    /// The permission bits that must be clear.
    var forbiddenBits: mode_t {
        switch self {
        case .directory, .file: 0o022
        case .secret: 0o077
        }
    }

    /// The mode `chmod` should set when the bits are wrong.
    var fixMode: String {
        switch self {
        case .directory: "700"
        case .file, .secret: "600"
        }
    }

    /// What is wrong with an object of this kind owned by `ownerID` with `mode`, for a tool run
    /// by `userID` (named `userName`); nil when it can be trusted.
    package func problem(ownerID: uid_t, mode: mode_t, userID: uid_t, userName: String, path: String) -> String? {
        var reasons: [String] = []
        var fixes: [String] = []
        if ownerID != userID {
            reasons.append("is owned by uid \(ownerID), not by you (\(userName))")
            fixes.append("chown \(userName) \(shellQuoted(path))")
        }
        if mode & forbiddenBits != 0 {
            let who = self == .secret ? "readable or writable by group or others" : "writable by group or others"
            reasons.append("is \(who) (mode \(String(mode & 0o7777, radix: 8)))")
            fixes.append("chmod \(fixMode) \(shellQuoted(path))")
        }
        guard !reasons.isEmpty else { return nil }
        let risk =
            self == .secret ? "another user could read or replace it" : "another user could replace what is in it"
        return
            "refusing to use \(path): it \(reasons.joined(separator: " and ")), so \(risk); fix: \(fixes.joined(separator: " && "))"
    }

    /// Checks what fstat/lstat returned; throws exit 78 naming the path and the fix.
    func verify(_ info: stat, path: String) throws {
        if let problem = problem(
            ownerID: info.st_uid, mode: info.st_mode, userID: geteuid(), userName: currentUserName(), path: path)
        {
            throw ToolError.config(problem)
        }
    }
}

/// The name of the effective user, for `chown` advice; the uid when it has no name.
func currentUserName() -> String {
    let uid = geteuid()
    if let entry = getpwuid(uid), let name = entry.pointee.pw_name {
        return String(cString: name)
    }
    return String(uid)
}

/// `path` as one shell word: unchanged when it only has safe characters, else single-quoted.
package func shellQuoted(_ path: String) -> String {
    let safe = path.unicodeScalars.allSatisfy { scalar in
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "/._-+:,@%=".unicodeScalars.contains(scalar))
    }
    if safe && !path.isEmpty { return path }
    return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
