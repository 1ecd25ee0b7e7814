"""The wire, typed: the one place where JSON meets the game's values.

- :mod:`.codec`: strict, bounded JSON in; compact, always-encodable JSON out.
- :mod:`.registry`: every command a client sends, once: its ``type``, its class, its fields
  (each checked by :mod:`.fields`) and its route in the server.
- :mod:`.parse`: a client's frame read straight into a typed command (a table's command
  dataclass, or one of :mod:`.requests` for what the server itself does).
- :mod:`.encode`: its inverse, a typed command as a client's frame (the Python client's).
- :mod:`.values`: the one JSON form of every event, view value and lobby line.
- :mod:`.messages`: the server's messages (``hello``, ``ack``, ``error``, ``snapshot``,
  ``event``, ``lobby``, ``lobby.update``, ``notice``), each built as its :mod:`.frames` type.
- :mod:`.ids`: the ids that cross modules, as distinct types.

Pure: no I/O. The submodules are imported by name; this package imports none of them, so
the table may use :mod:`.values` while :mod:`.parse` uses the table's commands.
"""
