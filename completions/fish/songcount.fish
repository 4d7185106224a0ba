# fish completion for songcount; generated from its command spec by toolkit-docs, do not edit.
complete -c songcount -s t -l target -x -d 'Fit mode: how many songs fill DURATION. Accepts 900 (a bare number is seconds), 45s, 15m, 90min, 1.5h, \'1h 30m\', 1h30m, 15:00 (m:ss), 1:30:00 (h:mm:ss) or PT15M.'
complete -c songcount -s s -l select -d 'With --target: instead of the summary, pass through the input records that fill the window byte for byte, except that CRLF line ends become LF (like head, measured in time).'
complete -c songcount -s b -l best-fit -d 'With --target: instead of the summary, pass through the songs (any of them, in input order) whose total comes closest to the target; ties go to fewer songs, then earlier ones. A summary such as "12 songs, 15:00.4, 0.4 s over" goes to stderr.'
complete -c songcount -s l -l label -d 'Print only the label, e.g. "4.5 songs" (for prompts and notifications).'
complete -c songcount -s j -l json -d 'Write JSON Lines even on a terminal: the song_count record, or with --select and --best-fit the chosen records as they came (a table otherwise).'
complete -c songcount -s h -l help -d 'Show this help and exit.'
complete -c songcount -l version -d 'Show the version and exit.'
