import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct SaturatingArithmeticTests {
    @Test func doublesBecomeIntsWithoutTrapping() {
        #expect(Int(saturating: 1e300) == .max)
        #expect(Int(saturating: -1e300) == .min)
        #expect(Int(saturating: .infinity) == .max)
        #expect(Int(saturating: -.infinity) == .min)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: Double(Int.max)) == .max)
        #expect(Int(saturating: 2.9) == 2)
        #expect(Int(saturating: -2.9) == -2)
    }

    @Test func sumsAndDifferencesSaturate() {
        #expect(saturatingAdd(.max, 1) == .max)
        #expect(saturatingAdd(.min, -1) == .min)
        #expect(saturatingAdd(2, 3) == 5)
    }

    @Test func retryAfterIsOnlyDelaySeconds() throws {
        #expect(SpotifyWebAPI.retryAfterSeconds("7") == 7)
        #expect(SpotifyWebAPI.retryAfterSeconds(" 0 ") == 0)
        #expect(SpotifyWebAPI.retryAfterSeconds("99999999999999999999") == 1e20)
        for bad in [nil, "", "inf", "nan", "-5", "1.5", "1e3", "Wed, 21 Oct 2026 07:28:00 GMT"] {
            #expect(SpotifyWebAPI.retryAfterSeconds(bad) == nil)
        }
        #expect(try SpotifyWebAPI.maxRetryWait(nil) == 30)
        #expect(try SpotifyWebAPI.maxRetryWait("0.5") == 0.5)
        #expect(try SpotifyWebAPI.maxRetryWait(" 3600 ") == 3600)
        for bad in ["inf", "nan", "-1", "1e300", "0x10", "abc", "3601", ".5", "5.", "1.2.3"] {
            #expect(throws: ToolError.self, "\(bad)") { try SpotifyWebAPI.maxRetryWait(bad) }
        }
    }

    @Test func tokenLifetimesAreLimited() {
        func lifetime(_ seconds: Int?) -> Double { TokenResponse(accessToken: "a", expiresIn: seconds).lifetimeSeconds }
        #expect(lifetime(3600) == 3600)
        #expect(lifetime(nil) == 3600)
        #expect(lifetime(.max) == TokenResponse.maximumLifetimeSeconds)
        #expect(lifetime(-5) == 0)
    }
}
