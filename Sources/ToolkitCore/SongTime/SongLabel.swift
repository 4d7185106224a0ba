// How song counts read to people ("You got through 4.5 songs") and in JSON.

/// A song count for people, to the nearest half song (ties round up: 4.25 → "4.5 songs").
///
/// Halves, because a listener thinks in "about four and a half songs", not 4.37. Below half a
/// song there is nothing honest to round to, so it reads "less than 1 song"; so do negative
/// and non-finite values, which only a caller's bug can produce.
package func songLabel(_ songs: Double) -> String {
    guard songs.isFinite, songs >= 0.5 else { return "less than 1 song" }
    // Count of halves. The tiny nudge keeps ties that arithmetic left a hair short (4.2499999…)
    // rounding up, as the rule says.
    let halves = (songs * 2 + 0.5 + 1e-9).rounded(.down)
    guard halves < 9e15 else { return "\(halves / 2) songs" }  // beyond Int-exact doubles
    let count = Int(halves)
    if count == 2 { return "1 song" }
    return count % 2 == 0 ? "\(count / 2) songs" : "\(count / 2).5 songs"
}

/// The `songs` number a record carries: two decimals when that reads the same as the label made
/// from the exact value, else as many as it takes (0.4951 is "less than 1 song", so it is written
/// 0.49, not 0.5, which would read "0.5 songs"). `songLabel(roundedSongs(x)) == songLabel(x)`.
/// Non-finite input (which JSON cannot carry) becomes 0.
func roundedSongs(_ songs: Double) -> Double {
    guard songs.isFinite else { return 0 }
    let label = songLabel(songs)
    for digits in 2...6 {
        let scale = pow10(digits)
        let scaled = songs * scale
        guard scaled.isFinite, abs(scaled) < 9e15 else { return songs }
        for candidate in [scaled.rounded() / scale, scaled.rounded(.down) / scale] where songLabel(candidate) == label {
            return candidate
        }
    }
    return songs
}

private func pow10(_ digits: Int) -> Double {
    var value = 1.0
    for _ in 0..<digits { value *= 10 }
    return value
}

/// "1 track", "2 tracks": a count with its noun, singular or plural.
package func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
