# fish completion for spotify-playlists; generated from its command spec by toolkit-docs, do not edit.
complete -c spotify-playlists -f
complete -c spotify-playlists -s c -l concurrency -x -d 'Keep N page requests in flight (1 to 8). Default: start at 4, double to 8 while Spotify answers cleanly, halve on a 429.'
complete -c spotify-playlists -s j -l json -d 'Write JSON Lines even on a terminal.'
complete -c spotify-playlists -n '__fish_use_subcommand' -s h -l help -d 'Show this help and exit.'
complete -c spotify-playlists -n '__fish_use_subcommand' -l version -d 'Show the version and exit.'
complete -c spotify-playlists -n '__fish_use_subcommand' -a list -d 'list every playlist in your library (the default)'
complete -c spotify-playlists -n '__fish_use_subcommand' -a get -d 'fetch playlists by id, URI, URL or record (arguments, or one per line of standard input)'
complete -c spotify-playlists -n '__fish_use_subcommand' -a local -d 'app-local playlists: track records kept on this machine under a name (create, list, show, add, rename, delete)'
complete -c spotify-playlists -n '__fish_seen_subcommand_from list' -s h -l help -d 'Show this help and exit.'
complete -c spotify-playlists -n '__fish_seen_subcommand_from get' -s d -l duration -d 'Add duration_ms, the sum of the durations of all items (reads every item, or spotify-tracks\' snapshot cache when it holds the playlist\'s current version; playlists you own or collaborate on only).'
complete -c spotify-playlists -n '__fish_seen_subcommand_from get' -l no-cache -d 'Neither read nor write the snapshot cache: fetch every page from Spotify.'
complete -c spotify-playlists -n '__fish_seen_subcommand_from get' -s h -l help -d 'Show this help and exit.'
complete -c spotify-playlists -n '__fish_seen_subcommand_from local' -s h -l help -d 'Show this help and exit.'
