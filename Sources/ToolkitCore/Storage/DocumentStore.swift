#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON document in one file of a private toolkit directory (app-local playlists, routines,
/// session history), shared safely between processes and versioned.
///
///     struct Routines: Codable, Sendable { var routines: [Routine] = [] }
///     let store = DocumentStore(directory: environment.dataDirectory, fileName: "routines.json",
///                               schemaVersion: 1, empty: Routines())
///     let saved = try store.read()                         // nil: no file yet
///     let count = try store.update { document in     // locked, re-read, written atomically
///         document.routines.append(routine)
///         return document.routines.count
///     }
///
/// On disk: one JSON object, the document's own keys plus `schema_version` (so `Document` must
/// encode as a JSON object and must not use that key itself), written atomically (mode 0600, in a
/// directory created 0700). A file that is not such an object (65), or is from a newer build
/// (`schema_version` above ours: 78), is reported with its path and never overwritten. A file
/// with an older `schema_version` goes through `migrate`; without one it is decoded as the
/// current document (fine when versions only added optional fields). A directory or file another
/// user could change is refused (78, with the fix). Readers never lock: they see the old file or
/// the new one. Writers take an exclusive lock on `FILENAME.lock` beside it, so concurrent
/// updates from many processes are never lost. Members of the stored document that this build does
/// not know (written by a newer build of the same schema version) are kept on every update, and
/// temporary files that killed writers left behind are swept.
package struct DocumentStore<Document: Codable & Sendable>: Sendable {
    package let folder: PrivateDirectory
    package let fileName: String
    /// The version this build writes.
    package let schemaVersion: Int
    /// What `update` starts from when there is no file.
    package let empty: Document
    /// Turns a file with an older `schema_version` (its raw bytes) into the current document.
    package let migrate: (@Sendable (_ fromVersion: Int, _ data: Data) throws -> Document)?

    package var path: String { folder.file(fileName) }

    package init(
        directory: String, fileName: String, schemaVersion: Int, empty: Document,
        migrate: (@Sendable (_ fromVersion: Int, _ data: Data) throws -> Document)? = nil
    ) {
        self.folder = PrivateDirectory(directory)
        self.fileName = fileName
        self.schemaVersion = schemaVersion
        self.empty = empty
        self.migrate = migrate
    }

    /// The stored document; nil when there is none yet. Does not lock.
    package func read() throws -> Document? {
        guard let data = try folder.read(fileName, trust: .file) else { return nil }
        return try decode(data)
    }

    /// Runs `body` on the current document (or `empty`) under the store's lock and writes the
    /// result atomically. When `body` throws, nothing is written. Waits for the lock up to
    /// `lockTimeoutSeconds` (then exit 75).
    /// Synchronous on purpose: the lock is held for a read and a write, milliseconds, and a
    /// synchronous body runs on the caller's actor whatever it is.
    package func update<T>(lockTimeoutSeconds: Double = 60, _ body: (inout Document) throws -> T) throws -> T {
        let lock = try folder.lock(fileName + ".lock")
        return try lock.withLockBlocking(timeoutSeconds: lockTimeoutSeconds) {
            let stored = try folder.read(fileName, trust: .file)
            let original = try stored.map(decode)
            var document = original ?? empty
            let result = try body(&document)
            try folder.write(try encode(document, keepingUnknownMembersOf: stored, readAs: original), to: fileName)
            return result
        }
    }

    // MARK: - Format

    private enum EnvelopeKey: String, CodingKey {
        case schemaVersion = "schema_version"
    }

    /// The document's keys and `schema_version` in one object.
    private struct Envelope: Encodable {
        let schemaVersion: Int
        let document: Document
        func encode(to encoder: Encoder) throws {
            try document.encode(to: encoder)
            var container = encoder.container(keyedBy: EnvelopeKey.self)
            try container.encode(schemaVersion, forKey: .schemaVersion)
        }
    }

    private struct VersionProbe: Decodable {
        let schemaVersion: Int
        enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version" }
    }

    func encode(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Envelope(schemaVersion: schemaVersion, document: document)) + Data("\n".utf8)
    }

    /// The encoded document, with the members of `stored` (a file of this schema version, which
    /// this build decoded as `original`) that this build does not know carried over.
    func encode(_ document: Document, keepingUnknownMembersOf stored: Data?, readAs original: Document?) throws -> Data
    {
        let encoded = try encode(document)
        guard let stored, let original, let old = try? JSONValue.parse(stored),
            old["schema_version"]?.intValue == schemaVersion, let known = try? JSONValue.parse(try encode(original)),
            let new = try? JSONValue.parse(encoded),
            let merged = UnknownFields.carried(from: old, knownAs: known, into: new)
        else { return encoded }
        return Data((merged.serialized() + "\n").utf8)
    }

    func decode(_ data: Data) throws -> Document {
        let unreadable = ToolError.dataError(
            """
            \(path) cannot be read: it is not a spotify-toolkit document (a JSON object with schema_version); it was \
            left as it is; move it away to start afresh
            """
        )
        guard let version = try? JSONDecoder().decode(VersionProbe.self, from: data).schemaVersion else {
            throw unreadable
        }
        if version > schemaVersion {
            throw ToolError.config(
                """
                \(path) was written by a newer spotify-toolkit (schema_version \(version); this one knows up to \
                \(schemaVersion)); it was left as it is; upgrade spotify-toolkit to use it
                """
            )
        }
        do {
            if version < schemaVersion, let migrate { return try migrate(version, data) }
            return try JSONDecoder().decode(Document.self, from: data)
        } catch let error as ToolError {
            throw error
        } catch {
            throw unreadable
        }
    }
}
