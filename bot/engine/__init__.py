"""The shared async rules engine: the game contract, sessions, timers. Never imports discord."""
