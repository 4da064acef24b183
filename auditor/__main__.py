"""`python -m auditor`: the same command line as `memoryos-audit`."""

import sys

from auditor.cli import main

sys.exit(main())
