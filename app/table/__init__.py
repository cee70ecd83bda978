"""A table being played in this process: its room (the one writer per game) and the room's
collaborators (the clock, bots, stand-ins, the feed, outbound frames, the sockets' connections),
and the hub that holds the rooms. The collaborators see the room through narrow protocols, never
`Room` itself. Imports `app.store` and `app.core`."""
