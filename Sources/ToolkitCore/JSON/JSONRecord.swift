/// A record a tool prints, as a value: it encodes itself, keys in the order its man page's OUTPUT
/// documents, so no record is built as a dictionary and read back by key.
package protocol JSONRecord: Sendable {
    var json: JSONValue { get }
}

extension JSONLinesWriter {
    /// One record, one line.
    package func write(_ record: some JSONRecord) throws {
        try write(record.json)
    }
}
