"""Shared Discord pieces: the custom_id scheme, error replies, the lobby, votes, embeds."""
