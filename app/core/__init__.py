"""The shared vocabulary at the bottom: error codes, the message and schema types, settings,
names, ids and tokens, packaged files, metrics and logs. Imports nothing else of `app`."""
