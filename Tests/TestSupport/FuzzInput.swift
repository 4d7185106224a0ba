import ToolkitCore

/// Generated listening logs for the fuzz tests of both songcount modes, in process and spawned,
/// with a fixed seed (a failure replays exactly).
package enum FuzzInput {
    package static let seed: UInt64 = 0x0f00_d5ee_d6

    /// Numbers as they may appear in JSON: edges of Int, beyond it, fractions, exponents.
    static let edgeNumbers = [
        "0", "-0", "1", "-1", "2", "999", "1000", "-1000", "9223372036854775807", "-9223372036854775808",
        "9223372036854775806", "9223372036854775808", "-9223372036854775809", "99999999999999999999999",
        "1e308", "-1e308", "1e400", "1.5", "0.0", "4611686018427387904", "-4611686018427387904", "1e18", "3e2",
    ]

    static func number(_ random: inout SplitMix64) -> String {
        switch random.next() % 4 {
        case 0: return String(Int(bitPattern: UInt(random.next())))
        case 1: return String(Int(random.next() % 400_000))
        default: return edgeNumbers[Int(random.next() % UInt64(edgeNumbers.count))]
        }
    }

    /// One generated listening log: records of a few songs with extreme durations and progress.
    package static func log(_ random: inout SplitMix64, records: Int) -> String {
        (0..<records).map { _ in
            let id = ["a", "b", "c"][Int(random.next() % 3)]
            var fields = [#""id":"\#(id)""#, #""duration_ms":\#(number(&random))"#]
            if random.next() % 4 != 0 { fields.append(#""progress_ms":\#(number(&random))"#) }
            if random.next() % 5 == 0 {
                return #"{"item":{"id":"\#(id)","duration_ms":\#(number(&random))},"progress_ms":\#(number(&random))}"#
            }
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: "\n") + "\n"
    }
}
