import ToolkitCLI

/// The request ledger's files (`RequestLedger`), for the FILES of the man pages that use them.
enum QuotaFiles {
    static let ledger = FileSpec(
        "$XDG_STATE_HOME/spotify-toolkit/requests-CLIENT_ID.jsonl",
        """
        The request ledger: one line for each request any tool sent to Spotify for this app (time, tool, service, \
        method, status; a 429's reason and Retry-After), kept for a rolling 24 hours (trimmed once its oldest \
        line is 25 hours old). Mode 0600; many processes append at once without losing a line; one that cannot \
        be trusted is set aside and a new one begun. spotify-auth usage sums it up.
        """
    )
    static let pause = FileSpec(
        "$XDG_STATE_HOME/spotify-toolkit/quota-CLIENT_ID.json",
        """
        The quota pause: when a QUOTA_EXCEEDED answer's Retry-After ends. Until then every tool exits 69 without \
        sending a request; spotify-auth usage --clear-pause removes it.
        """
    )
}
