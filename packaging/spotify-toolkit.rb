# Homebrew formula (a tap's Formula/spotify-toolkit.rb). Builds from a release tarball with the
# Swift toolchain Xcode provides, and installs the six tools with their man pages and bash, zsh
# and fish completions, as `make install` does. Replace url and sha256 for each release
# (`make dist` prints the tarball's sha256).
class SpotifyToolkit < Formula
  desc "Script the Spotify Web API from a shell: playlists, tracks, songs that fill a time window"
  homepage "https://example.invalid/spotify-toolkit"
  url "https://example.invalid/spotify-toolkit/archive/refs/tags/v0.6.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"

  depends_on xcode: ["16.0", :build]
  depends_on macos: :sonoma

  TOOLS = %w[spotify-auth spotify-playlists spotify-tracks spotify-nowplaying songcount routine-link].freeze

  def install
    system "swift", "build", "--disable-sandbox", "-c", "release"
    built = Utils.safe_popen_read("swift", "build", "-c", "release", "--show-bin-path").chomp
    TOOLS.each do |tool|
      bin.install "#{built}/#{tool}"
      man1.install "man/man1/#{tool}.1"
      bash_completion.install "completions/bash/#{tool}"
      zsh_completion.install "completions/zsh/_#{tool}"
      fish_completion.install "completions/fish/#{tool}.fish"
    end
  end

  test do
    assert_match "songs", pipe_output("#{bin}/songcount --target 15m",
      '{"type":"track","id":"a","duration_ms":200000}' + "\n", 0)
    assert_match "spotify-tracks", shell_output("#{bin}/spotify-tracks --help")
  end
end
