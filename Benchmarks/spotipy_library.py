"""The peer the benchmarks measure against: spotipy as its documentation pages.

    python spotipy_library.py BASE TOKEN            # the whole library
    python spotipy_library.py BASE TOKEN PLAYLIST   # one playlist

The user's playlists by offset (not next(): their next link points at /users/{id}/playlists,
which Spotify, and fake-spotify, no longer serve), then each playlist's items with
playlist_items and next() until there is none. A playlist Spotify will not show (403: someone
else's) is skipped, as the toolkit reports and skips it. Prints each item's id (a local file's
uri), one per line. spotipy's own retries honour a 429's Retry-After.
"""
import sys

import spotipy

base, token = sys.argv[1:3]
what = sys.argv[3] if len(sys.argv) > 3 else "library"
sp = spotipy.Spotify(auth=token, requests_timeout=60)
sp.prefix = base + "/v1/"
if what == "library":
    playlists, offset = [], 0
    while True:
        page = sp.current_user_playlists(limit=50, offset=offset)
        playlists += [p["id"] for p in page["items"]]
        offset += 50
        if offset >= page["total"]:
            break
else:
    playlists = [what]
out = []
for playlist in playlists:
    try:
        page = sp.playlist_items(playlist, limit=50, additional_types=("track", "episode"))
    except spotipy.SpotifyException as error:
        if error.http_status == 403:
            continue
        raise
    while page:
        for entry in page["items"]:
            item = entry.get("item") or entry.get("track")
            if item:
                out.append(item["id"] or item["uri"])
        page = sp.next(page) if page["next"] else None
sys.stdout.write("".join(i + "\n" for i in out))
