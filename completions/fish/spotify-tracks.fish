# fish completion for spotify-tracks; generated from its command spec by toolkit-docs, do not edit.
complete -c spotify-tracks -f
complete -c spotify-tracks -s l -l liked -d 'Read your liked songs (saved tracks) instead of playlists.'
complete -c spotify-tracks -s s -l search -d 'Search Spotify for each QUERY argument (or, with none, each line of standard input: \'Artist - Title\', \'Title\', or a JSON record with name, artists and duration_ms) and print its best matching track, with query and match fields.'
complete -c spotify-tracks -s n -l candidates -x -d 'With --search: print up to N matches per query (1 to 10), best first. Default: 1.'
complete -c spotify-tracks -l raw -d 'Write Spotify\'s entry objects ({added_at, added_by, is_local, item, ...}) untouched instead of track records; null items included.'
complete -c spotify-tracks -l no-local -d 'Leave out local files (is_local, no Spotify id).'
complete -c spotify-tracks -l tracks-only -d 'Leave out podcast episodes.'
complete -c spotify-tracks -l no-cache -d 'Neither read nor write the snapshot cache: fetch every page from Spotify.'
complete -c spotify-tracks -l offline -d 'Make no request: print the latest cached copy of each playlist, saying on standard error how old it is; a playlist\'s name is looked up in the listing the last online run kept. Nothing cached: exit 69.'
complete -c spotify-tracks -s c -l concurrency -x -d 'Keep N page requests in flight (1 to 8). Default: start at 4, double to 8 while Spotify answers cleanly; a 429 pauses every request until its Retry-After (without one, halve).'
complete -c spotify-tracks -s j -l json -d 'Write JSON Lines even on a terminal.'
complete -c spotify-tracks -s h -l help -d 'Show this help and exit.'
complete -c spotify-tracks -l version -d 'Show the version and exit.'
