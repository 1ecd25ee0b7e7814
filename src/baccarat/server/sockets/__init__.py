"""Sockets: the WebSocket endpoint, each connection's writer, the fan-out hub and the heartbeat."""
