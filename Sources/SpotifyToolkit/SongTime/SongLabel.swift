// How song counts read to people ("You got through 4.5 songs") and in JSON.

/// A song count for people, to the nearest half song (ties round up: 4.25 → "4.5 songs").
///
/// Halves, because a listener thinks in "about four and a half songs", not 4.37. Below half a
/// song there is nothing honest to round to, so it reads "less than 1 song"; so do negative
/// and non-finite values, which only a caller's bug can produce.
public func songLabel(_ songs: Double) -> String {
    guard songs.isFinite, songs >= 0.5 else { return "less than 1 song" }
    // Count of halves. The tiny nudge keeps ties that arithmetic left a hair short (4.2499999…)
    // rounding up, as the rule says.
    let halves = (songs * 2 + 0.5 + 1e-9).rounded(.down)
    guard halves < 9e15 else { return "\(halves / 2) songs" }  // beyond Int-exact doubles
    let count = Int(halves)
    if count == 2 { return "1 song" }
    return count % 2 == 0 ? "\(count / 2) songs" : "\(count / 2).5 songs"
}

/// A song count rounded to 2 decimal places, for JSON output.
/// Non-finite input (which JSON cannot carry) becomes 0.
public func roundedSongs(_ songs: Double) -> Double {
    guard songs.isFinite else { return 0 }
    let scaled = songs * 100
    guard scaled.isFinite, abs(scaled) < 9e15 else { return songs }
    return scaled.rounded() / 100
}
