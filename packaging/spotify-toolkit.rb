# Homebrew formula (a tap's Formula/spotify-toolkit.rb). Builds from a release's source archive
# with the Swift toolchain Xcode provides, and installs what `make install` installs: the one
# binary, spotify-toolkit, a link named after each tool, their man pages and bash, zsh and fish
# completions. The version is the repository's VERSION file (PackagingTests holds the url to it);
# replace sha256 for each release.
class SpotifyToolkit < Formula
  desc "Script the Spotify Web API from a shell: playlists, tracks, songs that fill a time window"
  homepage "https://example.invalid/spotify-toolkit"
  url "https://example.invalid/spotify-toolkit/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"

  depends_on xcode: ["16.0", :build]
  depends_on macos: :sonoma

  TOOLS = %w[spotify-auth spotify-playlists spotify-tracks spotify-nowplaying songcount routine-link].freeze

  def install
    system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "spotify-toolkit"
    built = Utils.safe_popen_read("swift", "build", "-c", "release", "--show-bin-path").chomp
    bin.install "#{built}/spotify-toolkit"
    TOOLS.each do |tool|
      bin.install_symlink "spotify-toolkit" => tool
      man1.install "man/man1/#{tool}.1"
      bash_completion.install "completions/bash/#{tool}"
      zsh_completion.install "completions/zsh/_#{tool}"
      fish_completion.install "completions/fish/#{tool}.fish"
    end
  end

  test do
    # The count itself, not a word any output holds: two one-minute songs fill two minutes.
    assert_equal "2 songs\n", pipe_output("#{bin}/songcount --target 2m --label", "{\"duration_ms\":60000}\n" * 3, 0)
    assert_equal "spotify-toolkit #{version}\n", shell_output("#{bin}/spotify-toolkit --version")
    assert_match "Usage: spotify-tracks", shell_output("#{bin}/spotify-tracks --help")
  end
end
