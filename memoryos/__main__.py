"""`python -m memoryos` is the same as the `memoryos` console script."""

from memoryos.cli import main

raise SystemExit(main())
