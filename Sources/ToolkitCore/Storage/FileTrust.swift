#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            """
            refusing to use \(path): it \(reasons.joined(separator: " and ")), so \(risk); fix: \
            \(fixes.joined(separator: " && "))
            """
    }

    /// What is wrong with a symbolic link at one of our paths owned by `ownerID`; nil when it is
    /// ours or root's. Anyone else's link could point our files at anything of ours they like.
    static func linkProblem(ownerID: uid_t, userID: uid_t = geteuid(), path: String) -> String? {
        guard ownerID != userID && ownerID != 0 else { return nil }
        return
            """
            refusing to use \(path): it is a symbolic link owned by uid \(ownerID), not by you \
            (\(currentUserName())), so another user chose where it leads; fix: rm \(shellQuoted(path))
            """
    }

    /// What is wrong with `parent`, a directory above `path`, as ssh's StrictModes sees it: it must
    /// be yours or root's and not writable by group or others, unless it is sticky (like /tmp:
    /// there nobody else can rename or remove what is yours). Nil when it can be trusted.
    static func parentProblem(
        ownerID: uid_t, mode: mode_t, userID: uid_t, parent: String, path: String
    ) -> String? {
        if ownerID != userID && ownerID != 0 {
            return
                """
                refusing to use \(path): the directory \(parent) above it is owned by uid \(ownerID), not by you or \
                root, so its owner could replace what is in it; fix: move the toolkit's directory elsewhere \
                (XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME)
                """
        }
        let sticky = mode & mode_t(S_ISVTX) != 0
        guard mode & 0o022 != 0 && !sticky else { return nil }
        return
            """
            refusing to use \(path): the directory \(parent) above it is writable by group or others (mode \
            \(String(mode & 0o7777, radix: 8))), so another user could replace what is in it; fix: chmod go-w \
            \(shellQuoted(parent))
            """
    }

    /// Checks what fstat/lstat returned; throws exit 78 naming the path and the fix.
    func verify(_ info: stat, path: String) throws {
        // The user's name (a read of the passwd database) only for the advice, when there is a problem.
        guard problem(ownerID: info.st_uid, mode: info.st_mode, userID: geteuid(), userName: "", path: path) != nil,
            let problem = problem(
                ownerID: info.st_uid, mode: info.st_mode, userID: geteuid(), userName: currentUserName(), path: path)
        else { return }
        throw ToolError.config(problem)
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
