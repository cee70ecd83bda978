"""A table being played in this process: its room (the one writer per game) and the room's
collaborators (the audience of sockets, the clock, bots, stand-ins, the feed, outbound frames, the
sockets' connections), and the hub that holds the rooms. The collaborators see the room through
narrow protocols (app.table.ports), never `Room` itself. Imports `app.store` and `app.core`."""
