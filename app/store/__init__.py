"""What is stored and how processes hear of it: the database and its rows, migrations, the game
store (the version-guarded commit), the feed store, stored presence, the read models the routes and
rooms read, and the bus between processes (Postgres LISTEN/NOTIFY). Imports only `app.core`."""
