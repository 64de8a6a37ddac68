"""The web pages of the servers that opted in: bot/web/server.py."""

from bot.web.server import WebPages, WebServer

__all__ = ["WebPages", "WebServer"]
