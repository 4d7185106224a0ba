import Tools

await Songcount.main()
