"""Before and between games: tables, seats, hosts and starting a game (`tables`), the queue
(`matchmaking`) and its matching rule (`queue_rule`), and rematches. Imports `app.table` to start a
game in its room, and the layers below."""
