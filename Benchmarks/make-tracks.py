#!/usr/bin/env python3
"""Writes N Spotify-shaped track objects (one per line, about 800 bytes each) to stdout.

Deterministic: the same N gives the same file, so runs compare like with like.
"""
import json
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
rng = random.Random(7)
alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
out = sys.stdout
for n in range(count):
    tid = "".join(rng.choice(alphabet) for _ in range(22))
    aid = tid[::-1]
    alid = tid[11:] + tid[:11]
    artist = {"href": f"https://api.spotify.com/v1/artists/{aid}", "id": aid,
              "name": f"Artist {n % 5000}", "type": "artist", "uri": f"spotify:artist:{aid}"}
    track = {
        "album": {"album_type": "album", "id": alid,
                  "images": [{"height": 640, "url": f"https://i.scdn.co/image/ab67616d0000b273{tid.lower()}", "width": 640}],
                  "name": f"Album {n % 20000}", "release_date": "2024-03-01", "release_date_precision": "day",
                  "total_tracks": 12, "type": "album", "uri": f"spotify:album:{alid}"},
        "artists": [artist], "disc_number": 1, "duration_ms": rng.randint(90_000, 420_000), "explicit": n % 7 == 0,
        "external_ids": {"isrc": f"USX9P{n:07d}"}, "external_urls": {"spotify": f"https://open.spotify.com/track/{tid}"},
        "href": f"https://api.spotify.com/v1/tracks/{tid}", "id": tid, "is_local": False, "is_playable": True,
        "name": f"Track number {n} \u2014 caf\u00e9 mix", "preview_url": None, "track_number": n % 12 + 1,
        "type": "track", "uri": f"spotify:track:{tid}",
    }
    out.write(json.dumps(track, separators=(",", ":"), ensure_ascii=False))
    out.write("\n")
