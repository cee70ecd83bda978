"""The live games of this process: rooms, their store, clock, bots, and the bus between processes."""
