import Tools

await RoutineLink.main()
