"""Allow `python -m baccarat`."""

from baccarat.cli import main

raise SystemExit(main())
